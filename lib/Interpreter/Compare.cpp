//===- Compare.cpp - comparing two evaluations of a tensor ----------------===//

#include "weft/Interpreter/Compare.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::weft::interp;

double mlir::weft::interp::magnitude(ArrayRef<double> values) {
  double scale = 0;
  for (double v : values)
    if (std::isfinite(v))
      scale = std::max(scale, std::fabs(v));
  return scale;
}

Comparison mlir::weft::interp::compare(const Tensor &actual,
                                       const Tensor &expected, double rtol,
                                       double atol) {
  assert(actual.getShape() == expected.getShape());
  Comparison c;
  c.scale = magnitude(expected.getData());
  double tolerance = atol + rtol * c.scale;
  double worstExcess = 0;
  for (int64_t i = 0; i < actual.getNumElements(); ++i) {
    double a = actual[i], e = expected[i];
    bool nanMismatch = std::isnan(a) != std::isnan(e);
    if (std::isnan(a) && std::isnan(e))
      continue;
    // Equal infinities compare equal (their difference is NaN).
    double diff = a == e ? 0.0 : std::fabs(a - e);
    if (std::isnan(diff) || nanMismatch)
      diff = INFINITY;
    c.maxAbsError = std::max(c.maxAbsError, diff);
    double excess = diff - tolerance;
    if (excess <= 0)
      continue;
    if (c.failures++ == 0 || excess > worstExcess) {
      worstExcess = excess;
      c.worstIndex = i;
      c.worstActual = a;
      c.worstExpected = e;
    }
  }
  if (c.maxAbsError > 0)
    c.maxRelError = c.scale > 0 ? c.maxAbsError / c.scale : INFINITY;
  return c;
}

//===- Compare.cpp - comparing two evaluations of a tensor ----------------===//

#include "weft/Interpreter/Compare.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::weft::interp;

Comparison mlir::weft::interp::compare(const Tensor &actual,
                                       const Tensor &expected, double rtol,
                                       double atol) {
  assert(actual.getShape() == expected.getShape());
  Comparison c;
  double worstExcess = 0;
  for (int64_t i = 0; i < actual.getNumElements(); ++i) {
    double a = actual[i], e = expected[i];
    bool nanMismatch = std::isnan(a) != std::isnan(e);
    if (std::isnan(a) && std::isnan(e))
      continue;
    // Equal infinities compare equal (their difference is NaN).
    double diff = a == e ? 0.0 : std::fabs(a - e);
    if (std::isnan(diff))
      diff = INFINITY;
    c.maxAbsError = std::max(c.maxAbsError, nanMismatch ? INFINITY : diff);
    if (e != 0)
      c.maxRelError =
          std::max(c.maxRelError, nanMismatch ? INFINITY : diff / std::fabs(e));
    double excess =
        nanMismatch ? INFINITY : diff - (atol + rtol * std::fabs(e));
    if (excess <= 0)
      continue;
    if (c.failures++ == 0 || excess > worstExcess) {
      worstExcess = excess;
      c.worstIndex = i;
      c.worstActual = a;
      c.worstExpected = e;
    }
  }
  return c;
}

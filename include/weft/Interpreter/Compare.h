//===- Compare.h - comparing two evaluations of a tensor --------*- C++ -*-===//

#ifndef WEFT_INTERPRETER_COMPARE_H
#define WEFT_INTERPRETER_COMPARE_H

#include "weft/Interpreter/Tensor.h"

namespace mlir::weft::interp {

/// How far `actual` is from `expected` (numpy.allclose's rule: an element
/// fails when |actual - expected| > atol + rtol * |expected|, or when one is
/// NaN and the other is not).
struct Comparison {
  double maxAbsError = 0;
  /// max |actual - expected| / |expected| over elements with expected != 0.
  double maxRelError = 0;
  /// Elements beyond the tolerance, and the worst of them.
  int64_t failures = 0;
  int64_t worstIndex = -1;
  double worstActual = 0, worstExpected = 0;
};

/// Compares two tensors of equal shape.
Comparison compare(const Tensor &actual, const Tensor &expected, double rtol,
                   double atol);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_COMPARE_H

//===- Compare.h - comparing two evaluations of a tensor --------*- C++ -*-===//
//
// The tolerance is relative to the magnitude of the reference tensor (its
// largest finite |element|), as test/numpy/weft_numpy.py measures: partial
// sums added in another order differ by a few ulps of the *largest* terms,
// so an element that cancels to near zero inside a tensor whose values reach
// 1e16 legitimately differs by far more than rtol times itself.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_COMPARE_H
#define WEFT_INTERPRETER_COMPARE_H

#include "weft/Interpreter/Tensor.h"

namespace mlir::weft::interp {

/// The largest finite |value| (0 for none): the scale of a tensor.
double magnitude(ArrayRef<double> values);

/// How far `actual` is from `expected`. An element fails when
/// |actual - expected| > atol + rtol * scale, with scale the magnitude of
/// `expected`, or when one side only is NaN.
struct Comparison {
  /// magnitude(expected).
  double scale = 0;
  double maxAbsError = 0;
  /// maxAbsError / scale (0 when equal; infinite when scale is 0 and they
  /// differ).
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

//===- GradientCheck.h - autodiff gradients against finite differences -*- C++
//-*-===//
//
// The oracle of --weft-autodiff: for a function whose result 0 is a scalar
// loss and whose results marked `weft.grad_of = i` are the gradients of
// argument i, compares every gradient element with the central difference
// (L(x + h e) - L(x - h e)) / 2h, evaluated by the interpreter in double.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_GRADIENTCHECK_H
#define WEFT_INTERPRETER_GRADIENTCHECK_H

#include "weft/Interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::weft::interp {

struct GradientCheckOptions {
  /// h = step * max(1, |x|).
  double step = 1e-5;
  /// An element fails when |analytic - numeric| > atol + rtol * scale,
  /// scale the largest |analytic| of its gradient (as --compare does).
  double rtol = 1e-6, atol = 1e-12;
  /// Most parameter elements checked (two evaluations each).
  int64_t maxElements = 1 << 16;
};

/// Prints one verdict per gradient result to `os`; fails (with a
/// diagnostic) on malformed input, and returns in `mismatches` how many
/// gradients have an element out of tolerance.
LogicalResult checkGradients(func::FuncOp func, ArrayRef<Tensor> args,
                             const GradientCheckOptions &options,
                             llvm::raw_ostream &os, unsigned &mismatches);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_GRADIENTCHECK_H

//===- LossScaling.h - the names dynamic loss scaling shares ----*- C++ -*-===//
//
// Dynamic loss scaling (weftc --precision=f16-mixed, docs/precision.md)
// spans three passes and the lowering: --weft-autodiff marks the seed of
// the backward (d loss / d loss = 1), --weft-precision replaces every
// marked seed by a `loss_scale` input and divides the gradients by it,
// --weft-optimizer returns whether every gradient is finite, and the
// program's signature (ProgramInfo.cpp) hands both to the harness, which
// keeps the scale and skips the update of a step that overflowed.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_LOSSSCALING_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_LOSSSCALING_H

#include "weft/Dialect/Weft/IR/WeftDialect.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::weft {

/// A unit attribute on the rank-0 `weft.constant 1.0` that --weft-autodiff
/// seeds the backward with (one per micro-batch after --weft-accumulate).
/// Declared in the dialect's ODS and verified there
/// (OperationAttrVerification.cpp).
inline constexpr llvm::StringLiteral kLossSeedAttr =
    WeftDialect::LossSeedAttrHelper::getNameStr();
/// The `weft.hyperparam` value of the loss-scale input.
inline constexpr llvm::StringLiteral kLossScaleHyperparam = "loss_scale";
/// A unit attribute on the rank-0 result that is 1 where every gradient of
/// the step is finite and 0 where one is not (the step overflowed).
/// Declared in the dialect's ODS and verified there
/// (GlobalTypeVerification.cpp).
inline constexpr llvm::StringLiteral kFiniteGradsAttr =
    WeftDialect::FiniteGradsAttrHelper::getNameStr();

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_LOSSSCALING_H

//===- Vjp.h - vector-Jacobian products of weft functions -------*- C++ -*-===//
//
// A declaration marked `weft.vjp_of = @f` is the vector-Jacobian product of
// @f: weft-inline-calls writes its body with the autodiff rules
// (Calls/ExpandVjp.cpp) so that a program can run the backward of one
// layer call where it chooses, as a 1F1B pipeline does (docs/pipeline.md).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_VJP_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_VJP_H

#include "weft/Dialect/Weft/IR/WeftDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::weft {

inline constexpr llvm::StringLiteral kVjpOfAttr =
    WeftDialect::VjpOfAttrHelper::getNameStr();

/// Reverse mode with a given cotangent: `f` has one block returning one
/// tensor y, and its last argument is the cotangent of y; every other
/// argument is a float or integer tensor. Replaces f's results by (y, the
/// gradient of <y, cotangent> with respect to each other float argument,
/// in argument order; integer ones have none), with the rules
/// --weft-autodiff uses. Autodiff.cpp.
LogicalResult differentiateWithCotangent(func::FuncOp f);

/// Writes the body of every declaration of `module` marked
/// `weft.vjp_of = @f` (its signature: f's arguments and the cotangent of
/// f's result in, one gradient per float argument of f out) and drops the mark.
/// The functions it differentiates must be free of calls. Errors name the
/// declaration. ExpandVjp.cpp.
LogicalResult expandVjpDeclarations(ModuleOp module);

/// Whether `f` is a declaration marked `weft.vjp_of` (its calls are not
/// calls of a missing body).
bool isVjpDeclaration(func::FuncOp f);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_VJP_H

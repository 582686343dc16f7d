//===- Signature.h - the global types of a local-view function --*- C++ -*-===//
//
// Convention for partitioned (local-view) functions: every argument carries
// the arg attribute `weft.global_type` and every result the result attribute
// `weft.global_type`, a TypeAttr holding the global tensor type with its
// #weft.sharding encoding (no encoding: replicated). The function's own
// types are the local shapes, without encoding.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_SIGNATURE_H
#define WEFT_INTERPRETER_SIGNATURE_H

#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Interpreter/Layout.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::weft::interp {

/// The global types of a local-view function, their layouts, and the mesh
/// it runs on.
struct LocalSignature {
  /// The one mesh the function names (null: none, a single rank).
  MeshOp meshOp;
  Mesh mesh;
  SmallVector<RankedTensorType> argTypes, resultTypes;
  SmallVector<Layout, 4> argLayouts, resultLayouts;
  /// The types inputs and outputs have outside: the global types with the
  /// `weft.logical_shape` of a padded argument or result (--weft-pad-uneven;
  /// otherwise the global types). Inputs are zero-padded to the global
  /// types, results cropped back.
  SmallVector<RankedTensorType> argLogical, resultLogical;
};

/// Reads and checks the signature of a local-view function: every argument
/// and result has a `weft.global_type` whose sharding verifies against its
/// mesh; local types are the global types' local shapes with the same
/// element type; all shardings and local-view ops name one mesh. Emits an
/// error on the function (or the op naming a second mesh) and fails
/// otherwise.
FailureOr<LocalSignature> getLocalSignature(func::FuncOp func);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_SIGNATURE_H

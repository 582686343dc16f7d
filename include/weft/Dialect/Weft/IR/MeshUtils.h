//===- MeshUtils.h - looking up meshes and checking shardings ---*- C++ -*-===//

#ifndef WEFT_DIALECT_WEFT_IR_MESHUTILS_H
#define WEFT_DIALECT_WEFT_IR_MESHUTILS_H

#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::weft {

/// The weft.mesh that `ref` names, seen from `from`; emits an error on `from`
/// and fails if there is none.
FailureOr<MeshOp> lookupMesh(Operation *from, FlatSymbolRefAttr ref,
                             SymbolTableCollection &tables);

/// The product of the sizes of `axes` in `mesh` (the group size of a
/// collective over them); emits an error on `op` for an unknown axis.
FailureOr<int64_t> getGroupSize(Operation *op, MeshOp mesh,
                                ArrayRef<StringRef> axes);

/// Checks the sharding encoding of `type` (if any) against its mesh: the
/// mesh exists and every axis is one of its axes. With `evenly` (the
/// `weft.global_type` of a partitioned function), every split dimension
/// must also be divisible by the product of its axes; a global-view value
/// may be uneven (--weft-pad-uneven pads it). `what` names the value in
/// messages ("operand #1", "the result").
LogicalResult verifyShardingAgainstMesh(Operation *op, Type type,
                                        const Twine &what,
                                        SymbolTableCollection &tables,
                                        bool evenly = false);

/// Checks that a static tensor `type` has sizes >= 1 and at most
/// kMaxElements elements (Limits.h); `what` names it in messages.
LogicalResult verifyTensorSize(Operation *op, Type type, const Twine &what);

/// Checks every argument and result of `func` (and its weft.global_types)
/// the way weft ops check their operands: sizes, and shardings against
/// their mesh. Covers what no op verifies: an annotated argument no op uses.
LogicalResult verifySignature(func::FuncOp func, SymbolTableCollection &tables);

/// SymbolUserOpInterface::verifySymbolUses of an op whose only symbol uses
/// are the shardings of its types: every operand and result type's sizes,
/// and its sharding against its mesh (an op's own file calls it).
LogicalResult verifyTypeSymbolUses(Operation *op,
                                   SymbolTableCollection &tables);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_MESHUTILS_H

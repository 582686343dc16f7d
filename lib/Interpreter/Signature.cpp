//===- Signature.cpp - the global types of a local-view function ----------===//

#include "weft/Interpreter/Signature.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

/// Reads the `weft.global_type` of one argument or result and checks it
/// against the local type.
static FailureOr<RankedTensorType>
readGlobalType(func::FuncOp func, Attribute attr, Type localType,
               const std::string &what, SymbolTableCollection &tables) {
  if (!attr)
    return func.emitError()
           << what << " has no `" << kGlobalTypeAttr
           << "` attribute; a local-view function gives every argument and "
              "result its global type, e.g. {"
           << kGlobalTypeAttr << " = tensor<8x16xf32, #weft.sharding<...>>}";
  auto typeAttr = dyn_cast<TypeAttr>(attr);
  auto global =
      typeAttr ? dyn_cast<RankedTensorType>(typeAttr.getValue()) : nullptr;
  if (!global || !global.hasStaticShape())
    return func.emitError()
           << "`" << kGlobalTypeAttr << "` of " << what
           << " must be a static ranked tensor type, got " << attr;
  auto local = dyn_cast<RankedTensorType>(localType);
  if (!local || !local.hasStaticShape())
    return func.emitError() << what << " has type " << localType
                            << "; the interpreter takes static tensors";
  if (getSharding(local))
    return func.emitError() << what << " has type " << local
                            << ": local types carry no #weft.sharding";
  if (local.getElementType() != global.getElementType())
    return func.emitError() << what << " has element type "
                            << local.getElementType() << " but its global type "
                            << global << " has " << global.getElementType();
  if (local.getRank() != global.getRank())
    return func.emitError()
           << what << " has rank " << local.getRank() << " but its global type "
           << global << " has rank " << global.getRank();
  if (failed(verifyShardingAgainstMesh(func, global,
                                       "the global type of " + what, tables,
                                       /*evenly=*/true)))
    return failure();
  return global;
}

/// `global` with the shape `logical` names (verified against it by the
/// dialect), or `global` itself.
static RankedTensorType logicalType(RankedTensorType global,
                                    DenseI64ArrayAttr logical) {
  if (!logical)
    return global;
  return RankedTensorType::get(logical.asArrayRef(), global.getElementType(),
                               global.getEncoding());
}

FailureOr<LocalSignature>
mlir::weft::interp::getLocalSignature(func::FuncOp func) {
  SymbolTableCollection tables;
  LocalSignature sig;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    FailureOr<RankedTensorType> global = readGlobalType(
        func, getArgGlobalType(func, i), func.getArgumentTypes()[i],
        "argument #" + std::to_string(i), tables);
    if (failed(global))
      return failure();
    sig.argTypes.push_back(*global);
    sig.argLogical.push_back(logicalType(
        *global,
        func.getArgAttrOfType<DenseI64ArrayAttr>(i, kLogicalShapeAttr)));
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    FailureOr<RankedTensorType> global = readGlobalType(
        func, getResultGlobalType(func, i), func.getResultTypes()[i],
        "result #" + std::to_string(i), tables);
    if (failed(global))
      return failure();
    sig.resultTypes.push_back(*global);
    sig.resultLogical.push_back(logicalType(
        *global,
        func.getResultAttrOfType<DenseI64ArrayAttr>(i, kLogicalShapeAttr)));
  }
  FailureOr<MeshOp> meshOp = getFunctionMesh(func, tables);
  if (failed(meshOp))
    return failure();
  sig.meshOp = *meshOp;
  sig.mesh = Mesh(sig.meshOp);

  // Local shapes are the global types' blocks.
  auto layoutOf = [&](RankedTensorType global, Type localType,
                      const std::string &what) -> FailureOr<Layout> {
    ShardingAttr sharding = getSharding(global);
    Layout layout = Layout::get(sharding, global.getRank());
    SmallVector<int64_t> expected =
        layout.getLocalShape(sig.mesh, global.getShape());
    auto local = cast<RankedTensorType>(localType);
    if (local.getShape() != ArrayRef<int64_t>(expected))
      return func.emitError()
             << what << " has local shape " << shapeToString(local.getShape())
             << ", but its global type " << global << " gives blocks of shape "
             << shapeToString(expected);
    return layout;
  };
  for (auto [i, global] : llvm::enumerate(sig.argTypes)) {
    FailureOr<Layout> layout = layoutOf(global, func.getArgumentTypes()[i],
                                        "argument #" + std::to_string(i));
    if (failed(layout))
      return failure();
    sig.argLayouts.push_back(*layout);
  }
  for (auto [i, global] : llvm::enumerate(sig.resultTypes)) {
    FailureOr<Layout> layout = layoutOf(global, func.getResultTypes()[i],
                                        "result #" + std::to_string(i));
    if (failed(layout))
      return failure();
    sig.resultLayouts.push_back(*layout);
  }
  return sig;
}

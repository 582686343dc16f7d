//===- Signature.cpp - the global types of a local-view function ----------===//

#include "weft/Interpreter/Signature.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

bool mlir::weft::interp::hasGlobalTypes(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kGlobalTypeAttrName))
      return true;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (func.getResultAttr(i, kGlobalTypeAttrName))
      return true;
  return false;
}

namespace {
/// Collects the one mesh a function names.
class MeshCollector {
public:
  explicit MeshCollector(func::FuncOp func) : func(func) {}

  /// Records that `op` names `ref`; fails (with an error on `op`) if a
  /// different mesh was named before.
  LogicalResult add(Operation *op, FlatSymbolRefAttr ref) {
    if (!ref)
      return success();
    if (!first) {
      first = ref;
      return success();
    }
    if (first == ref)
      return success();
    return op->emitError() << "names mesh " << ref << ", but the function "
                           << "already uses mesh " << first
                           << "; a local-view function runs on one mesh";
  }

  FailureOr<MeshOp> get() {
    if (!first)
      return MeshOp();
    return lookupMesh(func, first, tables);
  }

  SymbolTableCollection tables;

private:
  func::FuncOp func;
  FlatSymbolRefAttr first;
};
} // namespace

/// Reads the `weft.global_type` of one argument or result and checks it
/// against the local type.
static FailureOr<RankedTensorType>
readGlobalType(func::FuncOp func, Attribute attr, Type localType,
               const std::string &what, MeshCollector &meshes) {
  if (!attr)
    return func.emitError()
           << what << " has no `" << kGlobalTypeAttrName
           << "` attribute; a local-view function gives every argument and "
              "result its global type, e.g. {"
           << kGlobalTypeAttrName
           << " = tensor<8x16xf32, #weft.sharding<...>>}";
  auto typeAttr = dyn_cast<TypeAttr>(attr);
  auto global =
      typeAttr ? dyn_cast<RankedTensorType>(typeAttr.getValue()) : nullptr;
  if (!global || !global.hasStaticShape())
    return func.emitError()
           << "`" << kGlobalTypeAttrName << "` of " << what
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
  if (failed(verifyShardingAgainstMesh(
          func, global, "the global type of " + what, meshes.tables)))
    return failure();
  if (ShardingAttr sharding = getSharding(global))
    if (failed(meshes.add(func, sharding.getMesh())))
      return failure();
  return global;
}

FailureOr<LocalSignature>
mlir::weft::interp::getLocalSignature(func::FuncOp func) {
  MeshCollector meshes(func);
  LocalSignature sig;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    FailureOr<RankedTensorType> global = readGlobalType(
        func, func.getArgAttr(i, kGlobalTypeAttrName),
        func.getArgumentTypes()[i], "argument #" + std::to_string(i), meshes);
    if (failed(global))
      return failure();
    sig.argTypes.push_back(*global);
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    FailureOr<RankedTensorType> global = readGlobalType(
        func, func.getResultAttr(i, kGlobalTypeAttrName),
        func.getResultTypes()[i], "result #" + std::to_string(i), meshes);
    if (failed(global))
      return failure();
    sig.resultTypes.push_back(*global);
  }
  // Local-view ops name the mesh too.
  WalkResult walk = func.walk([&](Operation *op) {
    FlatSymbolRefAttr ref =
        llvm::TypeSwitch<Operation *, FlatSymbolRefAttr>(op)
            .Case<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp,
                  SliceShardOp, EmbedOp>([](auto o) { return o.getMeshAttr(); })
            .Default([](Operation *) { return FlatSymbolRefAttr(); });
    return failed(meshes.add(op, ref)) ? WalkResult::interrupt()
                                       : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  FailureOr<MeshOp> meshOp = meshes.get();
  if (failed(meshOp))
    return failure();
  sig.meshOp = *meshOp;
  sig.mesh = sig.meshOp ? Mesh::get(sig.meshOp) : Mesh();

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

//===- Unsharded.cpp - The one-device version of a program ----------------===//

#include "Driver.h"

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::weft;

namespace weftc {

/// `type` on one device: a sharded tensor becomes replicated on its mesh
/// (no split, not partial). Keeping the mesh named keeps the one rule of
/// getFunctionMesh working: the function still runs on the mesh it named,
/// whatever other meshes the module declares (D9).
static Type replicate(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  ShardingAttr sharding = t ? getSharding(t) : ShardingAttr();
  if (!sharding)
    return type;
  SmallVector<SmallVector<StringRef>> dims(t.getRank());
  return RankedTensorType::get(t.getShape(), t.getElementType(),
                               ShardingAttr::get(sharding.getMesh(), dims));
}

LogicalResult verifyOps(ModuleOp module) {
  // Post-order: nested ops first, as the verifier does. A symbol table's own
  // verification checks every symbol use inside it, so it is skipped.
  WalkResult result = module.walk([](Operation *op) {
    if (op->hasTrait<OpTrait::SymbolTable>())
      return WalkResult::advance();
    return failed(verify(op, /*verifyRecursively=*/false))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult makeUnsharded(ModuleOp module) {
  if (mlir::weft::isLocalView(module))
    return module.emitError("--unsharded needs a global-view program (this "
                            "one is already partitioned)");
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    SmallVector<int64_t> ones(mesh.getAxisSizes().size(), 1);
    mesh.setAxisSizes(ones);
  }
  // A weft.shard stays: replicated on a one-device mesh it changes nothing,
  // and its result keeps the type its uses (func.return) expect.
  module.walk([&](Operation *op) {
    for (Value r : op->getResults())
      r.setType(replicate(r.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(replicate(arg.getType()));
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      SmallVector<Type> ins, outs;
      for (Type t : func.getArgumentTypes())
        ins.push_back(replicate(t));
      for (Type t : func.getResultTypes())
        outs.push_back(replicate(t));
      func.setFunctionType(FunctionType::get(module.getContext(), ins, outs));
    }
  });
  return success();
}

void localizeTrivially(ModuleOp module) {
  module.walk([&](func::FuncOp func) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      setArgGlobalType(func, i, func.getArgumentTypes()[i]);
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      setResultGlobalType(func, i, func.getResultTypes()[i]);
  });
}

} // namespace weftc

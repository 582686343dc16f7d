//===- Unsharded.cpp - The one-device version of a program ----------------===//

#include "Driver.h"

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::weft;

namespace weftc {

static Type dropEncoding(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    if (t.getEncoding())
      return RankedTensorType::get(t.getShape(), t.getElementType());
  return type;
}

LogicalResult makeUnsharded(ModuleOp module) {
  if (mlir::weft::isLocalView(module))
    return module.emitError("--unsharded needs a global-view program (this "
                            "one is already partitioned)");
  OpBuilder b(module.getContext());
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    SmallVector<int64_t> ones(mesh.getAxisSizes().size(), 1);
    mesh.setAxisSizes(ones);
  }
  module.walk([&](Operation *op) {
    if (auto shard = dyn_cast<ShardOp>(op)) {
      shard.getResult().replaceAllUsesWith(shard.getInput());
      shard.erase();
      return;
    }
    for (Value r : op->getResults())
      r.setType(dropEncoding(r.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(dropEncoding(arg.getType()));
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      SmallVector<Type> ins, outs;
      for (Type t : func.getArgumentTypes())
        ins.push_back(dropEncoding(t));
      for (Type t : func.getResultTypes())
        outs.push_back(dropEncoding(t));
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

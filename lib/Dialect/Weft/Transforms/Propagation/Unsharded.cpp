//===- Unsharded.cpp - the weft-unsharded pass ----------------------------===//
//
// weftc's --unsharded: the one-device version of a program, the reference
// build of the tests.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/MeshRewrites.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "weft-unsharded"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTUNSHARDED
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

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

LogicalResult mlir::weft::makeUnsharded(ModuleOp module) {
  if (isLocalView(module))
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

namespace {
struct WeftUnshardedPass
    : public mlir::weft::impl::WeftUnshardedBase<WeftUnshardedPass> {
  void runOnOperation() override {
    if (failed(makeUnsharded(getOperation())))
      signalPassFailure();
  }
};
} // namespace

//===- PriceEmitted.cpp - what a plan costs once emitted ------------------===//
//
// The global search prices a plan in the global view: every reshard as its
// own collective. weftc then partitions it and runs the collective passes,
// and weft-combine-collectives merges independent all-reduces into one
// (one latency instead of several, plus pack and unpack work). This runs
// those passes on a copy of the function, with the plan's layouts written
// into its types, and prices the result with weft-price-local's model, so
// the search can compare its candidate plans by what they emit
// (docs/propagation.md, "Pricing what is emitted").
//
//===----------------------------------------------------------------------===//

#include "Propagator.h"

#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/PriceLocal.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Pass/PassManager.h"

#include <thread>

using namespace mlir;
using namespace mlir::weft;

FailureOr<LocalPrice>
mlir::weft::propagate::priceEmitted(func::FuncOp func,
                                    const MachineProfile &profile,
                                    int64_t combineBytes, bool combinePerCall) {
  auto parent = dyn_cast_or_null<ModuleOp>(func->getParentOp());
  if (!parent)
    return failure();
  // A call reads another function, which another thread may be rewriting
  // (weft-propagate is a function pass): such a function is not priced.
  if (func.walk([](CallOpInterface) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return failure();

  // The copy: the module's meshes (no function pass rewrites them) and the
  // function.
  MLIRContext *ctx = func.getContext();
  OwningOpRef<ModuleOp> copy = ModuleOp::create(func.getLoc());
  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(copy->getBody());
  for (MeshOp mesh : parent.getOps<MeshOp>())
    builder.clone(*mesh);
  auto cloned = cast<func::FuncOp>(builder.clone(*func));

  // The passes' diagnostics on the copy are not the user's: a failure here
  // is reported by weftc's own run of the same passes. Diagnostics are
  // delivered on the emitting thread, so only this thread's are dropped.
  std::thread::id self = std::this_thread::get_id();
  ScopedDiagnosticHandler quiet(ctx, [self](Diagnostic &) {
    return success(std::this_thread::get_id() == self);
  });
  // weftc's local-view stages up to the combiner (lib/Pipeline/Pipeline.cpp);
  // weft-schedule-collectives moves ops without changing what they cost.
  PassManager pm(ctx);
  pm.enableVerifier(false);
  pm.addNestedPass<func::FuncOp>(createWeftPadUneven());
  pm.addNestedPass<func::FuncOp>(createWeftPartition());
  pm.addPass(createWeftOptimizeCollectives());
  if (combineBytes > 0)
    pm.addPass(createWeftCombineCollectives(
        WeftCombineCollectivesOptions{combineBytes, combinePerCall}));
  if (failed(pm.run(*copy)))
    return failure();
  SymbolTableCollection tables;
  return priceLocalFunction(cloned, profile, tables);
}

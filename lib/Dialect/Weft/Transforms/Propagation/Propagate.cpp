//===- Propagate.cpp - the weft-propagate pass ----------------------------===//
//
// Completes every sharding of a function from its annotations. The pieces:
// ShardingRule (an op's letters), Reshard (what a layout change costs), the
// Propagator's concerns (Propagator.h lists their files) and this driver:
// compatible propagation to a fixed point, then conflicts resolved one op at
// a time by cost, then the remaining choices.
//
//===----------------------------------------------------------------------===//

#include "Propagator.h"

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/Reshard.h"
#include "weft/Dialect/Weft/Transforms/ShardingRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "weft-propagate"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTPROPAGATE
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::propagate;

LogicalResult Propagator::run() {
  if (failed(computeOrder()) || failed(collectAnnotations()))
    return failure();
  queued.resize(order.size());
  decided.resize(order.size());
  for (unsigned i = 0; i < order.size(); ++i)
    enqueue(i);
  propagateCompatible();
  // Resolve conflicts one at a time, in canonical order.
  while (true) {
    auto it = llvm::find_if(conflicted,
                            [&](unsigned idx) { return !decided.test(idx); });
    if (it == conflicted.end())
      break;
    decide(order[*it]);
    if (undecidable)
      return failure();
    propagateCompatible();
  }
  for (Operation *op : order)
    if (!isDecided(op)) {
      decide(op);
      if (undecidable)
        return failure();
      propagateCompatible();
    }
  if (searchMode != "greedy" &&
      failed(globalSearch(profile, searchMode, beam, memoryBudget)))
    return failure();
  writeBack();
  if (explain) {
    for (Operation &op : func.getBody().getOps())
      if (explanations.count(&op))
        op.emitRemark() << explanations[&op];
    func.emitRemark() << "weft-propagate: " << order.size() << " op(s) on mesh "
                      << mesh.getRef() << ", estimated "
                      << formatBytes(totalCost) << " sent per device (weighted)"
                      << (searchSummary.empty() ? "" : "\n") << searchSummary;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct WeftPropagatePass
    : public weft::impl::WeftPropagateBase<WeftPropagatePass> {
  using WeftPropagateBase::WeftPropagateBase;
  MachineProfile machine;

  LogicalResult parseWeights(AxisWeights &out) {
    for (const std::string &entry : axisWeights) {
      auto [axis, value] = StringRef(entry).split(':');
      double w;
      if (axis.empty() || value.getAsDouble(w) || w <= 0) {
        getOperation().emitError()
            << "bad axis-weights entry '" << entry
            << "' (expected axis:weight with a weight > 0)";
        return failure();
      }
      out.weights[axis] = w;
    }
    return success();
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    if (search != "global" && search != "greedy" && search != "exhaustive")
      return emitError(UnknownLoc::get(ctx))
             << "weft-propagate: search must be global, greedy or "
                "exhaustive, got '"
             << search << "'";
    if (combineBytes < 0)
      return emitError(UnknownLoc::get(ctx))
             << "weft-propagate: combine-bytes must be >= 0, got "
             << int64_t(combineBytes);
    if (memoryBudget < 0)
      return emitError(UnknownLoc::get(ctx))
             << "weft-propagate: memory-budget must be >= 0, got "
             << int64_t(memoryBudget);
    if (memoryBudget > 0 && search == "greedy")
      return emitError(UnknownLoc::get(ctx))
             << "weft-propagate: memory-budget needs search=global or "
                "exhaustive";
    if (beam < 1)
      return emitError(UnknownLoc::get(ctx))
             << "weft-propagate: beam must be >= 1, got " << int64_t(beam);
    for (auto [name, value] :
         {std::pair<StringRef, int64_t>{"max-candidates", maxCandidates},
          {"max-transitions", maxTransitions},
          {"local-search-budget", localSearchBudget},
          {"exhaustive-limit", exhaustiveLimit}})
      if (value < 1)
        return emitError(UnknownLoc::get(ctx))
               << "weft-propagate: " << name << " must be >= 1, got " << value;
    std::string error;
    FailureOr<MachineProfile> loaded = MachineProfile::resolve(profile, error);
    if (failed(loaded))
      return emitError(UnknownLoc::get(ctx)) << "weft-propagate: " << error;
    machine = *loaded;
    return success();
  }

  void runOnOperation() override {
    AxisWeights weights;
    if (failed(parseWeights(weights)))
      return signalPassFailure();
    // A function pass: functions are propagated (partitioned) in parallel;
    // each reads only the module's meshes besides itself.
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SymbolTableCollection tables;
    if (failed(verifyGlobalView(func, "weft-propagate")))
      return signalPassFailure();
    FailureOr<MeshOp> mesh = getFunctionMesh(func, tables);
    if (failed(mesh))
      return signalPassFailure();
    if (!*mesh)
      return; // No mesh at all: nothing to shard.
    Mesh info(*mesh);
    SearchLimits limits;
    limits.maxCandidates = maxCandidates;
    limits.maxTransitions = maxTransitions;
    limits.localSearchBudget = localSearchBudget;
    limits.exhaustiveLimit = exhaustiveLimit;
    EmittedPricing emitted;
    emitted.enabled = priceEmitted;
    emitted.combineBytes = combineBytes;
    emitted.combinePerCall = combinePerCall;
    Propagator propagator(func, info, weights, explain, search, machine, beam,
                          freeBoundary, memoryBudget, reshardAnnotated, limits,
                          emitted);
    if (failed(propagator.run()))
      return signalPassFailure();
  }
};
} // namespace

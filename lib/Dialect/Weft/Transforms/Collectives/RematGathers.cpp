//===- RematGathers.cpp - the weft-remat-gathers pass ---------------------===//
//
// --weft-remat-gathers, on the local view: FSDP's "gather, use, free; gather
// again". A weight split over a mesh axis and all-gathered before use is,
// after partitioning, one gathered value read by the forward pass and again
// by the backward pass; it stays alive in between, so every layer's whole
// weight is alive at the turn of the step. This pass gives each later use
// its own gather: an all_gather of a function argument whose uses are far
// apart is cloned right before the first use of each later cluster, so the
// first copy dies after its forward use (the runtime releases every value
// after its last use) and the clone lives only around the backward use.
//
// "Far apart": another gathered value comes into use in between (the first
// use of another all_gather lies strictly between two consecutive uses).
// With one weight gathered per layer that is exactly FSDP's rule: layer k's
// weight is gathered again in the backward pass unless it is the last layer
// (whose backward directly follows its forward). Together with the
// schedule's gather bound (--weft-schedule-collectives starts an all-gather
// no earlier than the previous one's result is needed), at most two
// gathered weights are alive at once.
//
// Only gathers of function arguments are cloned: the shard stays alive for
// the whole step anyway (it is an input), so the clone costs bytes on the
// wire, never memory. The trade is bytes for memory: each clone repeats its
// gather's bytes, which the comm report shows with the reason. That is why
// the pass is an option (weftc --remat-gathers), not a default: without it
// every program keeps programs.md's minimum communication.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTREMATGATHERS
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

#define DEBUG_TYPE "weft-remat-gathers"

using namespace mlir;
using namespace mlir::weft;

namespace {

struct RematGathersPass
    : public mlir::weft::impl::WeftRematGathersBase<RematGathersPass> {
  void runOnOperation() override {
    // A scheduled body keeps its order: remat runs first.
    Block *unscheduled = unscheduledBody(getOperation());
    if (!unscheduled)
      return;
    Block &body = *unscheduled;

    llvm::DenseMap<Operation *, unsigned> position;
    unsigned next = 0;
    for (Operation &op : body)
      position[&op] = next++;

    // Each gather's uses, as (position of the in-block user, operand).
    auto usesOf = [&](Operation *g) {
      SmallVector<std::pair<unsigned, OpOperand *>> uses;
      for (OpOperand &use : g->getResult(0).getUses())
        if (Operation *u = ancestorInBlock(body, use.getOwner()))
          uses.push_back({position.lookup(u), &use});
      llvm::stable_sort(
          uses, [](const auto &a, const auto &b) { return a.first < b.first; });
      return uses;
    };

    // Where each gathered value first comes into use, sorted, and the
    // gathers of arguments read more than once with their uses (a clone
    // takes over uses of its own gather only, so these stay valid).
    SmallVector<unsigned> firstUses;
    SmallVector<std::pair<Operation *, decltype(usesOf(nullptr))>> candidates;
    for (Operation &op : body) {
      auto collective = dyn_cast<CollectiveOpInterface>(&op);
      if (!collective || !collective.getGatheredDim())
        continue;
      Operation *g = &op;
      auto uses = usesOf(g);
      if (!uses.empty())
        firstUses.push_back(uses.front().first);
      auto arg = dyn_cast<BlockArgument>(g->getOperand(0));
      if (arg && arg.getOwner() == &body && uses.size() > 1)
        candidates.push_back({g, std::move(uses)});
    }
    llvm::sort(firstUses);

    for (auto &[g, uses] : candidates) {
      unsigned last = uses.front().first;
      Operation *current = g;
      for (auto [at, operand] : llvm::drop_begin(uses)) {
        // Another gathered value first used strictly between the previous
        // use and this one: gather again here.
        auto it = std::upper_bound(firstUses.begin(), firstUses.end(), last);
        if (it != firstUses.end() && *it < at) {
          Operation *user = ancestorInBlock(body, operand->getOwner());
          OpBuilder b(user);
          current = b.clone(*g);
          std::string why =
              "rematerialized: gathered again for a use " +
              std::to_string(at - last) +
              " op(s) after the previous one (that copy is freed after it)";
          if (auto reason = g->getAttrOfType<StringAttr>(kReasonAttr))
            why += "; first gathered for " + reason.getValue().str();
          current->setAttr(kReasonAttr, b.getStringAttr(why));
          WEFT_DEBUG(llvm::dbgs() << "[weft-remat-gathers] " << why << " at "
                                  << user->getLoc() << "\n");
        }
        if (current != g)
          operand->set(current->getResult(0));
        last = at;
      }
    }
  }
};

} // namespace

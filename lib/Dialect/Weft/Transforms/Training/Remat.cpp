//===- Remat.cpp - the weft-remat pass ------------------------------------===//
//
// Activation checkpointing per layer call (docs/calls.md,
// "Rematerialization"): the backward pass recomputes what a marked layer
// computed from the layer's inputs, instead of keeping the layer's
// activations alive from the forward pass. Runs after weft-autodiff, on the
// groups weft-inline-calls marked with `weft.remat_group`.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "weft-remat"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTREMAT
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// The ops of the forward pass: those the loss (the first returned value)
/// depends on. Gradients come after the loss, so none of them is here.
llvm::DenseSet<Operation *> forwardOps(Block &block) {
  llvm::DenseSet<Operation *> forward;
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  if (ret.getNumOperands() == 0)
    return forward;
  SmallVector<Value> work{ret.getOperand(0)};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !forward.insert(def).second)
      continue;
    for (Value v : def->getOperands())
      work.push_back(v);
  }
  return forward;
}

/// Recomputes one group; returns the number of ops cloned.
unsigned rematGroup(ArrayRef<Operation *> group,
                    const llvm::DenseSet<Operation *> &forward) {
  llvm::DenseSet<Operation *> members(group.begin(), group.end());
  // Saved: read by a forward op outside the group (the call's results).
  // Recomputed: any other value of the group a backward op reads.
  llvm::DenseSet<Value> saved;
  SmallVector<Value> recompute;
  Operation *firstUse = nullptr;
  for (Operation *op : group)
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (!members.contains(user) && forward.contains(user))
          saved.insert(r);
  for (Operation *op : group)
    for (Value r : op->getResults()) {
      if (saved.contains(r))
        continue;
      bool readByBackward = false;
      for (Operation *user : r.getUsers())
        if (!members.contains(user) && !forward.contains(user)) {
          readByBackward = true;
          if (!firstUse || user->isBeforeInBlock(firstUse))
            firstUse = user;
        }
      if (readByBackward)
        recompute.push_back(r);
    }
  if (recompute.empty())
    return 0;
  // The ops the recomputed values need, within the group, stopping at the
  // saved values.
  llvm::DenseSet<Operation *> needed;
  SmallVector<Operation *> work;
  for (Value v : recompute)
    work.push_back(v.getDefiningOp());
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!needed.insert(op).second)
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && members.contains(def) && !saved.contains(v))
        work.push_back(def);
  }
  OpBuilder b(firstUse);
  IRMapping clones;
  unsigned count = 0;
  for (Operation *op : group) { // Block order: operands before users.
    if (!needed.contains(op))
      continue;
    Operation *copy = b.clone(*op, clones);
    copy->removeAttr(kRematGroupAttr);
    copy->setAttr(kRecomputedAttr, b.getUnitAttr());
    ++count;
  }
  for (Value v : recompute) {
    Value copy = clones.lookup(v);
    v.replaceUsesWithIf(copy, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return !members.contains(user) && !forward.contains(user);
    });
  }
  return count;
}

struct WeftRemat : public weft::impl::WeftRematBase<WeftRemat> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &block = func.getBody().front();
    llvm::MapVector<int64_t, SmallVector<Operation *>> groups;
    for (Operation &op : block.without_terminator())
      if (auto g = op.getAttrOfType<IntegerAttr>(kRematGroupAttr))
        groups[g.getInt()].push_back(&op);
    if (groups.empty())
      return;
    // Only a function with gradients (weft-autodiff ran) has a backward
    // pass to recompute in; elsewhere the marks are only removed.
    bool hasGradients = false;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      hasGradients |= func.getResultAttr(i, "weft.grad_of") != nullptr;
    llvm::DenseSet<Operation *> forward;
    if (hasGradients)
      forward = forwardOps(block);
    unsigned cloned = 0;
    if (hasGradients)
      for (auto &[id, ops] : groups)
        cloned += rematGroup(ops, forward);
    func.walk([](Operation *op) { op->removeAttr(kRematGroupAttr); });
    LLVM_DEBUG(llvm::dbgs() << "weft-remat: " << groups.size() << " groups, "
                            << cloned << " ops recomputed\n");
  }
};

} // namespace

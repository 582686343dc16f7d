//===- ScheduleCollectives.cpp - the weft-schedule-collectives pass -------===//
//
// --weft-schedule-collectives, on the local view: each all_reduce,
// all_gather, reduce_scatter and all_to_all of the function body starts as
// early and completes as late as its data allow. The collective moves up to
// just after the op defining its operand, a weft.wait goes right before the
// first op that reads its result, and the collective records how many
// compute ops run in between (`weft.async = N`): the overlap window the
// runtime fills with communication. A collective with nothing to overlap
// (its result read by the next compute op) is left synchronous where it
// was.
//
// Before that, compute that only feeds the function's results and depends
// on a collective (a training step's optimizer updates reading the
// all-reduced gradients) sinks to the end of the function, in order: the
// rest of the step (the backward pass) then runs while the gradients move,
// as in PyTorch DDP, where the optimizer steps after the backward pass.
//
// Collectives keep their relative order: a collective is never moved above
// an earlier one. Every rank runs the same program, so every rank starts
// the collectives of a group in the same order (what MPI and NCCL require);
// keeping the program's order also keeps the report readable and the
// bucket order of --weft-combine-collectives (backward order of the
// gradients) the launch order.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTSCHEDULECOLLECTIVES
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

bool isCommunication(Operation *op) {
  return isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp>(op);
}

/// Whether `op` does work the communication can overlap: not a collective,
/// a wait or the terminator.
bool isCompute(Operation *op) {
  return !isCommunication(op) && !isa<WaitOp, SliceShardOp>(op) &&
         !op->hasTrait<OpTrait::IsTerminator>();
}

/// The op of `block` that is or contains `op`.
Operation *inBlock(Operation *op, Block *block) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

/// Moves before the terminator, in order, every compute op that depends on
/// a collective's result and whose users are all such ops or the
/// terminator.
void sinkTail(Block &body) {
  Operation *terminator = body.getTerminator();
  // Sinkable: compute whose every user is sinkable or the terminator
  // (decided from the end, so users are decided first).
  llvm::SmallPtrSet<Operation *, 32> sinkable;
  for (Operation &op : llvm::reverse(body)) {
    if (!isCompute(&op) || op.getNumRegions() != 0)
      continue;
    bool ok = llvm::all_of(op.getUsers(), [&](Operation *user) {
      Operation *u = inBlock(user, &body);
      return u == terminator || sinkable.contains(u);
    });
    if (ok)
      sinkable.insert(&op);
  }
  // Dependents of a collective, in program order.
  llvm::SmallPtrSet<Operation *, 32> dependent;
  SmallVector<Operation *> toSink;
  for (Operation &op : body) {
    bool reads = llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && (isCommunication(def) || dependent.contains(def));
    });
    if (!reads)
      continue;
    dependent.insert(&op);
    if (sinkable.contains(&op))
      toSink.push_back(&op);
  }
  for (Operation *op : toSink)
    op->moveBefore(terminator);
}

struct ScheduleCollectivesPass
    : public mlir::weft::impl::WeftScheduleCollectivesBase<
          ScheduleCollectivesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    // A body with a weft.wait was scheduled already (by this pass or by
    // hand): its order is kept as it is, which makes the pass idempotent.
    if (llvm::any_of(body, [](Operation &op) { return isa<WaitOp>(op); }))
      return;
    sinkTail(body);
    SmallVector<Operation *> collectives;
    for (Operation &op : body)
      if (isCommunication(&op))
        collectives.push_back(&op);
    Operation *previous = nullptr; // the last collective placed
    // An all-gather starts no earlier than the previous all-gather's
    // result is needed: at most two gathered values (the one in use, the
    // one in flight) are alive at once, as FSDP prefetches one layer.
    Operation *gatherFloor = nullptr;
    for (Operation *c : collectives) {
      // Earliest start: after the operand's definition and the previous
      // collective, whichever is later.
      Operation *after = previous;
      if (Operation *def = inBlock(c->getOperand(0).getDefiningOp(), &body))
        if (!after || after->isBeforeInBlock(def))
          after = def;
      bool gather = isa<AllGatherOp>(c);
      if (gather && gatherFloor &&
          (!after || after->isBeforeInBlock(gatherFloor)))
        after = gatherFloor;
      // Latest completion: right before the first op reading the result.
      Operation *firstUser = nullptr;
      for (Operation *user : c->getResult(0).getUsers()) {
        Operation *u = inBlock(user, &body);
        if (u && (!firstUser || u->isBeforeInBlock(firstUser)))
          firstUser = u;
      }
      previous = c;
      if (gather && firstUser)
        gatherFloor = firstUser->getPrevNode() ? firstUser->getPrevNode() : c;
      if (!firstUser)
        continue; // Unused: nothing to wait for.
      int64_t overlap = 0;
      Operation *from = after ? after->getNextNode() : &body.front();
      for (Operation *op = from; op != firstUser; op = op->getNextNode())
        if (op != c && isCompute(op))
          ++overlap;
      if (overlap == 0)
        continue;
      if (after)
        c->moveAfter(after);
      else
        c->moveBefore(&body.front());
      OpBuilder b(firstUser);
      auto wait = WaitOp::create(b, c->getLoc(), c->getResult(0).getType(),
                                 c->getResult(0));
      if (gather)
        gatherFloor = wait;
      c->getResult(0).replaceAllUsesExcept(wait.getResult(), wait);
      c->setAttr(kAsyncAttr, b.getI64IntegerAttr(overlap));
    }
  }
};

} // namespace

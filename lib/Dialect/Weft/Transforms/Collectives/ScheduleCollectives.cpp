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
// Compute downstream of a pipeline transfer (a collective_permute) stays
// where the program put it: in a 1F1B pipeline that is each tick's weight
// gradient, and sinking it would keep its operands, activation slots,
// alive to the end of the step (docs/pipeline.md, "1F1B"). Only the
// permute: an all_to_all reshards inside a layer (T2's and MoE plans), and
// everything after it would then stop sinking, losing DDP's overlap.
//
// Collectives start in the order their operands come to exist (all-gathers
// in the order their results are needed, bounded as below), whatever order
// the partitioner created them in: FSDP gradients are reduce-scattered where
// the function returns them, last layer's last, yet the last layer's
// gradient exists first. Every rank runs the same program, so every rank
// starts the collectives of a group in the same (static) order, which is
// what MPI and NCCL require; a collective's start never moves above the
// one placed before it. Program order among gradients is backward order,
// so the buckets of --weft-combine-collectives launch in backward order.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftBuilders.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTSCHEDULECOLLECTIVES
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

#define DEBUG_TYPE "weft-schedule-collectives"

using namespace mlir;
using namespace mlir::weft;

namespace {

bool isCommunication(Operation *op) {
  auto collective = dyn_cast<CollectiveOpInterface>(op);
  return collective && collective.communicates();
}

/// A pipeline transfer: a point-to-point collective (collective_permute,
/// weft.shift's local form).
bool isTransfer(Operation *op) {
  auto collective = dyn_cast<CollectiveOpInterface>(op);
  return collective && collective.isPointToPoint();
}

/// An all-gather: a collective that concatenates the group's blocks.
bool isGather(Operation *op) {
  auto collective = dyn_cast<CollectiveOpInterface>(op);
  return collective && collective.getGatheredDim().has_value();
}

/// A reduce-scatter: a communicating collective that keeps one block.
bool isScatter(Operation *op) {
  auto collective = dyn_cast<CollectiveOpInterface>(op);
  return collective && collective.communicates() &&
         collective.getScatteredDim().has_value();
}

/// Whether `op` does work the communication can overlap: not a collective,
/// a wait or the terminator.
bool isCompute(Operation *op) {
  return !isa<CollectiveOpInterface>(op) &&
         !op->hasTrait<CompletesCollective>() &&
         !op->hasTrait<OpTrait::IsTerminator>();
}

/// Moves before the terminator, in order, every compute op that depends on
/// a collective's result, not on a transfer's, and whose users are all such
/// ops or the terminator; returns them.
llvm::SmallPtrSet<Operation *, 32> sinkTail(Block &body) {
  Operation *terminator = body.getTerminator();
  auto readsFrom = [](Operation &op, auto pred) {
    return llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && pred(def);
    });
  };
  // Downstream of an activation transfer: stays where it is.
  llvm::SmallPtrSet<Operation *, 32> afterTransfer;
  for (Operation &op : body)
    if (readsFrom(op, [&](Operation *def) {
          return isTransfer(def) || afterTransfer.contains(def);
        }))
      afterTransfer.insert(&op);
  // Sinkable: compute not downstream of a transfer whose every user is
  // sinkable or the terminator (decided from the end, so users are decided
  // first). An op read by one that stays must stay too: it would otherwise
  // move below its reader (a 1F1B tick's all-gathered activation read,
  // with the permuted cotangent, by the tick's next op).
  llvm::SmallPtrSet<Operation *, 32> sinkable;
  for (Operation &op : llvm::reverse(body)) {
    if (!isCompute(&op) || op.getNumRegions() != 0 ||
        afterTransfer.contains(&op))
      continue;
    bool ok = llvm::all_of(op.getUsers(), [&](Operation *user) {
      Operation *u = ancestorInBlock(body, user);
      return u == terminator || sinkable.contains(u);
    });
    if (ok)
      sinkable.insert(&op);
  }
  // Dependents of a collective, in program order. A user of a dependent
  // is dependent, so every user of a sunk op is sunk or the terminator.
  llvm::SmallPtrSet<Operation *, 32> dependent;
  SmallVector<Operation *> toSink;
  for (Operation &op : body) {
    if (!readsFrom(op, [&](Operation *def) {
          return isCommunication(def) || dependent.contains(def);
        }))
      continue;
    dependent.insert(&op);
    if (sinkable.contains(&op))
      toSink.push_back(&op);
  }
  for (Operation *op : toSink)
    op->moveBefore(terminator);
  return llvm::SmallPtrSet<Operation *, 32>(toSink.begin(), toSink.end());
}

/// Compute ops strictly between `from` and `to`.
int64_t computeBetween(Operation *from, Operation *to) {
  int64_t n = 0;
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (isCompute(op))
      ++n;
  return n;
}

/// FSDP's gradient shards: each asynchronous reduce-scatter is waited for
/// before the next reduce-scatter starts, and the sunk ops that read its
/// result (the optimizer's update of that shard) move right after the
/// wait, as soon as their other operands exist. One reduce-scatter is in
/// flight at a time (its window is the next layer's backward), and a
/// gradient shard lives from its wait to its update instead of to the end
/// of the step: without this every layer's full partial gradient (held by
/// its reduce-scatter until the wait) or gradient shard would be alive at
/// the end.
void boundScatters(Block &body, ArrayRef<Operation *> scatters,
                   const llvm::SmallPtrSet<Operation *, 32> &sunk) {
  for (size_t k = 0; k + 1 < scatters.size(); ++k) {
    Operation *c = scatters[k], *nextStart = scatters[k + 1];
    if (!c->hasAttr(kAsyncAttr))
      continue;
    Operation *wait = *c->getResult(0).getUsers().begin();
    if (!nextStart->isBeforeInBlock(wait))
      continue;
    wait->moveBefore(nextStart);
    llvm::SmallPtrSet<Operation *, 8> moved{wait};
    Operation *last = wait;
    for (Operation *op = nextStart, *next; op; op = next) {
      next = op->getNextNode();
      if (!sunk.contains(op))
        continue;
      bool reads = false, ready = true;
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (!def)
          continue; // an argument
        if (moved.contains(def))
          reads = true;
        else if (def->getBlock() == &body && !def->isBeforeInBlock(wait))
          ready = false;
      }
      if (!reads || !ready)
        continue;
      op->moveAfter(last);
      last = op;
      moved.insert(op);
    }
    int64_t overlap = computeBetween(c, wait);
    if (overlap > 0) {
      c->setAttr(
          kAsyncAttr,
          IntegerAttr::get(IntegerType::get(c->getContext(), 64), overlap));
    } else { // Nothing left to overlap: synchronous again.
      WEFT_DEBUG(llvm::dbgs()
                 << "[weft-schedule-collectives] " << c->getName() << " at "
                 << c->getLoc() << ": nothing left to overlap, synchronous\n");
      wait->getResult(0).replaceAllUsesWith(c->getResult(0));
      wait->erase();
      c->removeAttr(kAsyncAttr);
    }
  }
}

/// A collective of the body: its first reader (null when unused), and the
/// positions of that reader and of the op defining its operand (-1 for an
/// argument) before anything moves.
struct Collective {
  Operation *op, *firstUser = nullptr;
  int64_t defAt = -1, firstUseAt, order;
};

/// The collectives of `body` in the order they start: the others by the
/// position of their operand's definition, all-gathers by the position of
/// their first reader, the two merged by earliest start (an all-gather
/// starts no earlier than the previous all-gather's first reader); ties
/// keep program order. Moving collectives and adding waits keeps each
/// one's `firstUser`, not its operand's definition: a collective reading
/// another one's result reads that one's weft.wait once it is placed. So
/// such a collective's operand is defined where that wait goes, right
/// before the other's first reader (a permute of an all-reduced cotangent:
/// its start is as late as that reader, and a collective ordered after it
/// by the all-reduce's earlier position would have to start after its own
/// first reader).
SmallVector<Collective> startOrder(Block &body) {
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t next = 0;
  for (Operation &op : body)
    position[&op] = next++;
  const int64_t never = next; // no reader
  SmallVector<Collective> gathers, others;
  llvm::DenseMap<Operation *, int64_t> firstUseOf; // of each collective
  for (Operation &op : body) {
    if (!isCommunication(&op))
      continue;
    Collective e{&op};
    e.firstUseAt = never;
    e.order = position.lookup(&op);
    if (Operation *def =
            ancestorInBlock(body, op.getOperand(0).getDefiningOp())) {
      auto it = firstUseOf.find(def);
      e.defAt = it != firstUseOf.end() ? it->second - 1 : position.lookup(def);
    }
    for (Operation *user : op.getResult(0).getUsers()) {
      Operation *u = ancestorInBlock(body, user);
      if (u && position.lookup(u) < e.firstUseAt) {
        e.firstUser = u;
        e.firstUseAt = position.lookup(u);
      }
    }
    firstUseOf[&op] = e.firstUseAt;
    (isGather(&op) ? gathers : others).push_back(e);
  }
  llvm::stable_sort(gathers, [](const Collective &a, const Collective &b) {
    return a.firstUseAt < b.firstUseAt;
  });
  llvm::stable_sort(others, [](const Collective &a, const Collective &b) {
    return a.defAt < b.defAt;
  });
  SmallVector<Collective> order;
  size_t g = 0, o = 0;
  int64_t floor = -1; // an all-gather starts after this position
  while (g < gathers.size() || o < others.size()) {
    bool takeGather = o == others.size();
    if (!takeGather && g < gathers.size()) {
      int64_t gk = std::max(gathers[g].defAt, floor), ok = others[o].defAt;
      takeGather = gk < ok || (gk == ok && gathers[g].order < others[o].order);
    }
    if (takeGather) {
      floor = std::max(floor, gathers[g].firstUseAt - 1);
      order.push_back(gathers[g++]);
    } else {
      order.push_back(others[o++]);
    }
  }
  return order;
}

struct ScheduleCollectivesPass
    : public mlir::weft::impl::WeftScheduleCollectivesBase<
          ScheduleCollectivesPass> {
  void runOnOperation() override {
    // A body with a weft.wait was scheduled already (by this pass or by
    // hand): its order is kept as it is, which makes the pass idempotent.
    Block *unscheduled = unscheduledBody(getOperation());
    if (!unscheduled)
      return;
    Block &body = *unscheduled;
    llvm::SmallPtrSet<Operation *, 32> sunk = sinkTail(body);
    SmallVector<Collective> collectives = startOrder(body);
    SmallVector<Operation *> scatters; // reduce-scatters in start order
    Operation *previous = nullptr;     // the last collective placed
    // An all-gather starts no earlier than the previous all-gather's
    // result is needed: at most two gathered values (the one in use, the
    // one in flight) are alive at once, as FSDP prefetches one layer.
    Operation *gatherFloor = nullptr;
    for (const Collective &entry : collectives) {
      Operation *c = entry.op;
      if (isScatter(c))
        scatters.push_back(c);
      // Earliest start: after the operand's definition and the previous
      // collective, whichever is later.
      Operation *after = previous;
      if (Operation *def =
              ancestorInBlock(body, c->getOperand(0).getDefiningOp()))
        if (!after || after->isBeforeInBlock(def))
          after = def;
      bool gather = isGather(c);
      if (gather && gatherFloor &&
          (!after || after->isBeforeInBlock(gatherFloor)))
        after = gatherFloor;
      // Latest completion: right before the first op reading the result.
      Operation *firstUser = entry.firstUser;
      previous = c;
      if (gather && firstUser)
        gatherFloor = firstUser->getPrevNode() ? firstUser->getPrevNode() : c;
      if (!firstUser)
        continue; // Unused: nothing to wait for.
      // No window (the earliest start is not before the first reader):
      // synchronous where it is. startOrder's order should prevent it;
      // this keeps the walk below inside the block if it does not.
      if (after && !after->isBeforeInBlock(firstUser))
        continue;
      int64_t overlap = 0;
      Operation *from = after ? after->getNextNode() : &body.front();
      for (Operation *op = from; op != firstUser; op = op->getNextNode())
        if (isCompute(op)) // `c` is not: a collective
          ++overlap;
      if (overlap == 0)
        continue;
      if (after)
        c->moveAfter(after);
      else
        c->moveBefore(&body.front());
      OpBuilder b(firstUser);
      Value wait = buildWait(b, c->getLoc(), c->getResult(0));
      if (gather)
        gatherFloor = wait.getDefiningOp();
      c->getResult(0).replaceAllUsesExcept(wait, wait.getDefiningOp());
      c->setAttr(kAsyncAttr, b.getI64IntegerAttr(overlap));
      WEFT_DEBUG(llvm::dbgs() << "[weft-schedule-collectives] " << c->getName()
                              << " at " << c->getLoc() << " starts " << overlap
                              << " compute op(s) before its wait\n");
    }
    boundScatters(body, scatters, sunk);
  }
};

} // namespace

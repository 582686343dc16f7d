//===- CombineCollectives.cpp - the weft-combine-collectives pass ---------===//
//
// --weft-combine-collectives, on the local view: independent all-reduces of
// one kind, element type, mesh and axes become one all-reduce of their
// operands flattened and concatenated, each result sliced back out (XLA's
// all-reduce combiner). A collective pays a latency however small it is:
// the vocabulary-parallel cross-entropy's two sums of one value per row,
// or the partial sums of many small gradients, then pay it once.
//
// First, every all-reduce that may join a group moves up to right after the
// op defining its operand, so program order becomes the order the operands
// come to exist: the partitioner puts a gradient's all-reduce where the
// function returns it (first parameter first), but the backward pass
// produces the last layer's gradient first, and DDP's buckets fill in that
// (backward) order, so the first bucket can start while the backward pass
// still runs. Every rank runs the same program, so any static order of
// collectives is one all ranks share.
//
// Members are taken in program order into groups. An all-reduce joins an
// open group of its key when its operand does not depend on a member's
// result. The combined collective replaces the members at the position of
// the last one, so the compute ops that read a member's result (or
// anything computed from one) before it move after it, in order (they
// only read values defined before them or moved with them); a collective
// or the return reading one closes the group instead (collectives keep
// their order). `max-bytes` bounds a group's operand bytes (and skips larger
// operands): the concat and the slices copy every byte once more, which
// pays for a saved latency only on small tensors.
//
// `per-call` (the default) keeps the operands of different layer calls
// (the outermost call site of the operand's definition, after
// weft-inline-calls) in different groups: every layer's gradients then
// form the same buckets at the same place in its backward pass, which is
// what lets weft-outline-layers and the call loop compile a deep model's
// backward once (docs/calls.md, "Buckets per call"). Operands computed
// outside any call (an embedding's or a head's gradient) are grouped among
// themselves (tried: letting them join the last bucket opened, T2's
// model at 5 layers kept two layers' backward out of the loop).
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftBuilders.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTCOMBINECOLLECTIVES
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

#define DEBUG_TYPE "weft-combine-collectives"

using namespace mlir;
using namespace mlir::weft;

namespace {

/// An all-reduce (the one collective the combiner joins: it reduces and
/// keeps the whole value on every rank: no root), or null.
CollectiveOpInterface asAllReduce(Operation *op) {
  auto c = dyn_cast<CollectiveOpInterface>(op);
  return c && c.communicates() && c.getReduction() && !c.getScatteredDim() &&
                 !c.getRootPosition()
             ? c
             : CollectiveOpInterface();
}

Value inputOf(CollectiveOpInterface c) { return c->getOperand(0); }
RankedTensorType typeOf(CollectiveOpInterface c) {
  return cast<RankedTensorType>(c->getResult(0).getType());
}

/// The layer call `v` was computed in (outermostCallSite of its
/// definition's location), or null.
LocationAttr callOf(Value v) {
  Operation *def = v.getDefiningOp();
  return def ? outermostCallSite(def->getLoc()) : LocationAttr();
}

struct Group {
  CollectiveOpInterface first;
  /// The layer call of the members' operands (per-call), or null.
  LocationAttr call;
  SmallVector<CollectiveOpInterface> members;
  int64_t bytes = 0;
  bool open = true;
  /// Member results and every value computed from one.
  llvm::DenseSet<Value> tainted;
  /// The ops that read a member's result before a later member: moved
  /// after the combined collective, in order.
  SmallVector<Operation *> deferred;

  bool sameKey(CollectiveOpInterface ar) {
    return ar.getReduction() == first.getReduction() &&
           ar.getMeshAttr() == first.getMeshAttr() &&
           ar.getAxesAttr() == first.getAxesAttr() &&
           getElementTypeOrSelf(typeOf(ar)) ==
               getElementTypeOrSelf(typeOf(first));
  }
};

int64_t bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t width = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
  return t.getNumElements() * width; // Local blocks: below 2^48 elements.
}

/// Replaces the members by one all-reduce at the last one's position and
/// returns the last op it created.
Operation *combine(Group &g) {
  CollectiveOpInterface last = g.members.back();
  OpBuilder b(last);
  Location loc = last.getLoc();
  SmallVector<Value> flats;
  int64_t total = 0, bytesPerDevice = 0;
  std::string reason =
      "combined " + std::to_string(g.members.size()) + " all-reduces:";
  for (CollectiveOpInterface m : g.members) {
    flats.push_back(buildFlatten(b, loc, inputOf(m)));
    total += cast<RankedTensorType>(flats.back().getType()).getDimSize(0);
    if (auto n = m->getAttrOfType<IntegerAttr>(kBytesPerDeviceAttr))
      bytesPerDevice += n.getInt();
    if (auto r = m->getAttrOfType<StringAttr>(kReasonAttr))
      reason += " [" + r.getValue().str() + "]";
  }
  auto elem = getElementTypeOrSelf(typeOf(last));
  auto flatType = RankedTensorType::get({total}, elem);
  // At most getMaxConcatOperands() per concat: groups are cut to that size.
  Value joined = buildConcat(b, loc, flatType, flats, 0);
  Operation *combined =
      buildAllReduce(b, loc, flatType, *last.getReduction(), joined,
                     last.getMeshAttr(), last.getAxisNames())
          .getDefiningOp();
  if (bytesPerDevice)
    combined->setAttr(kBytesPerDeviceAttr, b.getI64IntegerAttr(bytesPerDevice));
  combined->setAttr(kReasonAttr, b.getStringAttr(reason));
  WEFT_DEBUG(llvm::dbgs() << "[weft-combine-collectives] " << reason << " -> "
                          << total << " elements at " << loc << "\n");
  int64_t offset = 0;
  Operation *lastCreated = combined;
  for (auto [m, flat] : llvm::zip(g.members, flats)) {
    auto type = typeOf(m);
    auto sliceType = cast<RankedTensorType>(flat.getType());
    Value part =
        buildSlice(b, loc, sliceType, combined->getResult(0), 0, offset);
    offset += sliceType.getDimSize(0);
    Value back = buildUnflatten(b, loc, part, type);
    lastCreated =
        back.getDefiningOp() ? back.getDefiningOp() : part.getDefiningOp();
    m->getResult(0).replaceAllUsesWith(back);
  }
  for (CollectiveOpInterface m : g.members)
    m->erase();
  return lastCreated;
}

/// Moves every all-reduce of at most `maxBytes` up to right after its
/// operand's definition (after those moved there before it).
void hoistToOperands(Block &body, int64_t maxBytes) {
  llvm::DenseMap<Operation *, Operation *> lastPlaced;
  SmallVector<CollectiveOpInterface> candidates;
  for (Operation &op : body)
    if (auto ar = asAllReduce(&op))
      if (bytesOf(inputOf(ar)) <= maxBytes)
        candidates.push_back(ar);
  for (CollectiveOpInterface ar : candidates) {
    Operation *def = ancestorInBlock(body, inputOf(ar).getDefiningOp());
    if (!def)
      continue; // An argument: left where it is.
    Operation *&after = lastPlaced[def];
    ar->moveAfter(after ? after : def);
    after = ar;
  }
}

void combineFunction(func::FuncOp func, int64_t maxBytes, bool perCall) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return;
  hoistToOperands(func.getBody().front(), maxBytes);
  SmallVector<Group> groups;
  for (Operation &op : func.getBody().front()) {
    // A reader of a member's result closes the group; its results depend
    // on the members too.
    for (Group &g : groups) {
      if (!g.open) // Only open groups can still take members.
        continue;
      bool reads = llvm::any_of(op.getOperands(),
                                [&](Value v) { return g.tainted.contains(v); });
      if (!reads)
        continue;
      // A compute op that reads a member is deferred past the combined
      // collective; a collective (kept in program order on every rank),
      // the return or a region closes the group.
      auto collective = dyn_cast<CollectiveOpInterface>(op);
      if ((collective && collective.communicates()) ||
          isa<func::ReturnOp>(op) || op.getNumRegions() != 0) {
        g.open = false;
        continue;
      }
      g.deferred.push_back(&op);
      for (Value r : op.getResults())
        g.tainted.insert(r);
    }
    CollectiveOpInterface ar = asAllReduce(&op);
    if (!ar || bytesOf(inputOf(ar)) > maxBytes)
      continue;
    int64_t bytes = bytesOf(inputOf(ar));
    LocationAttr call = perCall ? callOf(inputOf(ar)) : LocationAttr();
    Group *into = nullptr;
    for (Group &g : groups)
      if (g.open && g.sameKey(ar) && g.call == call &&
          g.bytes + bytes <= maxBytes &&
          g.members.size() < getMaxConcatOperands() &&
          !g.tainted.contains(inputOf(ar))) {
        into = &g;
        break;
      }
    if (!into) {
      groups.push_back(Group{ar, call, {}, 0, true, {}});
      into = &groups.back();
    }
    into->members.push_back(ar);
    into->bytes += bytes;
    into->tainted.insert(ar->getResult(0));
  }
  for (Group &g : groups) {
    if (g.members.size() < 2)
      continue;
    Operation *cursor = combine(g);
    for (Operation *d : g.deferred)
      if (d->isBeforeInBlock(cursor)) {
        d->moveAfter(cursor);
        cursor = d;
      }
  }
}

struct WeftCombineCollectivesPass
    : public weft::impl::WeftCombineCollectivesBase<
          WeftCombineCollectivesPass> {
  using WeftCombineCollectivesBase::WeftCombineCollectivesBase;
  void runOnOperation() override {
    if (maxBytes < 0) {
      getOperation()->emitError()
          << "--weft-combine-collectives: max-bytes must be >= 0, got "
          << static_cast<int64_t>(maxBytes);
      return signalPassFailure();
    }
    getOperation()->walk([&](func::FuncOp func) {
      if (isLocalView(func))
        combineFunction(func, maxBytes, perCall);
    });
  }
};

} // namespace

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
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTCOMBINECOLLECTIVES
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

struct Group {
  AllReduceOp first;
  SmallVector<AllReduceOp> members;
  int64_t bytes = 0;
  bool open = true;
  /// Member results and every value computed from one.
  llvm::DenseSet<Value> tainted;
  /// The ops that read a member's result before a later member: moved
  /// after the combined collective, in order.
  SmallVector<Operation *> deferred;

  bool sameKey(AllReduceOp ar) {
    return ar.getKind() == first.getKind() && ar.getMesh() == first.getMesh() &&
           ar.getAxes() == first.getAxes() &&
           getElementTypeOrSelf(ar.getType()) ==
               getElementTypeOrSelf(first.getType());
  }
};

int64_t bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t width = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
  return t.getNumElements() * width; // Local blocks: below 2^48 elements.
}

/// Placeholder letters of a rank-r tensor ("abc").
std::string letters(int64_t rank) {
  std::string s;
  for (int64_t d = 0; d < rank; ++d)
    s.push_back(char('a' + d));
  return s;
}

/// `v` as a 1-D tensor (a reshape; a rank-0 value is broadcast to 1).
Value flatten(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  auto flat = RankedTensorType::get({t.getNumElements()}, t.getElementType());
  if (t.getRank() == 1)
    return v;
  if (t.getRank() == 0)
    return MapOp::create(b, loc, flat, MapKind::Scale, "->a", ValueRange{v},
                           b.getF64FloatAttr(1.0))
        .getResult();
  std::string l = letters(t.getRank());
  return ReshapeOp::create(b, loc, flat, l + "->(" + l + ")", v).getResult();
}

/// The inverse of flatten, to `type`.
Value unflatten(OpBuilder &b, Location loc, Value flat, RankedTensorType type) {
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return ReduceOp::create(b, loc, type, ReductionKind::Sum, "a->", flat)
        .getResult();
  std::string l = letters(type.getRank());
  return ReshapeOp::create(b, loc, type, "(" + l + ")->" + l, flat).getResult();
}

/// Replaces the members by one all-reduce at the last one's position and
/// returns the last op it created.
Operation *combine(Group &g) {
  AllReduceOp last = g.members.back();
  OpBuilder b(last);
  Location loc = last.getLoc();
  SmallVector<Value> flats;
  int64_t total = 0, bytesPerDevice = 0;
  std::string reason =
      "combined " + std::to_string(g.members.size()) + " all-reduces:";
  for (AllReduceOp m : g.members) {
    flats.push_back(flatten(b, loc, m.getInput()));
    total += cast<RankedTensorType>(flats.back().getType()).getDimSize(0);
    if (auto n = m->getAttrOfType<IntegerAttr>(kBytesPerDeviceAttr))
      bytesPerDevice += n.getInt();
    if (auto r = m->getAttrOfType<StringAttr>(kReasonAttr))
      reason += " [" + r.getValue().str() + "]";
  }
  auto elem = getElementTypeOrSelf(last.getType());
  auto flatType = RankedTensorType::get({total}, elem);
  // At most kMaxOperands per concat: groups are cut to that size.
  Value joined = ConcatOp::create(b, loc, flatType, flats, 0).getResult();
  auto combined = AllReduceOp::create(b, loc, flatType, last.getKindAttr(),
                                        joined, last.getMeshAttr(),
                                        last.getAxes());
  if (bytesPerDevice)
    combined->setAttr(kBytesPerDeviceAttr, b.getI64IntegerAttr(bytesPerDevice));
  combined->setAttr(kReasonAttr, b.getStringAttr(reason));
  int64_t offset = 0;
  Operation *lastCreated = combined;
  for (auto [m, flat] : llvm::zip(g.members, flats)) {
    auto type = cast<RankedTensorType>(m.getType());
    auto sliceType = cast<RankedTensorType>(flat.getType());
    Value part = SliceOp::create(b, loc, sliceType, combined.getResult(), 0,
                                   offset)
                     .getResult();
    offset += sliceType.getDimSize(0);
    Value back = unflatten(b, loc, part, type);
    lastCreated = back.getDefiningOp() ? back.getDefiningOp()
                                       : part.getDefiningOp();
    m.getResult().replaceAllUsesWith(back);
  }
  for (AllReduceOp m : g.members)
    m.erase();
  return lastCreated;
}

/// Moves every all-reduce of at most `maxBytes` up to right after its
/// operand's definition (after those moved there before it).
void hoistToOperands(Block &body, int64_t maxBytes) {
  llvm::DenseMap<Operation *, Operation *> lastPlaced;
  SmallVector<AllReduceOp> candidates;
  for (Operation &op : body)
    if (auto ar = dyn_cast<AllReduceOp>(op))
      if (bytesOf(ar.getInput()) <= maxBytes)
        candidates.push_back(ar);
  for (AllReduceOp ar : candidates) {
    Operation *def = ancestorInBlock(body, ar.getInput().getDefiningOp());
    if (!def)
      continue; // An argument: left where it is.
    Operation *&after = lastPlaced[def];
    ar->moveAfter(after ? after : def);
    after = ar;
  }
}

void combineFunction(func::FuncOp func, int64_t maxBytes) {
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
      bool reads = llvm::any_of(op.getOperands(), [&](Value v) {
        return g.tainted.contains(v);
      });
      if (!reads)
        continue;
      // A compute op that reads a member is deferred past the combined
      // collective; a collective (kept in program order on every rank),
      // the return or a region closes the group.
      if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp,
              func::ReturnOp>(op) ||
          op.getNumRegions() != 0) {
        g.open = false;
        continue;
      }
      g.deferred.push_back(&op);
      for (Value r : op.getResults())
        g.tainted.insert(r);
    }
    auto ar = dyn_cast<AllReduceOp>(op);
    if (!ar || bytesOf(ar.getInput()) > maxBytes)
      continue;
    int64_t bytes = bytesOf(ar.getInput());
    Group *into = nullptr;
    for (Group &g : groups)
      if (g.open && g.sameKey(ar) && g.bytes + bytes <= maxBytes &&
          g.members.size() < ConcatOp::kMaxOperands &&
          !g.tainted.contains(ar.getInput())) {
        into = &g;
        break;
      }
    if (!into) {
      groups.push_back(Group{ar, {}, 0, true, {}});
      into = &groups.back();
    }
    into->members.push_back(ar);
    into->bytes += bytes;
    into->tainted.insert(ar.getResult());
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
        combineFunction(func, maxBytes);
    });
  }
};

} // namespace

//===- WeftCollectives.cpp - the collectives' interface, folds, rewrites --===//
//
// CollectiveOpInterface for the collectives and weft.slice_shard, and the
// rewrites that are identities of the ops themselves: a gather and a slice
// of the same blocks cancel (folders), an all-reduce read only by a slice
// over its axes is a reduce-scatter, and two all-reduces of one kind are
// one (canonicalization patterns). --weft-optimize-collectives applies them
// (it collects every collective's patterns; no other pass folds the local
// view). The verifier refuses a collective over no axes, so there is no
// "over no axes" fold to make.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/Limits.h"
#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "weft-optimize-collectives"

using namespace mlir;
using namespace mlir::weft;
using ::weft::rt::CollectiveKind;

//===----------------------------------------------------------------------===//
// CollectiveOpInterface
//===----------------------------------------------------------------------===//

/// The ring cost of runtime collective `kind` on `op`'s local operand and
/// result (element counts are bounded by the verifier: exact).
static double ringBytes(Operation *op, CollectiveKind kind, int64_t p) {
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t eb = elementBytes(in);
  return ringBytesPerDevice(kind, p, double(in.getNumElements() * eb),
                            double(out.getNumElements() * eb));
}

double AllReduceOp::getBytesPerDevice(int64_t p) {
  return ringBytes(*this, CollectiveKind::AllReduce, p);
}
double AllGatherOp::getBytesPerDevice(int64_t p) {
  return ringBytes(*this, CollectiveKind::AllGather, p);
}
double ReduceScatterOp::getBytesPerDevice(int64_t p) {
  return ringBytes(*this, CollectiveKind::ReduceScatter, p);
}
double AllToAllOp::getBytesPerDevice(int64_t p) {
  return ringBytes(*this, CollectiveKind::AllToAll, p);
}
double SliceShardOp::getBytesPerDevice(int64_t) { return 0; }

bool SliceShardOp::communicates() { return false; } // Keeps its block.

std::optional<int64_t> AllGatherOp::getGatheredDim() { return getDim(); }
std::optional<int64_t> ReduceScatterOp::getScatteredDim() { return getDim(); }
std::optional<int64_t> SliceShardOp::getScatteredDim() { return getDim(); }

std::optional<ReductionKind> AllReduceOp::getReduction() { return getKind(); }
std::optional<ReductionKind> ReduceScatterOp::getReduction() {
  return getKind();
}

// The root collectives: the bytes through the busiest rank's link for the
// runtime's algorithms (ringBytes in runtime/lib/CollectivePlan.cpp;
// docs/design.md, "Root collectives").
double BroadcastOp::getBytesPerDevice(int64_t p) {
  return ringBytes(*this, CollectiveKind::Broadcast, p);
}
double ReduceToOp::getBytesPerDevice(int64_t p) {
  return ringBytes(*this, CollectiveKind::ReduceTo, p);
}
double GatherToOp::getBytesPerDevice(int64_t p) {
  return ringBytes(*this, CollectiveKind::GatherTo, p);
}
double ScatterFromOp::getBytesPerDevice(int64_t p) {
  return ringBytes(*this, CollectiveKind::ScatterFrom, p);
}
std::optional<ReductionKind> ReduceToOp::getReduction() { return getKind(); }
std::optional<int64_t> BroadcastOp::getRootPosition() {
  return getRootAttr().getInt();
}
std::optional<int64_t> ReduceToOp::getRootPosition() {
  return getRootAttr().getInt();
}
std::optional<int64_t> GatherToOp::getRootPosition() {
  return getRootAttr().getInt();
}
std::optional<int64_t> ScatterFromOp::getRootPosition() {
  return getRootAttr().getInt();
}

// collective_permute: a rank that sends, sends its operand once (a pair
// from a position to itself is a local copy).
bool CollectivePermuteOp::isPointToPoint() { return true; }

double CollectivePermuteOp::getBytesPerDevice(int64_t p) {
  if (p <= 1)
    return 0;
  for (auto [s, t] : getPairList())
    if (s != t)
      return ringBytes(*this, CollectiveKind::Permute, p);
  return 0;
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

/// Whether `a` and `b` run over the same groups and split the same
/// dimension.
static bool sameBlocks(CollectiveOpInterface a, int64_t aDim,
                       CollectiveOpInterface b, int64_t bDim) {
  return a.getMeshAttr() == b.getMeshAttr() &&
         a.getAxesAttr() == b.getAxesAttr() && aDim == bDim;
}

/// all_gather (slice_shard x): x, when both take the same blocks.
OpFoldResult AllGatherOp::fold(FoldAdaptor) {
  auto slice = getInput().getDefiningOp<SliceShardOp>();
  if (!slice || !sameBlocks(*this, getDim(), slice, slice.getDim()))
    return {};
  return slice.getInput();
}

/// slice_shard (all_gather x): x, when both take the same blocks.
OpFoldResult SliceShardOp::fold(FoldAdaptor) {
  auto gather = getInput().getDefiningOp<AllGatherOp>();
  if (!gather || !sameBlocks(*this, getDim(), gather, gather.getDim()))
    return {};
  return gather.getInput();
}

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {

/// all_reduce over A, only used by slice_shard over A on dim d
/// -> reduce_scatter over A on dim d.
struct AllReduceThenSlice : OpRewritePattern<SliceShardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceShardOp slice,
                                PatternRewriter &rewriter) const override {
    auto ar = slice.getInput().getDefiningOp<AllReduceOp>();
    if (!ar || !ar->hasOneUse() || ar.getMesh() != slice.getMesh() ||
        ar.getAxes() != slice.getAxes())
      return failure();
    WEFT_DEBUG(llvm::dbgs() << "[weft-optimize-collectives] all_reduce + "
                               "slice_shard -> reduce_scatter at "
                            << slice.getLoc() << "\n");
    auto rs = rewriter.replaceOpWithNewOp<ReduceScatterOp>(
        slice, slice.getType(), ar.getKindAttr(), ar.getInput(),
        ar.getMeshAttr(), ar.getAxes(), slice.getDimAttr());
    if (Attribute reason = ar->getAttr(kReasonAttr))
      rs->setAttr(kReasonAttr, reason);
    rewriter.eraseOp(ar);
    return success();
  }
};

/// all_reduce over A (one use) then all_reduce over B of the same kind
/// -> one all_reduce over A then B.
struct MergeAllReduces : OpRewritePattern<AllReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllReduceOp outer,
                                PatternRewriter &rewriter) const override {
    auto inner = outer.getInput().getDefiningOp<AllReduceOp>();
    if (!inner || !inner->hasOneUse() || inner.getKind() != outer.getKind() ||
        inner.getMesh() != outer.getMesh())
      return failure();
    SmallVector<Attribute> axes(inner.getAxes().begin(), inner.getAxes().end());
    for (Attribute a : outer.getAxes()) {
      if (llvm::is_contained(axes, a))
        return failure();
      axes.push_back(a);
    }
    rewriter.replaceOpWithNewOp<AllReduceOp>(
        outer, outer.getType(), outer.getKindAttr(), inner.getInput(),
        outer.getMeshAttr(), rewriter.getArrayAttr(axes));
    rewriter.eraseOp(inner);
    return success();
  }
};

} // namespace

void AllReduceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<MergeAllReduces>(context);
}

void SliceShardOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<AllReduceThenSlice>(context);
}

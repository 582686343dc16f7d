//===- OptimizeCollectives.cpp - the weft-optimize-collectives pass -------===//
//
// Local rewrites of the local view: an all-reduce whose result is only
// sliced becomes a reduce-scatter; a gather and a slice of the same blocks
// cancel; two all-reduces of one kind merge.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "weft-optimize-collectives"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTOPTIMIZECOLLECTIVES
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

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

/// all_gather then slice_shard of the same dim and axes, or the reverse:
/// the original blocks.
struct GatherSliceCancel : OpRewritePattern<SliceShardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceShardOp slice,
                                PatternRewriter &rewriter) const override {
    auto gather = slice.getInput().getDefiningOp<AllGatherOp>();
    if (!gather || gather.getMesh() != slice.getMesh() ||
        gather.getAxes() != slice.getAxes() ||
        gather.getDim() != slice.getDim())
      return failure();
    rewriter.replaceOp(slice, gather.getInput());
    return success();
  }
};

struct SliceGatherCancel : OpRewritePattern<AllGatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllGatherOp gather,
                                PatternRewriter &rewriter) const override {
    auto slice = gather.getInput().getDefiningOp<SliceShardOp>();
    if (!slice || gather.getMesh() != slice.getMesh() ||
        gather.getAxes() != slice.getAxes() ||
        gather.getDim() != slice.getDim())
      return failure();
    rewriter.replaceOp(gather, slice.getInput());
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
    SmallVector<Attribute> axes(inner.getAxes().begin(),
                                inner.getAxes().end());
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

struct WeftOptimizeCollectivesPass
    : public weft::impl::WeftOptimizeCollectivesBase<
          WeftOptimizeCollectivesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AllReduceThenSlice, GatherSliceCancel, SliceGatherCancel,
                 MergeAllReduces>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

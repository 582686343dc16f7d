//===- OptimizeCollectives.cpp - the weft-optimize-collectives pass -------===//
//
// Local rewrites of the local view: an all-reduce whose result is only
// sliced becomes a reduce-scatter; a gather and a slice of the same blocks
// cancel; two all-reduces of one kind merge; a slice of a dimension that no
// operand of its op has (one_hot's vocabulary, a broadcast letter) is
// computed as the block.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/ShardingRule.h"

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

/// slice_shard over A on dim d of a value whose dim d is indexed by a letter
/// in none of its op's operands (one_hot's vocabulary, iota's positions,
/// scatter_add's rows, a map's broadcast letter, a constant): the op
/// computes the block instead of computing everything and slicing it (the
/// result of propagation laying the op out before its users).
struct SliceOfFreeDim : OpRewritePattern<SliceShardOp> {
  using OpRewritePattern::OpRewritePattern;

  /// The letter of result dim `d` of `op` when no operand has it (the
  /// op's sharding rule names placeholder letters for constant and iota).
  static std::optional<char> freeLetter(Operation *op, unsigned d) {
    std::optional<ShardingRule> rule = ShardingRule::get(op);
    if (!rule)
      return std::nullopt;
    StringRef result = rule->getTensorLetters(rule->getResultIndex());
    if (d >= result.size())
      return std::nullopt;
    // Not free: a letter the op computes whole because its values depend
    // on the operand's other positions (weft.slice's and weft.concat's
    // moved dimension, weft.top_k's selection: canSplitLetter refuses
    // them), or weft.random's (its numbers depend on the global index,
    // which the cloned op would not know).
    if (!rule->canSplit(result[d]) || isa<RandomOp>(op))
      return std::nullopt;
    for (unsigned i = 0; i < rule->getNumOperands(); ++i)
      if (rule->getTensorLetters(i).contains(result[d]))
        return std::nullopt;
    return result[d];
  }

  LogicalResult matchAndRewrite(SliceShardOp slice,
                                PatternRewriter &rewriter) const override {
    Operation *def = slice.getInput().getDefiningOp();
    if (!def || def->getNumResults() != 1 || !def->hasOneUse())
      return failure();
    std::optional<char> letter = freeLetter(def, slice.getDim());
    if (!letter)
      return failure();
    // Only the block letter's dim depends on the index.
    auto block = dyn_cast<BlockIndexedOpInterface>(def);
    bool isBlockDim = block && *letter == block.getBlockLetter();
    if (isBlockDim && block.getLocalBlockMesh() &&
        block.getLocalBlockMesh() != slice.getMeshAttr())
      return failure();
    WEFT_DEBUG(llvm::dbgs() << "[weft-optimize-collectives] slice_shard of a "
                               "free dim computed as a block at "
                            << slice.getLoc() << "\n");
    Operation *local = rewriter.clone(*def);
    local->getResult(0).setType(slice.getType());
    if (isBlockDim) {
      // Further split: the block's position is (old position, new position)
      // row-major, the listed axes in that order.
      SmallVector<Attribute> axes;
      if (ArrayAttr old = block.getLocalBlockAxes())
        axes.append(old.begin(), old.end());
      axes.append(slice.getAxes().begin(), slice.getAxes().end());
      cast<BlockIndexedOpInterface>(local).setLocalBlock(
          slice.getMeshAttr(), rewriter.getArrayAttr(axes));
    }
    // Keep the recorded letter map (weft.split) in step.
    if (local->hasAttr("weft.split")) {
      std::optional<ShardingRule> rule = ShardingRule::get(local);
      FailureOr<LetterMap> map = ShardingRule::readSplit(local);
      if (rule && succeeded(map)) {
        AxisList &axes = (*map)[*letter];
        for (Attribute a : slice.getAxes())
          axes.push_back(cast<StringAttr>(a).getValue());
        rule->writeSplit(*map);
      }
    }
    rewriter.replaceOp(slice, local->getResults());
    rewriter.eraseOp(def);
    return success();
  }
};

struct WeftOptimizeCollectivesPass
    : public weft::impl::WeftOptimizeCollectivesBase<
          WeftOptimizeCollectivesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AllReduceThenSlice, GatherSliceCancel, SliceGatherCancel,
                 MergeAllReduces, SliceOfFreeDim>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

//===- OptimizeCollectives.cpp - the weft-optimize-collectives pass -------===//
//
// Local rewrites of the local view: the collectives' own folds and
// canonicalization patterns (lib/Dialect/Weft/IR/WeftCollectives.cpp: an
// all-reduce whose result is only sliced becomes a reduce-scatter; a
// gather and a slice of the same blocks cancel; two all-reduces of one
// kind merge), collected from every op with CollectiveOpInterface, and one
// rewrite of its own: a slice of a dimension that no operand of its op has
// (one_hot's vocabulary, a broadcast letter) is computed as the block.
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

/// slice_shard over A on dim d of a value whose dim d is indexed by a letter
/// in none of its op's operands (one_hot's vocabulary, iota's positions,
/// scatter_add's rows, a map's broadcast letter, a constant): the op
/// computes the block instead of computing everything and slicing it (the
/// result of propagation laying the op out before its users).
struct SliceOfFreeDim : OpInterfaceRewritePattern<CollectiveOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

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
    auto partition = dyn_cast<PartitionOpInterface>(op);
    if (!rule->canSplit(result[d]) ||
        (partition && partition.readsGlobalIndices()))
      return std::nullopt;
    for (unsigned i = 0; i < rule->getNumOperands(); ++i)
      if (rule->getTensorLetters(i).contains(result[d]))
        return std::nullopt;
    return result[d];
  }

  LogicalResult matchAndRewrite(CollectiveOpInterface slice,
                                PatternRewriter &rewriter) const override {
    // A slice_shard: the only collective that moves no data.
    if (slice.communicates())
      return failure();
    Operation *def = slice->getOperand(0).getDefiningOp();
    if (!def || def->getNumResults() != 1 || !def->hasOneUse())
      return failure();
    std::optional<char> letter = freeLetter(def, *slice.getScatteredDim());
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
    local->getResult(0).setType(slice->getResult(0).getType());
    if (isBlockDim) {
      // Further split: the block's position is (old position, new position)
      // row-major, the listed axes in that order.
      SmallVector<Attribute> axes;
      if (ArrayAttr old = block.getLocalBlockAxes())
        axes.append(old.begin(), old.end());
      axes.append(slice.getAxesAttr().begin(), slice.getAxesAttr().end());
      cast<BlockIndexedOpInterface>(local).setLocalBlock(
          slice.getMeshAttr(), rewriter.getArrayAttr(axes));
    }
    // Keep the recorded letter map (weft.split) in step.
    if (local->hasAttr("weft.split")) {
      std::optional<ShardingRule> rule = ShardingRule::get(local);
      FailureOr<LetterMap> map = ShardingRule::readSplit(local);
      if (rule && succeeded(map)) {
        AxisList &axes = (*map)[*letter];
        for (StringRef a : slice.getAxisNames())
          axes.push_back(a);
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
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    for (RegisteredOperationName name : ctx->getRegisteredOperations())
      if (name.hasInterface<CollectiveOpInterface>())
        name.getCanonicalizationPatterns(patterns, ctx);
    patterns.add<SliceOfFreeDim>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

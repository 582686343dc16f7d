//===- Accumulate.cpp - gradient accumulation over micro-batches ---------===//
//
// --weft-accumulate: repeats a loss-and-gradients function's body once per
// micro-batch on its own copy of the data arguments, and returns the mean
// loss and the mean gradients (Passes.td, docs/training.md). The trailing
// weft.shard that --weft-autodiff puts on each gradient is applied once to
// the sum, so propagation keeps the per-micro-batch gradients partial and
// the data-parallel reduction happens once per step.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "weft-accumulate"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTACCUMULATE
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// The most micro-batches accepted (each one is a copy of the body).
constexpr int64_t kMaxMicroBatches = 4096;

LogicalResult accumulate(func::FuncOp func, int64_t k) {
  if (k == 1)
    return success();
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  bool hasGrads = func.getNumResults() > 1;
  for (unsigned r = 1; r < func.getNumResults(); ++r)
    hasGrads &= func.getResultAttr(r, kGradOfAttr) != nullptr;
  if (!hasGrads) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (func.getArgAttr(i, kParamAttr))
        return func.emitError()
               << "--weft-accumulate needs the loss followed by the "
                  "gradients (run --weft-autodiff first)";
    return success(); // Nothing is trained here.
  }
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kMicroBatchAttr) || func.getArgAttr(i, kStateOfAttr))
      return func.emitError() << "--weft-accumulate must run once, after "
                                 "--weft-autodiff and before "
                                 "--weft-optimizer";

  // The values to accumulate: the loss, and each gradient before its
  // trailing weft.shard (re-applied to the sum).
  Block &body = func.getBody().front();
  SmallVector<Value> inner;
  SmallVector<ShardOp> finalShards;
  llvm::SmallPtrSet<Operation *, 8> peeled;
  for (auto [r, v] : llvm::enumerate(ret.getOperands())) {
    auto shard = v.getDefiningOp<ShardOp>();
    if (r > 0 && shard && shard->hasOneUse()) {
      inner.push_back(shard.getInput());
      finalShards.push_back(shard);
      peeled.insert(shard);
    } else {
      inner.push_back(v);
      finalShards.push_back(nullptr);
    }
  }
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    if (!peeled.contains(&op))
      ops.push_back(&op);

  // Data arguments: everything but the parameters.
  SmallVector<unsigned> data;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (!func.getArgAttr(i, kParamAttr))
      data.push_back(i);
  OpBuilder b(func.getContext());
  for (unsigned i : data) {
    // The copies share the name, which names the input's .npy file.
    setArgName(func, i, getArgNameOr(func, i));
    func.setArgAttr(i, kMicroBatchAttr, b.getI64IntegerAttr(0));
  }

  // Copies 1..k-1, each after the previous one and its accumulation.
  Location loc = func.getLoc();
  auto add = [&](Value x, Value y) -> Value {
    std::string l = placeholderLetters(x.getType());
    return MapOp::create(b, loc, withoutSharding(x.getType()), MapKind::Add,
                         l + "," + l + "->" + l, ValueRange{x, y}, FloatAttr());
  };
  SmallVector<Value> sums(inner.begin(), inner.end());
  b.setInsertionPoint(ret);
  for (int64_t copy = 1; copy < k; ++copy) {
    IRMapping map;
    for (unsigned i : data) {
      unsigned a = func.getNumArguments();
      if (failed(func.insertArgument(a, func.getArgument(i).getType(),
                                     func.getArgAttrDict(i),
                                     func.getArgument(i).getLoc())))
        return failure();
      func.setArgAttr(a, kMicroBatchAttr, b.getI64IntegerAttr(copy));
      map.map(func.getArgument(i), func.getArgument(a));
    }
    b.setInsertionPoint(ret);
    for (Operation *op : ops)
      b.clone(*op, map);
    for (auto [sum, v] : llvm::zip(sums, inner))
      sum = add(sum, map.lookupOrDefault(v));
  }
  // The means, each in its result's type: a gradient's peeled weft.shard
  // re-applied to it, a new one where a mean dropped a sharding.
  SmallVector<Value> results;
  for (auto [sum, shard, type] :
       llvm::zip(sums, finalShards, func.getResultTypes())) {
    std::string l = placeholderLetters(sum.getType());
    Value mean = MapOp::create(b, loc, withoutSharding(sum.getType()),
                               MapKind::Scale, l + "->" + l, ValueRange{sum},
                               b.getF64FloatAttr(1.0 / static_cast<double>(k)));
    if (shard) {
      shard->moveBefore(ret);
      shard->setOperand(0, mean);
      mean = shard.getResult();
    } else if (mean.getType() != type) {
      mean = ShardOp::create(b, loc, type, mean);
    }
    results.push_back(mean);
  }
  ret->setOperands(results);
  WEFT_DEBUG(llvm::dbgs() << "weft-accumulate: " << k << " micro-batches, "
                          << data.size() << " data argument(s)\n");
  return success();
}

struct WeftAccumulatePass
    : public mlir::weft::impl::WeftAccumulateBase<WeftAccumulatePass> {
  using WeftAccumulateBase::WeftAccumulateBase;
  void runOnOperation() override {
    int64_t k = microBatches;
    if (k < 1 || k > kMaxMicroBatches) {
      getOperation().emitError()
          << "--weft-accumulate: micro-batches = " << k
          << " is out of range [1, " << kMaxMicroBatches << "]";
      return signalPassFailure();
    }
    if (failed(accumulate(getOperation(), k)))
      signalPassFailure();
  }
};

} // namespace

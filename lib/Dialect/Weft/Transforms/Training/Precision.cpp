//===- Precision.cpp - the mixed-precision policy (weft.convert) ----------===//
//
// --weft-precision=bf16-mixed: every two-operand f32 weft.einsum (a GEMM)
// runs in bf16 on operands rounded to bf16 by weft.convert, and its result
// is converted back to f32 where it is used. f16-mixed does the same in
// f16 and adds dynamic loss scaling: the backward's seed becomes a
// `loss_scale` input and the gradients are divided by it (LossScaling.h;
// the harness keeps the scale and skips a step that overflowed). Everything
// else (elementwise maps, reductions: norms, softmax, the loss; the parameters,
// the optimizer state and the optimizer step) stays f32. A weight-gradient
// einsum (one whose result reaches a parameter's gradient through sums
// only) runs in bf16 with a bf16 result when grad-reduce-dtype=bf16, so
// its data-parallel sum is reduced in bf16 (half the bytes); with f32 it
// takes the bf16-rounded operands widened back to f32 (exactly) and
// computes in f32, so the sum is reduced in f32. Runs after
// --weft-autodiff and --weft-accumulate, before --weft-optimizer
// (Passes.td, docs/precision.md).
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/LossScaling.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTPRECISION
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

bool isF32Tensor(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.getElementType().isF32();
}

/// The einsums whose result reaches a gradient result (weft.grad_of)
/// through sums only: weft.shard, weft.convert, map add and scale. Their
/// results are the per-rank partial weight gradients that data
/// parallelism sums.
llvm::SmallPtrSet<Operation *, 16> weightGradientEinsums(func::FuncOp func) {
  llvm::SmallPtrSet<Operation *, 16> found;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<Value> work;
  for (unsigned r = 0; r < func.getNumResults(); ++r)
    if (func.getResultAttr(r, kGradOfAttr))
      work.push_back(ret.getOperand(r));
  llvm::SmallPtrSet<Operation *, 32> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (auto e = dyn_cast<EinsumOp>(op)) {
      if (e.getInputs().size() == 2)
        found.insert(op);
      continue;
    }
    bool passes = isa<ShardOp, ConvertOp>(op);
    if (auto m = dyn_cast<MapOp>(op))
      passes = m.getKind() == MapKind::Add || m.getKind() == MapKind::Scale;
    if (passes)
      for (Value v : op->getOperands())
        work.push_back(v);
  }
  return found;
}

LogicalResult applyHalfMixed(func::FuncOp func, Type half, bool gradReduceF32) {
  MLIRContext *ctx = func.getContext();
  Type f32 = Float32Type::get(ctx);
  llvm::SmallPtrSet<Operation *, 16> gradEinsums =
      gradReduceF32 ? weightGradientEinsums(func)
                    : llvm::SmallPtrSet<Operation *, 16>();
  // One rounded copy of each value, however many GEMMs read it.
  llvm::DenseMap<Value, Value> rounded, roundedWide;
  OpBuilder b(ctx);
  auto toHalf = [&](Value v) -> Value {
    auto it = rounded.find(v);
    if (it != rounded.end())
      return it->second;
    b.setInsertionPointAfterValue(v);
    auto t = cast<RankedTensorType>(v.getType());
    Value c = ConvertOp::create(b, v.getLoc(),
                                RankedTensorType::get(t.getShape(), half), v);
    rounded[v] = c;
    return c;
  };
  auto toHalfWide = [&](Value v) -> Value {
    auto it = roundedWide.find(v);
    if (it != roundedWide.end())
      return it->second;
    Value r = toHalf(v);
    b.setInsertionPointAfterValue(r);
    auto t = cast<RankedTensorType>(v.getType());
    Value c = ConvertOp::create(b, v.getLoc(),
                                RankedTensorType::get(t.getShape(), f32), r);
    roundedWide[v] = c;
    return c;
  };
  SmallVector<EinsumOp> gemms;
  func.walk([&](EinsumOp e) {
    if (e.getInputs().size() == 2 && isF32Tensor(e.getType()) &&
        llvm::all_of(e.getInputs(),
                     [](Value v) { return isF32Tensor(v.getType()); }))
      gemms.push_back(e);
  });
  for (EinsumOp e : gemms) {
    auto type = cast<RankedTensorType>(e.getType());
    if (gradEinsums.contains(e)) {
      // Half-type operands, f32 accumulation and result: the sum is
      // reduced in f32.
      SmallVector<Value> ins;
      for (Value v : e.getInputs())
        ins.push_back(toHalfWide(v));
      e->setOperands(ins);
      continue;
    }
    SmallVector<Value> ins;
    for (Value v : e.getInputs())
      ins.push_back(toHalf(v));
    b.setInsertionPoint(e);
    auto lowType =
        RankedTensorType::get(type.getShape(), half, type.getEncoding());
    auto low = EinsumOp::create(b, e.getLoc(), lowType, e.getSpec(), ins);
    for (NamedAttribute a : e->getDiscardableAttrs())
      low->setAttr(a.getName(), a.getValue());
    Value back = ConvertOp::create(b, e.getLoc(), type, low.getResult());
    e.getResult().replaceAllUsesWith(back);
    e.erase();
  }
  return success();
}

/// Dynamic loss scaling (f16-mixed): every backward seed (LossScaling.h)
/// becomes a new rank-0 `loss_scale` input S, so the backward computes S
/// times the gradients (large enough that small f16 values do not flush
/// to zero), and each gradient result is multiplied by 1 / S before its
/// trailing weft.shard (a partial sum stays partial through it). The
/// harness picks S (a power of two, so both products are exact unless
/// they overflow). A function with no seed (no gradients) is left alone.
LogicalResult addLossScaling(func::FuncOp func) {
  SmallVector<ConstantOp> seeds;
  func.walk([&](ConstantOp c) {
    if (c->hasAttr(kLossSeedAttr))
      seeds.push_back(c);
  });
  if (seeds.empty())
    return success();
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto h = func.getArgAttrOfType<StringAttr>(i, kHyperparamAttr))
      if (h.getValue() == kLossScaleHyperparam)
        return func.emitError() << "--weft-precision: the function already "
                                   "has a loss_scale input (argument #"
                                << i << ")";
  Type type = seeds.front().getType();
  for (ConstantOp c : seeds)
    if (c.getType() != type)
      return c.emitError() << "--weft-precision: the backward seeds differ "
                              "in type ("
                           << c.getType() << " and " << type << ")";
  OpBuilder b(func.getContext());
  unsigned index = func.getNumArguments();
  if (failed(func.insertArguments(
          {index}, {type},
          {b.getDictionaryAttr(
              {b.getNamedAttr(kHyperparamAttr,
                              b.getStringAttr(kLossScaleHyperparam)),
               b.getNamedAttr(kNameAttr,
                              b.getStringAttr(kLossScaleHyperparam))})},
          {func.getLoc()})))
    return failure();
  Value scale = func.getArgument(index);
  for (ConstantOp c : seeds) {
    c.getResult().replaceAllUsesWith(scale);
    c.erase();
  }
  Block &body = func.getBody().front();
  b.setInsertionPointToStart(&body);
  Location loc = func.getLoc();
  Value one = ConstantOp::create(b, loc, cast<RankedTensorType>(type),
                                 b.getF64FloatAttr(1.0));
  Value inverse = MapOp::create(b, loc, type, MapKind::Div, ",->",
                                ValueRange{one, scale}, FloatAttr());
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (unsigned r = 0; r < func.getNumResults(); ++r) {
    if (!func.getResultAttr(r, kGradOfAttr))
      continue;
    OpOperand *use = &ret->getOpOperand(r);
    if (auto shard = use->get().getDefiningOp<ShardOp>();
        shard && shard->hasOneUse())
      use = &shard->getOpOperand(0);
    Value g = use->get();
    auto gType = dyn_cast<RankedTensorType>(g.getType());
    if (!gType ||
        gType.getElementType() != cast<RankedTensorType>(type).getElementType())
      return ret.emitError() << "--weft-precision: gradient result #" << r
                             << " is " << g.getType()
                             << "; loss scaling needs it in the loss's "
                                "element type";
    b.setInsertionPoint(use->getOwner());
    std::string l = placeholderLetters(gType);
    Value unscaled = MapOp::create(
        b, g.getLoc(),
        RankedTensorType::get(gType.getShape(), gType.getElementType()),
        MapKind::Mul, l + ",->" + l, ValueRange{g, inverse}, FloatAttr());
    use->set(unscaled);
  }
  return success();
}

struct WeftPrecisionPass
    : public mlir::weft::impl::WeftPrecisionBase<WeftPrecisionPass> {
  using WeftPrecisionBase::WeftPrecisionBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (policy != "f32" && policy != "bf16-mixed" && policy != "f16-mixed") {
      func.emitError() << "--weft-precision: policy '" << policy
                       << "': expected f32, bf16-mixed or f16-mixed";
      return signalPassFailure();
    }
    // The half type of the policy, or f32 (where grad-reduce-dtype may be
    // its default, bf16, only).
    StringRef half = policy == "f16-mixed" ? "f16" : "bf16";
    if (gradReduceDtype != half && gradReduceDtype != "f32" &&
        !(policy == "f16-mixed" && gradReduceDtype == "bf16")) {
      func.emitError() << "--weft-precision: grad-reduce-dtype='"
                       << gradReduceDtype << "': expected " << half
                       << " or f32";
      return signalPassFailure();
    }
    if (policy == "f32")
      return;
    if (func.isExternal())
      return;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (func.getArgAttr(i, kStateOfAttr)) {
        func.emitError() << "--weft-precision must run before "
                            "--weft-optimizer (the optimizer step stays f32)";
        return signalPassFailure();
      }
    // grad-reduce-dtype=bf16 is the option's default: for f16-mixed it
    // means the policy's half type.
    Type type = policy == "f16-mixed"
                    ? Type(Float16Type::get(func.getContext()))
                    : Type(BFloat16Type::get(func.getContext()));
    if (failed(applyHalfMixed(func, type, gradReduceDtype == "f32")))
      return signalPassFailure();
    if (policy == "f16-mixed" && failed(addLossScaling(func)))
      signalPassFailure();
  }
};

} // namespace

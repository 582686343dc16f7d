//===- Precision.cpp - the mixed-precision policy (weft.convert) ----------===//
//
// --weft-precision=bf16-mixed: every two-operand f32 weft.einsum (a GEMM)
// runs in bf16 on operands rounded to bf16 by weft.convert, and its result
// is converted back to f32 where it is used. Everything else (elementwise
// maps, reductions: norms, softmax, the loss; the parameters, the
// optimizer state and the optimizer step) stays f32. A weight-gradient
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

LogicalResult applyBf16Mixed(func::FuncOp func, bool gradReduceF32) {
  MLIRContext *ctx = func.getContext();
  Type bf16 = BFloat16Type::get(ctx);
  Type f32 = Float32Type::get(ctx);
  llvm::SmallPtrSet<Operation *, 16> gradEinsums =
      gradReduceF32 ? weightGradientEinsums(func)
                    : llvm::SmallPtrSet<Operation *, 16>();
  // One rounded copy of each value, however many GEMMs read it.
  llvm::DenseMap<Value, Value> rounded, roundedWide;
  OpBuilder b(ctx);
  auto toBf16 = [&](Value v) -> Value {
    auto it = rounded.find(v);
    if (it != rounded.end())
      return it->second;
    b.setInsertionPointAfterValue(v);
    auto t = cast<RankedTensorType>(v.getType());
    Value c = ConvertOp::create(b, v.getLoc(),
                                RankedTensorType::get(t.getShape(), bf16), v);
    rounded[v] = c;
    return c;
  };
  auto toBf16Wide = [&](Value v) -> Value {
    auto it = roundedWide.find(v);
    if (it != roundedWide.end())
      return it->second;
    Value r = toBf16(v);
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
      // bf16 operands, f32 accumulation and result: the sum is reduced
      // in f32.
      SmallVector<Value> ins;
      for (Value v : e.getInputs())
        ins.push_back(toBf16Wide(v));
      e->setOperands(ins);
      continue;
    }
    SmallVector<Value> ins;
    for (Value v : e.getInputs())
      ins.push_back(toBf16(v));
    b.setInsertionPoint(e);
    auto lowType =
        RankedTensorType::get(type.getShape(), bf16, type.getEncoding());
    auto low = EinsumOp::create(b, e.getLoc(), lowType, e.getSpec(), ins);
    for (NamedAttribute a : e->getDiscardableAttrs())
      low->setAttr(a.getName(), a.getValue());
    Value back = ConvertOp::create(b, e.getLoc(), type, low.getResult());
    e.getResult().replaceAllUsesWith(back);
    e.erase();
  }
  return success();
}

struct WeftPrecisionPass
    : public mlir::weft::impl::WeftPrecisionBase<WeftPrecisionPass> {
  using WeftPrecisionBase::WeftPrecisionBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (gradReduceDtype != "bf16" && gradReduceDtype != "f32") {
      func.emitError() << "--weft-precision: grad-reduce-dtype='"
                       << gradReduceDtype << "': expected bf16 or f32";
      return signalPassFailure();
    }
    if (policy == "f32")
      return;
    if (policy != "bf16-mixed") {
      func.emitError() << "--weft-precision: policy '" << policy
                       << "': expected f32 or bf16-mixed";
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (func.getArgAttr(i, kStateOfAttr)) {
        func.emitError() << "--weft-precision must run before "
                            "--weft-optimizer (the optimizer step stays f32)";
        return signalPassFailure();
      }
    if (failed(applyBf16Mixed(func, gradReduceDtype == "f32")))
      signalPassFailure();
  }
};

} // namespace

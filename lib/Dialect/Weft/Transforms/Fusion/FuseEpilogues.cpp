//===- FuseEpilogues.cpp - the weft-fuse-epilogues pass -------------------===//
//
// --weft-fuse-epilogues, on the local view: a two-operand f32 weft.einsum
// and the maps after it that only its result feeds (a bias add, an
// activation, a scale, a residual add, in that order) become one
// weft.fused_einsum, which the CPU runs as one oneDNN matmul with post-ops.
// The rule is written down in docs/fusion.md, "Epilogues".
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FusedSteps.h"
#include "weft/Dialect/Weft/IR/IndexSpec.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/rt/ElementPlans.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTFUSEEPILOGUES
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

#define DEBUG_TYPE "weft-fuse-epilogues"

using namespace mlir;
using namespace mlir::weft;

namespace {

/// The stages of an epilogue, in the only order the pass takes them (the
/// order of oneDNN's matmul bias and post-ops).
enum class Stage { Bias, Activation, Scale, Residual, Done };

IndexSpec specOf(StringRef text, bool allowBroadcast) {
  std::string error;
  FailureOr<IndexSpec> spec = IndexSpec::parse(text, error, allowBroadcast);
  assert(succeeded(spec) && "verified spec");
  return *spec;
}

bool isActivation(MapKind k) {
  return k == MapKind::Relu || k == MapKind::Gelu || k == MapKind::Tanh ||
         k == MapKind::Silu || k == MapKind::Sigmoid;
}

/// The epilogue being built: its operands (after in0, the einsum's
/// result) with their letters, and its steps.
struct Epilogue {
  std::string result; // the einsum's result letters
  SmallVector<Value> operands;
  SmallVector<std::string> letters;
  SmallVector<FusedMapStep> steps;
  SmallVector<MapOp> members;

  /// The id of the value the next step reads: in0, then the last step.
  int current() const {
    return steps.empty() ? 0 : static_cast<int>(steps.size()) - 1 + kIds;
  }
  // Step ids are numbered after the operands, which are known only at the
  // end: steps are built with step j as kIds + j and operand K (K >= 1) as
  // kOperands + K, and renumbered by finalSteps().
  static constexpr int kIds = 1000, kOperands = 2000;

  /// Takes `m` as the next stage at or after `from`; returns the stage
  /// after it, or nullopt when `m` fits no stage left.
  std::optional<Stage> take(MapOp m, Value cur, Stage from) {
    IndexSpec spec = specOf(m.getSpec(), /*allowBroadcast=*/true);
    if (spec.result != result)
      return std::nullopt;
    MapKind k = m.getKind();
    FusedMapStep st;
    st.kind = k;
    if (k == MapKind::Add && m->getNumOperands() == 2) {
      unsigned self = m->getOperand(0) == cur ? 0 : 1;
      if (m->getOperand(1 - self) == cur)
        return std::nullopt; // x + x
      if (spec.inputs[self] != result)
        return std::nullopt;
      const std::string &other = spec.inputs[1 - self];
      Stage s;
      if (from <= Stage::Bias && other.size() == 1 &&
          other.back() == result.back())
        s = Stage::Bias; // one value per column, broadcast along rows
      else if (from <= Stage::Residual && other == result)
        s = Stage::Residual;
      else
        return std::nullopt;
      operands.push_back(m->getOperand(1 - self));
      letters.push_back(other);
      st.a = current();
      st.b = kOperands + static_cast<int>(operands.size());
      steps.push_back(st);
      return static_cast<Stage>(static_cast<int>(s) + 1);
    }
    if (m->getNumOperands() != 1 || spec.inputs[0] != result)
      return std::nullopt;
    Stage s;
    if (from <= Stage::Activation && isActivation(k))
      s = Stage::Activation;
    else if (from <= Stage::Scale && k == MapKind::Scale)
      s = Stage::Scale;
    else
      return std::nullopt;
    st.a = current();
    if (k == MapKind::Scale)
      st.scalar = m.getScalar() ? m.getScalar()->convertToDouble() : 0.0;
    steps.push_back(st);
    return static_cast<Stage>(static_cast<int>(s) + 1);
  }

  /// The steps with final ids: operand K at K (in0 is 0), step j at
  /// 1 + operands + j.
  SmallVector<FusedMapStep> finalSteps() const {
    int n = 1 + static_cast<int>(operands.size());
    auto fix = [&](int id) {
      if (id >= kOperands)
        return id - kOperands;
      return id >= kIds ? id - kIds + n : id;
    };
    SmallVector<FusedMapStep> out(steps);
    for (FusedMapStep &st : out) {
      st.a = fix(st.a);
      if (st.b >= 0)
        st.b = fix(st.b);
    }
    return out;
  }
};

/// The single weft.map reading `v`, or null.
MapOp soleMapUser(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  return dyn_cast<MapOp>(*v.getUsers().begin());
}

struct FuseEpiloguesPass
    : public mlir::weft::impl::WeftFuseEpiloguesBase<FuseEpiloguesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<EinsumOp> einsums;
    func.walk([&](EinsumOp op) { einsums.push_back(op); });
    for (EinsumOp e : einsums) {
      if (e.getInputs().size() != 2 || !e.getType().getElementType().isF32())
        continue;
      Epilogue epi;
      epi.result = specOf(e.getSpec(), /*allowBroadcast=*/false).result;
      Value cur = e.getResult();
      Stage stage = Stage::Bias;
      while (stage != Stage::Done &&
             epi.operands.size() + 1 <
                 static_cast<size_t>(::weft::rt::kMaxFusedInputs)) {
        MapOp m = soleMapUser(cur);
        if (!m || m->getBlock() != e->getBlock())
          break;
        std::optional<Stage> next = epi.take(m, cur, stage);
        if (!next)
          break;
        epi.members.push_back(m);
        stage = *next;
        cur = m.getResult();
      }
      if (epi.members.empty())
        continue;
      std::string spec = epi.result;
      SmallVector<Value> operands(e.getInputs().begin(), e.getInputs().end());
      for (auto [v, l] : llvm::zip(epi.operands, epi.letters)) {
        spec += "," + l;
        operands.push_back(v);
      }
      spec += "->" + epi.result;
      MapOp last = epi.members.back();
      OpBuilder b(last);
      auto fused = FusedEinsumOp::create(
          b, last.getLoc(), last.getType(), e.getSpecAttr(), operands,
          b.getStringAttr(spec),
          b.getStringAttr(
              printFusedSteps(epi.finalSteps(), 1 + epi.operands.size())));
      WEFT_DEBUG(llvm::dbgs()
                 << "[weft-fuse-epilogues] einsum \"" << e.getSpec() << "\" + "
                 << epi.members.size() << " maps -> weft.fused_einsum then \""
                 << spec << "\" at " << last.getLoc() << "\n");
      last.getResult().replaceAllUsesWith(fused.getResult());
      for (MapOp m : llvm::reverse(epi.members))
        m->erase();
      e->erase();
    }
  }
};

} // namespace

//===- FusedEinsumTests.cpp - weft.fused_einsum on the CPU backend --------===//
//
// Backend::fusedEinsum against the same einsum and chain run apart
// (Backend::einsum, then Backend::fusedMap): on oneDNN's post-ops within
// the stated f32 tolerance (1e-6 of the largest value), bit for bit for
// the exact stages (bias, scale, residual), and bit for bit where the
// chain cannot go into the GEMM and runs as one pass after it.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Error.h"
#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace weft::rt;

namespace {

void fillRandom(Tensor &t, uint32_t seed) {
  float *p = t.ptr<float>();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = static_cast<float>(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
}

/// Runs `spec` with the epilogue `epi` (steps) over `extras` both ways and
/// returns the largest |fused - unfused| relative to max |unfused|; `same`
/// says whether they are identical.
double compareFused(const std::string &spec, const Shape &a, const Shape &b,
                    const std::string &epi, const std::vector<Shape> &extras,
                    std::vector<FusedStep> steps, bool &same) {
  CpuBackend be(Mesh({{"x", 1}}), 0);
  EinsumPlan plan = planEinsum(spec, a, b, DType::F32);
  std::vector<Shape> inShapes{plan.outShape};
  inShapes.insert(inShapes.end(), extras.begin(), extras.end());
  FusedMapPlan e = planFusedMap(epi, inShapes, plan.outShape, steps);
  Tensor ta = be.empty(DType::F32, a), tb = be.empty(DType::F32, b);
  fillRandom(ta, 1);
  fillRandom(tb, 2);
  std::vector<Tensor> te;
  for (std::size_t i = 0; i < extras.size(); ++i) {
    te.push_back(be.empty(DType::F32, extras[i]));
    fillRandom(te.back(), 3 + static_cast<uint32_t>(i));
  }
  std::vector<const Tensor *> fusedIn{&ta, &tb};
  for (Tensor &t : te)
    fusedIn.push_back(&t);
  Tensor fused = be.empty(DType::F32, plan.outShape);
  be.fusedEinsum(plan, e, fusedIn, fused);
  Tensor acc = be.empty(DType::F32, plan.outShape),
         unfused = be.empty(DType::F32, plan.outShape);
  be.einsum(plan, ta, &tb, acc);
  std::vector<const Tensor *> chainIn{&acc};
  for (Tensor &t : te)
    chainIn.push_back(&t);
  be.fusedMap(e, chainIn, unfused);
  double maxRef = 0, maxDiff = 0;
  for (int64_t i = 0; i < fused.numElements(); ++i) {
    double f = fused.ptr<float>()[i], u = unfused.ptr<float>()[i];
    maxRef = std::max(maxRef, std::fabs(u));
    maxDiff = std::max(maxDiff, std::fabs(f - u));
  }
  same = std::memcmp(fused.data, unfused.data, fused.bytes()) == 0;
  return maxDiff / std::max(maxRef, 1e-30);
}

// Value ids: 0 the einsum's result, 1... the extras, then the steps.
TEST(FusedEinsum, BiasGeluScaleResidualOnPostOps) {
  // A batched GEMM (m = b t): bias f, gelu, scale, residual btf.
  bool same;
  double err = compareFused("btd,df->btf", {4, 16, 32}, {32, 48},
                            "btf,f,btf->btf", {{48}, {4, 16, 48}},
                            {{MapKind::Add, 0, 1},
                             {MapKind::Gelu, 3},
                             {MapKind::Scale, 4, -1, 0.5},
                             {MapKind::Add, 5, 2}},
                            same);
  // oneDNN's gelu formula against ElementOps.h's: f32 rounding apart.
  EXPECT_LE(err, 1e-6);
}

TEST(FusedEinsum, EachActivation) {
  for (MapKind k : {MapKind::Relu, MapKind::Tanh, MapKind::Silu,
                    MapKind::Sigmoid, MapKind::Gelu}) {
    bool same;
    double err = compareFused("bd,df->bf", {8, 16}, {16, 24}, "bf->bf", {},
                              {{k, 0}}, same);
    EXPECT_LE(err, 1e-6) << mapKindName(k);
  }
}

TEST(FusedEinsum, ExactStagesAreBitIdentical) {
  // A bias, a scale and a residual: the same single f32 operations as the
  // maps, in the same order.
  bool same;
  double err = compareFused("bd,df->bf", {8, 64}, {64, 32}, "bf,f,bf->bf",
                            {{32}, {8, 32}},
                            {{MapKind::Add, 0, 1},
                             {MapKind::Scale, 3, -1, 0.25},
                             {MapKind::Add, 2, 4}},
                            same);
  EXPECT_EQ(err, 0.0);
  EXPECT_TRUE(same);
}

TEST(FusedEinsum, SwappedOperandsTakeTheBiasOfTheirColumns) {
  // "bd,df->fb": the planner swaps the operands (C^T = B^T A^T) and writes
  // the result itself, so its columns are b and a bias along b goes into
  // the GEMM.
  bool same;
  double err = compareFused("bd,df->fb", {8, 16}, {16, 24}, "fb,b->fb", {{8}},
                            {{MapKind::Add, 0, 1}, {MapKind::Gelu, 2}}, same);
  EXPECT_LE(err, 1e-6);
}

TEST(FusedEinsum, OtherChainsRunAfterTheGemm) {
  // A chain that is not bias/activation/scale/residual (a mul) runs after
  // the GEMM with the fused_map kernel: the unfused program's bits.
  bool same;
  compareFused("bd,df->bf", {8, 16}, {16, 24}, "bf,bf->bf", {{8, 24}},
               {{MapKind::Mul, 0, 1}}, same);
  EXPECT_TRUE(same);
  // A bias along the rows (b of bf) is not a per-column bias: after too.
  compareFused("bd,df->bf", {8, 16}, {16, 24}, "bf,b->bf", {{8}},
               {{MapKind::Add, 0, 1}, {MapKind::Relu, 2}}, same);
  EXPECT_TRUE(same);
}

TEST(FusedEinsum, WrongTensorsAreErrors) {
  CpuBackend be(Mesh({{"x", 1}}), 0);
  EinsumPlan plan = planEinsum("bd,df->bf", {8, 16}, {16, 24}, DType::F32);
  FusedMapPlan e = planFusedMap("bf,f->bf", {{8, 24}, {24}}, {8, 24},
                                {{MapKind::Add, 0, 1}});
  Tensor a = be.empty(DType::F32, {8, 16}), b = be.empty(DType::F32, {16, 24});
  Tensor bias = be.empty(DType::F32, {23}), out = be.empty(DType::F32, {8, 24});
  EXPECT_THROW(be.fusedEinsum(plan, e, {&a, &b}, out), Error);
  EXPECT_THROW(be.fusedEinsum(plan, e, {&a, &b, &bias}, out), Error);
}

} // namespace

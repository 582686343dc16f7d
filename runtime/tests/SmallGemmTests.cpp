//===- SmallGemmTests.cpp - The small-matrix f32 GEMM kernel --------------===//
//
// cpu::smallGemm against a scalar loop that sums each element of C in the
// order the kernel promises (k = 0, 1, ..., one fused multiply-add per
// term, from zero): the bits must be equal. Every transposition, sizes
// that are not multiples of the register tile or of 16 columns, n over
// several column panels, leading dimensions exact (the kernel then reads
// A and B where they lie) and wider (it copies them), inner and outer
// batches; C's gaps between rows must be left alone. Then the rule that
// picks the kernel and $WEFT_CPU_SMALL_GEMM.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/Error.h"

#include "../backends/cpu/SmallGemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace weft::rt;

namespace {

/// The plan's C by the loop the kernel's order describes.
void referenceGemm(const GemmPlan &p, const float *a, const float *b,
                   float *c) {
  for (int64_t o = 0; o < p.outerBatch; ++o)
    for (int64_t i = 0; i < p.batch; ++i) {
      const float *A = a + o * p.outerStrideA + i * p.strideA;
      const float *B = b + o * p.outerStrideB + i * p.strideB;
      float *C = c + o * p.outerStrideC + i * p.strideC;
      for (int64_t r = 0; r < p.m; ++r)
        for (int64_t j = 0; j < p.n; ++j) {
          float acc = 0.0f;
          for (int64_t q = 0; q < p.k; ++q) {
            float x = p.transA ? A[q * p.lda + r] : A[r * p.lda + q];
            float y = p.transB ? B[j * p.ldb + q] : B[q * p.ldb + j];
            acc = std::fma(x, y, acc);
          }
          C[r * p.ldc + j] = acc;
        }
    }
}

uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

/// A plan of `batch` x `outer` matrices of m x n x k, leading dimensions
/// `pad` wider than the rows, the matrices `gap` elements apart.
GemmPlan makePlan(int64_t m, int64_t n, int64_t k, bool ta, bool tb,
                  int64_t pad, int64_t batch, int64_t outer, int64_t gap) {
  GemmPlan p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.transA = ta;
  p.transB = tb;
  p.lda = (ta ? m : k) + pad;
  p.ldb = (tb ? k : n) + pad;
  p.ldc = n + pad;
  p.batch = batch;
  p.outerBatch = outer;
  p.strideA = (ta ? k : m) * p.lda + gap;
  p.strideB = (tb ? n : k) * p.ldb + gap;
  p.strideC = m * p.ldc + gap;
  p.outerStrideA = batch * p.strideA;
  p.outerStrideB = batch * p.strideB;
  p.outerStrideC = batch * p.strideC;
  return p;
}

int64_t extent(int64_t stride, int64_t outerStride, const GemmPlan &p) {
  return p.outerBatch * outerStride + p.batch * stride + stride;
}

TEST(SmallGemm, SameBitsAsTheOrderedLoop) {
  if (!cpu::smallGemmAvailable())
    GTEST_SKIP() << "this CPU has no AVX-512F";
  struct Size {
    int64_t m, n, k;
  };
  const Size sizes[] = {
      {1, 1, 1},       {3, 17, 5},    {24, 16, 7}, {25, 64, 32}, {64, 64, 32},
      {64, 32, 64},    {13, 33, 100}, {7, 100, 1}, {64, 65, 16}, {16, 128, 17},
      {128, 128, 128}, {9, 48, 31},   {40, 8, 40}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int cases = 0;
  for (Size s : sizes)
    for (int t = 0; t < 4; ++t)
      for (int64_t pad : {0, 3}) {
        const bool ta = t & 1, tb = t & 2;
        // Two inner x two outer matrices, 5 elements between them.
        GemmPlan p = makePlan(s.m, s.n, s.k, ta, tb, pad, 2, 2, 5);
        SCOPED_TRACE(p.str());
        std::vector<float> a(extent(p.strideA, p.outerStrideA, p)),
            b(extent(p.strideB, p.outerStrideB, p));
        for (float &x : a)
          x = u(rng);
        for (float &x : b)
          x = u(rng);
        const int64_t nc = extent(p.strideC, p.outerStrideC, p);
        // C's gaps (beyond n in a row, between matrices) hold a sentinel
        // that must survive.
        std::vector<float> got(nc, -7.25f), want(nc, -7.25f);
        cpu::smallGemm(p, a.data(), b.data(), got.data());
        referenceGemm(p, a.data(), b.data(), want.data());
        for (int64_t i = 0; i < nc; ++i)
          ASSERT_EQ(bitsOf(got[i]), bitsOf(want[i]))
              << "element " << i << ": " << got[i] << " vs " << want[i];
        ++cases;
      }
  EXPECT_EQ(cases, 13 * 4 * 2);
}

TEST(SmallGemm, AttentionLayoutsAsPlanned) {
  if (!cpu::smallGemmAvailable())
    GTEST_SKIP() << "this CPU has no AVX-512F";
  // P9's scores and probabilities times v at b=2, as planEinsum lays them
  // out: heads interleaved in q, k and v (rows 8 x 32 apart), an outer
  // batch over b.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const EinsumPlan plans[] = {
      planEinsum("bthk,bshk->bhts", {2, 64, 8, 32}, {2, 64, 8, 32}, DType::F32),
      planEinsum("bhts,bshk->bthk", {2, 8, 64, 64}, {2, 64, 8, 32}, DType::F32),
      planEinsum("bhtk,bhts->bhsk", {2, 8, 64, 32}, {2, 8, 64, 64},
                 DType::F32)};
  for (const EinsumPlan &e : plans) {
    SCOPED_TRACE(e.spec);
    ASSERT_FALSE(e.permuteA || e.permuteB || e.permuteOut || e.reduceA ||
                 e.reduceB);
    std::vector<float> a(numElements(e.aShape)), b(numElements(e.bShape));
    for (float &x : a)
      x = u(rng);
    for (float &x : b)
      x = u(rng);
    const float *A = a.data(), *B = b.data();
    if (e.swapOperands)
      std::swap(A, B);
    std::vector<float> got(numElements(e.outShape), -1.0f),
        want(got.size(), -2.0f);
    cpu::smallGemm(e.gemm, A, B, got.data());
    referenceGemm(e.gemm, A, B, want.data());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(bitsOf(got[i]), bitsOf(want[i])) << "element " << i;
  }
}

TEST(SmallGemm, EmptySumIsZero) {
  if (!cpu::smallGemmAvailable())
    GTEST_SKIP() << "this CPU has no AVX-512F";
  GemmPlan p = makePlan(3, 5, 0, false, false, 2, 2, 1, 0);
  p.lda = 1;
  p.ldb = p.n;
  std::vector<float> a(4, 1.0f), b(4, 1.0f);
  std::vector<float> c(extent(p.strideC, p.outerStrideC, p), -3.0f);
  cpu::smallGemm(p, a.data(), b.data(), c.data());
  for (int64_t i = 0; i < p.batch; ++i)
    for (int64_t r = 0; r < p.m; ++r)
      for (int64_t j = 0; j < p.ldc; ++j)
        EXPECT_EQ(c[i * p.strideC + r * p.ldc + j], j < p.n ? 0.0f : -3.0f);
}

TEST(SmallGemm, TheRule) {
  const int64_t mib = int64_t(1) << 20;
  // Attention at P9's b=16: 128 matrices, 4 MiB of A, B and C, beyond a
  // 1 MiB L2: the kernel's; within an L2 that held them, oneDNN's.
  const GemmPlan scores16 = planEinsum("bthk,bshk->bhts", {16, 64, 8, 32},
                                       {16, 64, 8, 32}, DType::F32)
                                .gemm;
  EXPECT_TRUE(cpu::smallGemmShape(scores16, mib));
  EXPECT_FALSE(cpu::smallGemmShape(scores16, 8 * mib));
  // T2's probabilities times v: 1 MiB in all, within a 1 MiB L2, not
  // within 512 KiB.
  const GemmPlan values =
      planEinsum("bhts,bhsk->bhtk", {4, 8, 64, 64}, {4, 8, 64, 32}, DType::F32)
          .gemm;
  EXPECT_FALSE(values.transA);
  EXPECT_FALSE(cpu::smallGemmShape(values, mib));
  EXPECT_TRUE(cpu::smallGemmShape(values, mib / 2));
  // Its backward with op(A) transposed: the kernel's at any L2 size.
  const GemmPlan grad =
      planEinsum("bhtk,bhts->bhsk", {4, 8, 64, 32}, {4, 8, 64, 64}, DType::F32)
          .gemm;
  EXPECT_TRUE(grad.transA);
  EXPECT_TRUE(cpu::smallGemmShape(grad, 64 * mib));
  // One matrix, a large one, or matrices beyond 2 x 64^3 multiply-adds:
  // oneDNN's, however little L2 there is.
  const GemmPlan one =
      planEinsum("td,dk->tk", {64, 32}, {32, 64}, DType::F32).gemm;
  EXPECT_FALSE(cpu::smallGemmShape(one, 0));
  const GemmPlan large =
      planEinsum("btd,df->btf", {16, 64, 256}, {256, 1024}, DType::F32).gemm;
  EXPECT_FALSE(cpu::smallGemmShape(large, 0));
  const GemmPlan cube = makePlan(128, 128, 64, false, false, 0, 4, 1, 0);
  EXPECT_FALSE(cpu::smallGemmShape(cube, 0));
  EXPECT_TRUE(
      cpu::smallGemmShape(makePlan(128, 64, 64, false, false, 0, 4, 1, 0), 0));
  // The modes: `always` takes any plan the kernel can run (one matrix, 2 x
  // 64^3 beyond, within L2), but not one beyond kSmallGemmMaxDim.
  using cpu::SmallGemmMode;
  EXPECT_TRUE(cpu::smallGemmRule(one, SmallGemmMode::Always, mib));
  EXPECT_TRUE(cpu::smallGemmRule(cube, SmallGemmMode::Always, mib));
  EXPECT_TRUE(cpu::smallGemmRule(values, SmallGemmMode::Always, mib));
  EXPECT_FALSE(cpu::smallGemmRule(large, SmallGemmMode::Always, mib));
  EXPECT_FALSE(cpu::smallGemmRule(values, SmallGemmMode::Auto, mib));
  EXPECT_TRUE(cpu::smallGemmRule(scores16, SmallGemmMode::Auto, mib));
  EXPECT_FALSE(cpu::smallGemmRule(scores16, SmallGemmMode::Never, mib));
}

TEST(SmallGemm, Setting) {
  using cpu::SmallGemmMode;
  EXPECT_EQ(cpu::parseSmallGemmMode(nullptr), SmallGemmMode::Auto);
  EXPECT_EQ(cpu::parseSmallGemmMode(""), SmallGemmMode::Auto);
  EXPECT_EQ(cpu::parseSmallGemmMode("auto"), SmallGemmMode::Auto);
  EXPECT_EQ(cpu::parseSmallGemmMode("always"), SmallGemmMode::Always);
  EXPECT_EQ(cpu::parseSmallGemmMode("never"), SmallGemmMode::Never);
  try {
    cpu::parseSmallGemmMode("often");
    ADD_FAILURE() << "no error for WEFT_CPU_SMALL_GEMM=often";
  } catch (const Error &err) {
    EXPECT_NE(std::string(err.what()).find("auto, always or never"),
              std::string::npos)
        << err.what();
  }
}

} // namespace

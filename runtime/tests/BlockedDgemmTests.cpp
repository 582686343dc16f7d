//===- BlockedDgemmTests.cpp - The blocked AVX-512 f64 GEMM ---------------===//
//
// cpu::blockedDgemm against a long double triple loop over every
// transposition, edge sizes (not multiples of the 6 x 16 tile, k across
// its blocks of 256) and leading dimensions wider than the matrix; and the
// backend's f64 GEMM (batched GemmPlans) on it where cpu::f64Blocked().
//
//===----------------------------------------------------------------------===//

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include "../backends/cpu/BlockedDgemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace weft::rt;

namespace {

TEST(BlockedDgemm, MatchesATripleLoop) {
  if (!cpu::blockedDgemmAvailable())
    GTEST_SKIP() << "this CPU has no AVX-512F";
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  struct Size {
    int64_t m, n, k;
  };
  for (Size s :
       {Size{1, 1, 1}, Size{6, 16, 1}, Size{7, 17, 3}, Size{13, 33, 300},
        Size{97, 5, 257}, Size{5, 2049, 4}, Size{64, 64, 512}, Size{3, 4, 0}}) {
    for (int t = 0; t < 4; ++t) {
      bool ta = t & 1, tb = t & 2;
      // Leading dimensions 3 wider than needed.
      int64_t lda = (ta ? s.m : s.k) + 3, ldb = (tb ? s.k : s.n) + 3,
              ldc = s.n + 3;
      std::vector<double> a((ta ? s.k : s.m) * lda + 1),
          b((tb ? s.n : s.k) * ldb + 1), c(s.m * ldc, 7.0);
      for (double &x : a)
        x = u(rng);
      for (double &x : b)
        x = u(rng);
      cpu::blockedDgemm(s.m, s.n, s.k, ta, tb, a.data(), lda, b.data(), ldb,
                        c.data(), ldc);
      double worst = 0;
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t j = 0; j < s.n; ++j) {
          long double want = 0;
          for (int64_t p = 0; p < s.k; ++p)
            want +=
                static_cast<long double>(ta ? a[p * lda + i] : a[i * lda + p]) *
                (tb ? b[j * ldb + p] : b[p * ldb + j]);
          worst = std::max(
              worst, static_cast<double>(std::fabs(c[i * ldc + j] - want)));
        }
      // Each of k products rounded, and k sums: about k * 2^-53 absolute
      // for entries below 1.
      EXPECT_LE(worst, 1e-15 * static_cast<double>(s.k + 1))
          << s.m << "x" << s.n << "x" << s.k << " transA " << ta << " transB "
          << tb;
      // Padding columns between n and ldc are never written.
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t j = s.n; j < ldc; ++j)
          ASSERT_EQ(c[i * ldc + j], 7.0);
    }
  }
}

TEST(BlockedDgemm, BackendRunsBatchedF64Einsums) {
  // An einsum with batch letters (one strided batch level and an outer
  // one), on whichever f64 GEMM this machine runs, against a double loop.
  CpuBackend be(Mesh({{"x", 1}}), 0);
  EinsumPlan plan =
      planEinsum("bhtk,bhsk->bhts", {2, 3, 9, 20}, {2, 3, 7, 20}, DType::F64);
  Tensor a = be.empty(DType::F64, plan.aShape),
         b = be.empty(DType::F64, plan.bShape),
         out = be.empty(DType::F64, plan.outShape);
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.ptr<double>()[i] = std::sin(0.1 * static_cast<double>(i));
  for (int64_t i = 0; i < b.numElements(); ++i)
    b.ptr<double>()[i] = std::cos(0.07 * static_cast<double>(i));
  be.einsum(plan, a, &b, out);
  double worst = 0;
  for (int64_t bb = 0; bb < 2; ++bb)
    for (int64_t h = 0; h < 3; ++h)
      for (int64_t t = 0; t < 9; ++t)
        for (int64_t s = 0; s < 7; ++s) {
          double want = 0;
          for (int64_t k = 0; k < 20; ++k)
            want += a.ptr<double>()[((bb * 3 + h) * 9 + t) * 20 + k] *
                    b.ptr<double>()[((bb * 3 + h) * 7 + s) * 20 + k];
          double got = out.ptr<double>()[((bb * 3 + h) * 9 + t) * 7 + s];
          worst = std::max(worst, std::fabs(got - want));
        }
  EXPECT_LE(worst, 1e-13) << (cpu::f64Blocked() ? "blocked" : "openblas");
}

} // namespace

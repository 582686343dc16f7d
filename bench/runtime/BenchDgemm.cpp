//===- BenchDgemm.cpp - OpenBLAS's f64 GEMM against the blocked kernel ----===//
//
// cblas_dgemm of the linked OpenBLAS (whatever core it picks: no
// OPENBLAS_CORETYPE is set) against cpu::blockedDgemm (BlockedDgemm.h) on
// square and P1-like shapes and every transposition, alternating the two
// in each of 9 rounds, single-threaded; prints GFLOP/s of the fastest
// round of each and the ratio of their times (the decision in
// docs/runtime.md, "f64 GEMMs"). Not a test.
//
//   OPENBLAS_NUM_THREADS=1 taskset -c 1 build/runtime/bench/weft-rt-bench-dgemm
//
//===----------------------------------------------------------------------===//

#include "../../runtime/backends/cpu/BlockedDgemm.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace weft::rt;

int main() {
  if (!cpu::blockedDgemmAvailable()) {
    std::printf("this CPU has no AVX-512F: the blocked kernel does not run\n");
    return 0;
  }
  struct Shape {
    int m, n, k;
    bool ta, tb;
  };
  const Shape shapes[] = {
      {128, 128, 128, false, false},   {256, 256, 256, false, false},
      {512, 512, 512, false, false},   {256, 1024, 256, false, false},
      {1024, 256, 1024, false, false}, {256, 256, 1024, true, false},
      {256, 1024, 256, false, true},   {100, 37, 70, true, true}};
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  using Clock = std::chrono::steady_clock;
  for (const Shape &s : shapes) {
    std::vector<double> a(static_cast<size_t>(s.m) * s.k),
        b(static_cast<size_t>(s.k) * s.n), c1(static_cast<size_t>(s.m) * s.n),
        c2(c1.size());
    for (double &x : a)
      x = u(rng);
    for (double &x : b)
      x = u(rng);
    int lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
    double tBlas = 1e30, tOwn = 1e30;
    for (int round = 0; round < 9; ++round) {
      auto t0 = Clock::now();
      cblas_dgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans,
                  s.tb ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0,
                  a.data(), lda, b.data(), ldb, 0.0, c1.data(), s.n);
      auto t1 = Clock::now();
      cpu::blockedDgemm(s.m, s.n, s.k, s.ta, s.tb, a.data(), lda, b.data(), ldb,
                        c2.data(), s.n);
      auto t2 = Clock::now();
      tBlas = std::min(tBlas, std::chrono::duration<double>(t1 - t0).count());
      tOwn = std::min(tOwn, std::chrono::duration<double>(t2 - t1).count());
    }
    double diff = 0;
    for (size_t i = 0; i < c1.size(); ++i)
      diff = std::max(diff, std::fabs(c1[i] - c2[i]));
    double gf = 2.0 * s.m * s.n * s.k * 1e-9;
    std::printf("%4d x %4d x %4d%s%s: OpenBLAS %6.1f GFLOP/s, blocked %6.1f "
                "GFLOP/s, OpenBLAS time / blocked time %5.2f (max diff %.1e)\n",
                s.m, s.n, s.k, s.ta ? " tA" : "", s.tb ? " tB" : "", gf / tBlas,
                gf / tOwn, tBlas / tOwn, diff);
  }
  std::printf("OpenBLAS core %s; %s\n", cpu::openblasCoreName().c_str(),
              cpu::gemmBanner().c_str());
  return 0;
}

//===- BenchGemmEpilogues.cpp - oneDNN post-ops against a pass after ------===//
//
// Does folding an epilogue into oneDNN's matmul as post-ops (what
// `weft.fused_einsum` runs on the CPU) beat the plain matmul followed by
// one pass over C? For the GEMMs that carry epilogues in P9 (relu, the
// residual), T1 (a bias, bias + relu) and T2, on the CPU at hand (issue 32:
// on an AVX2 CPU, T1's step ran faster unfused). Each plan and epilogue
// runs both ways over 8 buffer sets in turn, alternating, median of 15;
// prints GFLOP/s (of the GEMM's 2mnk) and the ratio. Not a test.
//
//   OPENBLAS_NUM_THREADS=1 taskset -c 1
//   build/runtime/bench/weft-rt-bench-gemm-epilogues
//
//===----------------------------------------------------------------------===//

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include "../../runtime/backends/cpu/OneDnnGemm.h"

#include "BenchUtil.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace weft::rt;

namespace {

struct Free {
  void operator()(float *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], Free>;

/// 64-byte aligned, as the runtime allocates, filled with values in
/// [-1, 1).
Buffer alignedRandom(int64_t n, std::mt19937 &rng) {
  const std::size_t bytes =
      (static_cast<std::size_t>(n) * sizeof(float) + 63) / 64 * 64;
  Buffer b(static_cast<float *>(std::aligned_alloc(64, bytes)));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i)
    b[static_cast<std::size_t>(i)] = u(rng);
  return b;
}

struct Case {
  const char *label;
  int64_t m, n, k;
  GemmEpilogue epi;
};

GemmEpilogue make(bool bias, bool relu, bool sum) {
  GemmEpilogue e;
  if (bias)
    e.bias = GemmEpilogue::Bias::PerColumn;
  if (relu)
    e.act = GemmEpilogue::Act::Relu;
  e.accumulate = sum;
  return e;
}

/// One row of the pass, for one combination of the epilogue's stages (the
/// stages are template arguments, so each loop is branch-free and the
/// compiler vectorizes it).
template <bool Bias, bool Relu, bool Residual>
void apartRows(float *c, const float *bias, const float *residual, int64_t m,
               int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * n;
    const float *res = Residual ? residual + i * n : nullptr;
    for (int64_t j = 0; j < n; ++j) {
      float v = row[j];
      if constexpr (Bias)
        v += bias[j];
      if constexpr (Relu)
        v = v > 0.0f ? v : 0.0f;
      if constexpr (Residual)
        v += res[j];
      row[j] = v;
    }
  }
}

/// The epilogue as one pass over C (m x n, dense) after the plain GEMM.
void apart(const GemmEpilogue &e, float *c, const float *bias,
           const float *residual, int64_t m, int64_t n) {
  int stages = (e.bias != GemmEpilogue::Bias::None ? 4 : 0) |
               (e.act == GemmEpilogue::Act::Relu ? 2 : 0) | (residual ? 1 : 0);
  switch (stages) {
  case 1:
    return apartRows<false, false, true>(c, bias, residual, m, n);
  case 2:
    return apartRows<false, true, false>(c, bias, residual, m, n);
  case 3:
    return apartRows<false, true, true>(c, bias, residual, m, n);
  case 4:
    return apartRows<true, false, false>(c, bias, residual, m, n);
  case 5:
    return apartRows<true, false, true>(c, bias, residual, m, n);
  case 6:
    return apartRows<true, true, false>(c, bias, residual, m, n);
  case 7:
    return apartRows<true, true, true>(c, bias, residual, m, n);
  default:
    return;
  }
}

} // namespace

int main() {
  if (!onednn::available()) {
    std::printf("weft-rt-bench-gemm-epilogues: this build has no oneDNN; "
                "nothing to compare\n");
    return 0;
  }
  onednn::setThreads(1);
  std::printf("oneDNN %s, ISA %s, 1 thread; GFLOP/s of 2mnk, median of 15, "
              "8 buffer sets\n",
              onednn::version().c_str(), onednn::isa().c_str());
  std::printf("post-ops: one matmul with the epilogue as oneDNN post-ops "
              "(the residual copied into C first, as the runtime does)\n"
              "apart: the plain matmul, then one pass over C\n"
              "ta/tp: time apart / time with post-ops (above 1: post-ops "
              "faster)\n\n");
  const Case cases[] = {
      {"T1r2:bd,dh->bh +bias", 1024, 2048, 256, make(true, false, false)},
      {"T1r2:bd,dh->bh +bias,relu", 1024, 2048, 256, make(true, true, false)},
      {"T1r2:bh,hd->bd +bias", 1024, 256, 2048, make(true, false, false)},
      {"T1:bh,hd->bd +bias", 2048, 256, 2048, make(true, false, false)},
      {"P9b16:btd,df->btf +relu", 1024, 1024, 256, make(false, true, false)},
      {"P9b16:btf,fd->btd +res", 1024, 256, 1024, make(false, false, true)},
      {"P9b4:btf,fd->btd +res", 256, 256, 1024, make(false, false, true)},
      {"T2:btf,fd->btd +res", 512, 128, 512, make(false, false, true)},
      {"bias 1024x1024x256", 1024, 1024, 256, make(true, false, false)},
      {"bias,res 1024x1024x256", 1024, 1024, 256, make(true, false, true)},
  };
  std::printf("%-30s %-18s %9s %9s %7s  %s\n", "plan + epilogue", "m x n x k",
              "post-ops", "apart", "ta/tp", "oneDNN kernel");
  std::mt19937 rng(7);
  constexpr int kSets = 8;
  for (const Case &cs : cases) {
    GemmPlan p;
    p.m = cs.m;
    p.n = cs.n;
    p.k = cs.k;
    p.lda = cs.k;
    p.ldb = cs.n;
    p.ldc = cs.n;
    std::string why;
    auto fused = onednn::Matmul::create(p, cs.epi, why);
    auto plain = onednn::Matmul::create(p, why);
    if (!fused || !plain) {
      std::printf("%-30s oneDNN has no kernel: %s\n", cs.label, why.c_str());
      continue;
    }
    std::vector<Buffer> A, B, C, R;
    for (int s = 0; s < kSets; ++s) {
      A.push_back(alignedRandom(p.m * p.k, rng));
      B.push_back(alignedRandom(p.k * p.n, rng));
      C.push_back(alignedRandom(p.m * p.n, rng));
      R.push_back(alignedRandom(p.m * p.n, rng));
    }
    Buffer bias = alignedRandom(p.n, rng);
    int s1 = 0, s2 = 0;
    const std::size_t cBytes =
        static_cast<std::size_t>(p.m * p.n) * sizeof(float);
    auto runFused = [&] {
      int s = s1++ % kSets;
      if (cs.epi.accumulate)
        std::memcpy(C[s].get(), R[s].get(), cBytes);
      fused->run(A[s].get(), B[s].get(), C[s].get(), bias.get());
    };
    auto runApart = [&] {
      int s = s2++ % kSets;
      plain->run(A[s].get(), B[s].get(), C[s].get());
      apart(cs.epi, C[s].get(), bias.get(),
            cs.epi.accumulate ? R[s].get() : nullptr, p.m, p.n);
    };
    auto [tf, ta] = weft::bench::medianSeconds(runFused, runApart, 15);
    const double flops = 2.0 * static_cast<double>(p.m * p.n * p.k);
    char shape[64];
    std::snprintf(shape, sizeof shape, "%lld x %lld x %lld",
                  static_cast<long long>(p.m), static_cast<long long>(p.n),
                  static_cast<long long>(p.k));
    std::printf("%-30s %-18s %9.1f %9.1f %7.2f  %s\n", cs.label, shape,
                flops / tf / 1e9, flops / ta / 1e9, ta / tf,
                fused->impl().c_str());
  }
  return 0;
}

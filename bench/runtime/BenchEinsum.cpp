//===- BenchEinsum.cpp - Runtime einsum vs direct cblas_sgemm -------------===//
//
// For each shape, times the runtime's planned einsum and the equivalent
// direct cblas_sgemm loop on the same buffers (median of repeated runs) and
// prints the ratio runtime/direct. Target: <= 1.05 for GEMMs > 256^3.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Backend.h"
#include "weft/rt/EinsumPlan.h"
#include "weft/rt/Profiler.h"

#include "BenchUtil.h"

#include <algorithm>
#include <cblas.h>
#include <cstdio>
#include <functional>
#include <vector>

using namespace weft::rt;

namespace {

struct BenchCase {
  const char *name;
  const char *spec;
  Shape a, b;
  // The direct call: batch x sgemm(transA, transB, m, n, k, lda, ldb, ldc)
  // written by hand for the layout, with batch strides.
  int batch, m, n, k, lda, ldb, ldc;
  bool ta, tb;
  long sa, sb, sc;
};

} // namespace

int main() {
  std::printf("openblas core: %s, threads: %d\n", openblas_get_corename(),
              openblas_get_num_threads());
  auto be = createBackend(BackendKind::Cpu, Mesh({{"x", 1}}), 0);
  const std::vector<BenchCase> cases = {
      {"mlp up   [bt=256,d=256]x[256,1024]",
       "btd,df->btf",
       {4, 64, 256},
       {256, 1024},
       1,
       256,
       1024,
       256,
       256,
       1024,
       1024,
       false,
       false,
       0,
       0,
       0},
      {"mlp down [256,1024]x[1024,256]",
       "btf,fd->btd",
       {4, 64, 1024},
       {1024, 256},
       1,
       256,
       256,
       1024,
       1024,
       256,
       256,
       false,
       false,
       0,
       0,
       0},
      {"square 512^3",
       "mk,kn->mn",
       {512, 512},
       {512, 512},
       1,
       512,
       512,
       512,
       512,
       512,
       512,
       false,
       false,
       0,
       0,
       0},
      // Attention scores with q, k already in [b,h,t,k] layout: batch 32.
      {"attn bhtk,bhsk->bhts 4x8x64x64 k=32",
       "bhtk,bhsk->bhts",
       {4, 8, 64, 32},
       {4, 8, 64, 32},
       32,
       64,
       64,
       32,
       32,
       32,
       64,
       false,
       true,
       64 * 32,
       64 * 32,
       64 * 64},
      // The same shape from [b,t,h,k] operands (Megatron layout): the
      // runtime permutes, the direct call here uses the layout directly
      // with a loop over (b, h) since no single batch stride exists.
      {"attn bthk,bshk->bhts (permuted)",
       "bthk,bshk->bhts",
       {4, 64, 8, 32},
       {4, 64, 8, 32},
       0,
       64,
       64,
       32,
       8 * 32,
       8 * 32,
       64,
       false,
       true,
       0,
       0,
       0},
  };
  std::printf("%-40s %12s %12s %8s %9s\n", "case", "runtime(ms)", "direct(ms)",
              "ratio", "GFLOP/s");
  for (const auto &c : cases) {
    Tensor a = be->zeros(DType::F32, c.a), b = be->zeros(DType::F32, c.b);
    for (int64_t i = 0; i < a.numElements(); ++i)
      a.ptr<float>()[i] = static_cast<float>(i % 7) * 0.1f;
    for (int64_t i = 0; i < b.numElements(); ++i)
      b.ptr<float>()[i] = static_cast<float>(i % 5) * 0.1f;
    EinsumPlan plan = planEinsum(c.spec, c.a, c.b, DType::F32);
    Tensor out = be->empty(DType::F32, plan.outShape);
    double flops = static_cast<double>(plan.flops);
    int reps = flops > 1e8 ? 41 : 201;
    const float *A = a.ptr<float>(), *B = b.ptr<float>();
    float *C = out.ptr<float>();
    std::function<void()> direct;
    if (c.batch > 0) {
      direct = [&] {
        for (int i = 0; i < c.batch; ++i)
          cblas_sgemm(CblasRowMajor, c.ta ? CblasTrans : CblasNoTrans,
                      c.tb ? CblasTrans : CblasNoTrans, c.m, c.n, c.k, 1.0f,
                      A + i * c.sa, c.lda, B + i * c.sb, c.ldb, 0.0f,
                      C + i * c.sc, c.ldc);
      };
    } else { // [b,t,h,k] x [b,s,h,k] -> [b,h,t,s], loop over b and h
      direct = [&] {
        for (int bb = 0; bb < 4; ++bb)
          for (int h = 0; h < 8; ++h)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 64, 64, 32,
                        1.0f, A + (bb * 64 * 8 + h) * 32, 8 * 32,
                        B + (bb * 64 * 8 + h) * 32, 8 * 32, 0.0f,
                        C + (bb * 8 + h) * 64 * 64, 64);
      };
    }
    auto [tr, td] = weft::bench::medianSeconds(
        [&] { be->einsum(plan, a, &b, out); }, direct, reps);
    std::printf("%-40s %12.3f %12.3f %8.3f %9.2f\n", c.name, tr * 1e3, td * 1e3,
                tr / td, flops / tr * 1e-9);
  }
  std::printf("plans:\n");
  for (const auto &c : cases)
    std::printf("%s", planEinsum(c.spec, c.a, c.b, DType::F32).str().c_str());
  return 0;
}

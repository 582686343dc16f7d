//===- BenchGemmLibs.cpp - oneDNN against OpenBLAS on the programs' GEMMs -===//
//
// The GEMM plans of P1, P6, P9 (b=4 and b=16) and of T2's and T1's
// training steps (T1 also on 2 ranks), as weftc plans them
// (gemm-shapes.txt, made by gemm_shapes.py from weftc --emit=cpp), each
// run on oneDNN's matmul primitive and on cblas_sgemm (matrix by matrix,
// as the OpenBLAS path runs a batch), one thread each.
// Each plan runs over 8 different A, B and C buffers (64-byte aligned, as
// the runtime allocates them) in turn, as a
// program's GEMMs see their operands ($WEFT_BENCH_GEMM_SETS=1 runs one,
// which then stays in L2/L3); oneDNN, OpenBLAS and weft's small-matrix
// kernel (SmallGemm.h, where it can run the plan) alternate, median of 15
// rounds. Prints GFLOP/s, the fraction of the single-core f32 peak, the
// kernel oneDNN picked and the OpenBLAS core, which of them the runtime
// runs, and the largest difference of the others' results from
// OpenBLAS's. The peak is measured: 12 independent FMA chains on the widest
// vector the CPU has (and the nominal one from /proc/cpuinfo's MHz is
// printed beside it: 2 FMAs per cycle, 1 of 512 bits on AMD's Zen 4).
// Not a test.
//
//   taskset -c 1 build/runtime/bench/weft-rt-bench-gemm-libs
//   (or with a plans file as the argument; default gemm-shapes.txt)
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Config.h"
#include "weft/rt/EinsumPlan.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include "../../runtime/backends/cpu/OneDnnGemm.h"
#include "../../runtime/backends/cpu/SmallGemm.h"

#include <algorithm>
#include <cblas.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <immintrin.h>
#include <new>
#include <sstream>
#include <string>
#include <vector>

using namespace weft::rt;

namespace {

/// Flops per second of 12 independent FMA chains of VEC for about 0.3 s
/// (one function per ISA: a lambda would not take the target's ISA).
#define WEFT_FMA_RATE(NAME, TARGET, VEC, LANES, SET1, FMA)                     \
  TARGET double NAME() {                                                       \
    VEC acc[12];                                                               \
    for (auto &a : acc)                                                        \
      a = SET1(1.0f);                                                          \
    const VEC one = SET1(1.0f), tiny = SET1(1e-9f);                            \
    long iters = 0;                                                            \
    double t0 = wallSeconds(), t = t0;                                         \
    while (t - t0 < 0.3) {                                                     \
      for (int r = 0; r < 1000; ++r)                                           \
        for (int i = 0; i < 12; ++i)                                           \
          acc[i] = FMA(acc[i], one, tiny);                                     \
      iters += 1000;                                                           \
      t = wallSeconds();                                                       \
    }                                                                          \
    VEC s = acc[0];                                                            \
    for (int i = 1; i < 12; ++i)                                               \
      s = FMA(s, one, acc[i]);                                                 \
    float sink[LANES];                                                         \
    std::memcpy(sink, &s, sizeof sink);                                        \
    if (sink[0] == 12345.0f)                                                   \
      std::printf(" ");                                                        \
    return static_cast<double>(iters) * 12 * LANES * 2 / (t - t0);             \
  }
WEFT_FMA_RATE(peak512, __attribute__((target("avx512f"))), __m512, 16,
              _mm512_set1_ps, _mm512_fmadd_ps)
WEFT_FMA_RATE(peak256, __attribute__((target("avx2,fma"))), __m256, 8,
              _mm256_set1_ps, _mm256_fmadd_ps)
#undef WEFT_FMA_RATE

double cpuMhz() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("cpu MHz", 0) == 0)
      return std::atof(line.substr(line.find(':') + 1).c_str());
  return 0;
}

std::string cpuModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, name, family, model;
  while (std::getline(f, line)) {
    auto val = [&] { return line.substr(line.find(':') + 2); };
    if (name.empty() && line.rfind("model name", 0) == 0)
      name = val();
    else if (family.empty() && line.rfind("cpu family", 0) == 0)
      family = val();
    else if (model.empty() && line.rfind("model\t", 0) == 0)
      model = val();
  }
  return name + " (family " + family + " model " + model + ")";
}

/// One past the last element a plan's operand touches.
int64_t span(int64_t outer, int64_t outerStride, int64_t batch, int64_t stride,
             int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride) {
  return (outer - 1) * outerStride + (batch - 1) * stride +
         (rows - 1) * rowStride + (cols - 1) * colStride + 1;
}

/// The runtime's placement of operands (BufferPool, Tensor: 64-byte
/// aligned). A std::vector's large buffers are 16 bytes past a page, or
/// wherever malloc's heap puts them, and oneDNN 2.6's AVX2 GEMM picks
/// another kernel for B by its alignment (docs/runtime.md, "AVX2 CPUs"):
/// the benchmark must see what a program sees.
template <typename T> struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <typename U> Aligned64(const Aligned64<U> &) {}
  T *allocate(std::size_t n) {
    const std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, bytes ? bytes : 64);
    if (!p)
      throw std::bad_alloc();
    return static_cast<T *>(p);
  }
  void deallocate(T *p, std::size_t) { std::free(p); }
  template <typename U> bool operator==(const Aligned64<U> &) const {
    return true;
  }
};
using Buffer = std::vector<float, Aligned64<float>>;

struct Row {
  std::string label;
  GemmPlan p;
};

std::vector<Row> readPlans(const std::string &path) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::vector<Row> rows;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream is(line);
    Row r;
    int ta, tb;
    GemmPlan &p = r.p;
    is >> r.label >> p.m >> p.n >> p.k >> ta >> tb >> p.lda >> p.ldb >> p.ldc >>
        p.strideA >> p.strideB >> p.strideC >> p.batch >> p.outerBatch >>
        p.outerStrideA >> p.outerStrideB >> p.outerStrideC;
    if (!is) {
      std::fprintf(stderr, "%s: malformed line: %s\n", path.c_str(),
                   line.c_str());
      std::exit(1);
    }
    p.transA = ta;
    p.transB = tb;
    rows.push_back(r);
  }
  return rows;
}

} // namespace

int main(int argc, char **argv) {
  std::string path = argc > 1 ? argv[1] : WEFT_BENCH_GEMM_SHAPES;
  std::vector<Row> rows = readPlans(path);
  const char *setsEnv = std::getenv("WEFT_BENCH_GEMM_SETS");
  char *setsEnd = nullptr;
  const long setsValue = setsEnv ? std::strtol(setsEnv, &setsEnd, 10) : 8;
  const int kSets = static_cast<int>(setsValue);
  if (setsValue < 1 || setsValue > 64 || (setsEnv && *setsEnd != 0)) {
    std::fprintf(stderr, "WEFT_BENCH_GEMM_SETS='%s': expected 1 to 64\n",
                 setsEnv);
    return 1;
  }
  openblas_set_num_threads(1);
  onednn::setThreads(1);

  const cpu::SimdLevel level = cpu::cpuSimdLevel();
  double peak = level == cpu::SimdLevel::Avx512 ? peak512()
                : level >= cpu::SimdLevel::Avx2 ? peak256()
                                                : 0;
  const int lanes = level == cpu::SimdLevel::Avx512 ? 16
                    : level >= cpu::SimdLevel::Avx  ? 8
                                                    : 4;
  const double mhz = cpuMhz();
  const std::string model = cpuModel();
  std::printf("cpu: %s, %s; /proc/cpuinfo %.0f MHz\n", model.c_str(),
              cpu::simdLevelName(level), mhz);
  // AMD's Zen 4 (family 25) runs a 512-bit FMA as two 256-bit halves: one
  // per cycle, where Intel's AVX-512 server cores issue two.
  const bool zen4 = level == cpu::SimdLevel::Avx512 &&
                    model.find("AMD") != std::string::npos &&
                    model.find("(family 25 ") != std::string::npos;
  const int fmaUnits = zen4 ? 1 : 2;
  std::printf("f32 peak, one core: measured %.1f GFLOP/s (12 FMA chains of "
              "%d lanes); nominal %.1f GFLOP/s (%.0f MHz x %d lanes x 2 "
              "flops x %d FMA%s per cycle%s); the %%peak columns use the "
              "measured one\n",
              peak / 1e9, lanes, mhz * 1e6 * lanes * 2 * fmaUnits / 1e9, mhz,
              lanes, fmaUnits, fmaUnits == 1 ? "" : "s",
              zen4 ? ", Zen 4's 512-bit FMAs are two 256-bit halves" : "");
  std::printf(
      "OpenBLAS: %s core %s (%s kernels), 1 thread\n",
      cpu::openblasVersion().c_str(), cpu::openblasCoreName().c_str(),
      cpu::simdLevelName(cpu::openblasCoreLevel(cpu::openblasCoreName())));
  if (!onednn::available()) {
    std::printf("oneDNN: not in this build; OpenBLAS only\n");
  } else {
    std::printf("oneDNN: %s, ISA %s, 1 thread\n", onednn::version().c_str(),
                onednn::isa().c_str());
  }
  std::printf("runtime default for f32: %s\n\n",
              cpu::gemmLibraryName(cpu::f32GemmLibrary()));
  std::printf("small: weft's small-matrix kernel (SmallGemm.h, ISA %s), "
              "timed where it can run the plan (m, n, k <= %lld)\n",
              cpu::smallGemmIsaName(),
              static_cast<long long>(cpu::kSmallGemmMaxDim));
  std::printf("runs: what the runtime's f32 GEMM runs for the plan by "
              "default\n\n");
  std::printf("%-26s %-30s %7s %8s %7s %6s %6s %6s %6s  %-6s %s\n", "plan",
              "m x n x k [batch]", "oneDNN", "OpenBLAS", "small", "ratio",
              "%peak", "%peak", "%peak", "runs", "oneDNN kernel");
  std::printf("%-26s %-30s %7s %8s %7s %6s %6s %6s %6s\n", "", "", "GFLOP/s",
              "GFLOP/s", "GFLOP/s", "d/b", "dnnl", "blas", "small");

  for (const Row &r : rows) {
    const GemmPlan &p = r.p;
    int64_t na = p.transA ? span(p.outerBatch, p.outerStrideA, p.batch,
                                 p.strideA, p.m, p.k, 1, p.lda)
                          : span(p.outerBatch, p.outerStrideA, p.batch,
                                 p.strideA, p.m, p.k, p.lda, 1);
    int64_t nb = p.transB ? span(p.outerBatch, p.outerStrideB, p.batch,
                                 p.strideB, p.k, p.n, 1, p.ldb)
                          : span(p.outerBatch, p.outerStrideB, p.batch,
                                 p.strideB, p.k, p.n, p.ldb, 1);
    int64_t nc = span(p.outerBatch, p.outerStrideC, p.batch, p.strideC, p.m,
                      p.n, p.ldc, 1);
    std::vector<Buffer> A(kSets), B(kSets), C(kSets), D(kSets), E(kSets);
    for (int s = 0; s < kSets; ++s) {
      A[s].resize(na);
      B[s].resize(nb);
      C[s].assign(nc, 0.0f);
      D[s].assign(nc, 0.0f);
      E[s].assign(nc, 0.0f);
      for (int64_t i = 0; i < na; ++i)
        A[s][i] = static_cast<float>((i * 7 + s) % 13) / 13.0f - 0.5f;
      for (int64_t i = 0; i < nb; ++i)
        B[s][i] = static_cast<float>((i * 5 + s) % 11) / 11.0f - 0.5f;
    }
    std::string why;
    auto mm = onednn::Matmul::create(p, why);
    auto dnnl = [&] {
      for (int s = 0; s < kSets; ++s)
        mm->run(A[s].data(), B[s].data(), C[s].data());
    };
    auto blas = [&] {
      for (int s = 0; s < kSets; ++s)
        for (int64_t o = 0; o < p.outerBatch; ++o)
          for (int64_t i = 0; i < p.batch; ++i)
            cblas_sgemm(
                CblasRowMajor, p.transA ? CblasTrans : CblasNoTrans,
                p.transB ? CblasTrans : CblasNoTrans, p.m, p.n, p.k, 1.0f,
                A[s].data() + o * p.outerStrideA + i * p.strideA, p.lda,
                B[s].data() + o * p.outerStrideB + i * p.strideB, p.ldb, 0.0f,
                D[s].data() + o * p.outerStrideC + i * p.strideC, p.ldc);
    };
    const bool canSmall = cpu::smallGemmAvailable() &&
                          cpu::smallGemmRule(p, cpu::SmallGemmMode::Always, 0);
    auto small = [&] {
      for (int s = 0; s < kSets; ++s)
        cpu::smallGemm(p, A[s].data(), B[s].data(), E[s].data());
    };
    const double flops = 2.0 * p.m * p.n * p.k * p.batch * p.outerBatch * kSets;
    // Rounds of about 20 ms.
    double t0 = wallSeconds();
    blas();
    double one = std::max(wallSeconds() - t0, 1e-7);
    int reps = std::max(1, static_cast<int>(2e-2 / one));
    std::vector<double> td, tb, ts;
    if (mm)
      dnnl();
    if (canSmall)
      small();
    for (int round = 0; round < 15; ++round) {
      double a = wallSeconds();
      if (mm)
        for (int i = 0; i < reps; ++i)
          dnnl();
      double b = wallSeconds();
      for (int i = 0; i < reps; ++i)
        blas();
      double c = wallSeconds();
      if (canSmall)
        for (int i = 0; i < reps; ++i)
          small();
      double d = wallSeconds();
      td.push_back((b - a) / reps);
      tb.push_back((c - b) / reps);
      ts.push_back((d - c) / reps);
    }
    std::sort(td.begin(), td.end());
    std::sort(tb.begin(), tb.end());
    std::sort(ts.begin(), ts.end());
    double gd = mm ? flops / td[7] / 1e9 : 0, gb = flops / tb[7] / 1e9;
    double gs = canSmall ? flops / ts[7] / 1e9 : 0;
    // Both against OpenBLAS's result (C's gaps hold zeros in all three).
    double maxDiff = 0;
    for (int64_t i = 0; i < nc; ++i) {
      if (mm)
        maxDiff = std::max<double>(maxDiff, std::fabs(C[0][i] - D[0][i]));
      if (canSmall)
        maxDiff = std::max<double>(maxDiff, std::fabs(E[0][i] - D[0][i]));
    }
    // The runtime's own choice (CpuBackend::gemmImpl), shortened.
    const std::string impl = CpuBackend::gemmImpl(p);
    const char *runs = impl.rfind("weft small", 0) == 0 ? "small"
                       : impl.rfind("onednn", 0) == 0   ? "dnnl"
                                                        : "blas";
    char shape[64];
    std::snprintf(shape, sizeof shape, "%lld x %lld x %lld [%lld]%s%s",
                  static_cast<long long>(p.m), static_cast<long long>(p.n),
                  static_cast<long long>(p.k),
                  static_cast<long long>(p.batch * p.outerBatch),
                  p.transA ? " tA" : "", p.transB ? " tB" : "");
    std::printf("%-26s %-30s %7.1f %8.1f %7.1f %6.2f %6.1f %6.1f %6.1f  %-6s "
                "%s%s (max diff %.1e)\n",
                r.label.c_str(), shape, gd, gb, gs, mm ? gd / gb : 0.0,
                peak > 0 ? 100 * gd * 1e9 / peak : 0.0,
                peak > 0 ? 100 * gb * 1e9 / peak : 0.0,
                peak > 0 ? 100 * gs * 1e9 / peak : 0.0, runs,
                mm ? mm->impl().c_str() : ("none: " + why).c_str(),
                mm && !mm->batched() ? " per matrix" : "", maxDiff);
  }
  return 0;
}

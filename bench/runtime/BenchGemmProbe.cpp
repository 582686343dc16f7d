//===- BenchGemmProbe.cpp - Would a GEMM of our own beat OpenBLAS? --------===//
//
// A measured design decision (docs/performance.md, "A GEMM of our own"),
// kept so it can be re-run on another CPU: a packed AVX-512 sgemm written
// the textbook way (BLIS loops, a 12 x 32 register tile of 24 zmm
// accumulators, B packed in 32-wide panels of 256 k, A read in place,
// C prefetched before its tile is stored, beta = 0 without a memset)
// against cblas_sgemm on the shapes of P1, P6 and P9 (row-major NN).
//
// Each shape runs over 8 different A, B and C buffers in turn, as a
// program's GEMMs see their operands (not the same hot buffers every
// call); median of 15 rounds per library, alternating. Prints the max
// element difference to OpenBLAS as a sanity check. Not a test: nothing
// passes or fails on timing. Needs AVX-512F; says so and exits 0 without.
//
//   OPENBLAS_NUM_THREADS=1 taskset -c 1
//   build/runtime/bench/weft-rt-bench-gemm-probe
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cblas.h>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <immintrin.h>
#include <vector>

namespace {

constexpr int MR = 12, NR = 32;
constexpr int64_t KC = 256, MC = 96, NC = 512;

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// C[mr x nr] (+)= A[mr x kc] B[kc x nr]: A's element (i, k) at
/// A[i * rsA + k * csA], B packed (NR floats per k, 64-byte aligned).
__attribute__((target("avx512f,fma"))) void
tile(int64_t kc, const float *A, int64_t rsA, int64_t csA, const float *B,
     float *C, int64_t ldc, int mr, int nr, bool accumulate) {
  __m512 c0[MR], c1[MR];
  for (int i = 0; i < MR; ++i) {
    c0[i] = _mm512_setzero_ps();
    c1[i] = _mm512_setzero_ps();
  }
  for (int i = 0; i < mr; ++i) {
    _mm_prefetch(reinterpret_cast<const char *>(C + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(C + i * ldc + 16), _MM_HINT_T0);
  }
  for (int64_t k = 0; k < kc; ++k) {
    __m512 b0 = _mm512_load_ps(B), b1 = _mm512_load_ps(B + 16);
    _mm_prefetch(reinterpret_cast<const char *>(B + 8 * NR), _MM_HINT_T0);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      __m512 a = _mm512_set1_ps(A[i * rsA]);
      c0[i] = _mm512_fmadd_ps(a, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(a, b1, c1[i]);
    }
    A += csA;
    B += NR;
  }
  const __mmask16 m0 =
      nr >= 16 ? 0xffff : static_cast<__mmask16>((1u << nr) - 1);
  const __mmask16 m1 = nr >= 32 ? 0xffff
                       : nr <= 16
                           ? 0
                           : static_cast<__mmask16>((1u << (nr - 16)) - 1);
  for (int i = 0; i < mr; ++i) {
    float *c = C + i * ldc;
    if (accumulate) {
      c0[i] = _mm512_add_ps(c0[i], _mm512_maskz_loadu_ps(m0, c));
      c1[i] = _mm512_add_ps(c1[i], _mm512_maskz_loadu_ps(m1, c + 16));
    }
    _mm512_mask_storeu_ps(c, m0, c0[i]);
    _mm512_mask_storeu_ps(c + 16, m1, c1[i]);
  }
}

/// C = A B, row-major, NN.
struct Probe {
  float *pa, *pb;
  Probe() {
    pa = static_cast<float *>(std::aligned_alloc(64, sizeof(float) * MR * KC));
    pb = static_cast<float *>(
        std::aligned_alloc(64, sizeof(float) * (NC + NR) * KC));
  }
  ~Probe() {
    std::free(pa);
    std::free(pb);
  }
  Probe(const Probe &) = delete;
  Probe &operator=(const Probe &) = delete;
  void gemm(int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
            const float *B, int64_t ldb, float *C, int64_t ldc) {
    for (int64_t jc = 0; jc < n; jc += NC) {
      const int64_t nc = std::min(NC, n - jc);
      for (int64_t pc = 0; pc < k; pc += KC) {
        const int64_t kc = std::min(KC, k - pc);
        for (int64_t jr = 0; jr < nc; jr += NR) { // pack B's panels
          const int64_t nr = std::min<int64_t>(NR, nc - jr);
          float *d = pb + jr * kc;
          for (int64_t kk = 0; kk < kc; ++kk, d += NR) {
            const float *s = B + (pc + kk) * ldb + jc + jr;
            for (int64_t j = 0; j < NR; ++j)
              d[j] = j < nr ? s[j] : 0.f;
          }
        }
        for (int64_t ic = 0; ic < m; ic += MC) {
          const int64_t mc = std::min(MC, m - ic);
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const int mr = static_cast<int>(std::min<int64_t>(MR, mc - ir));
            const float *a = A + (ic + ir) * lda + pc;
            int64_t rs = lda, cs = 1;
            if (mr < MR) { // the last rows: a zero-padded copy
              for (int64_t kk = 0; kk < kc; ++kk)
                for (int i = 0; i < MR; ++i)
                  pa[kk * MR + i] = i < mr ? a[i * lda + kk] : 0.f;
              a = pa;
              rs = 1;
              cs = MR;
            }
            for (int64_t jr = 0; jr < nc; jr += NR)
              tile(kc, a, rs, cs, pb + jr * kc, C + (ic + ir) * ldc + jc + jr,
                   ldc, mr, static_cast<int>(std::min<int64_t>(NR, nc - jr)),
                   pc > 0);
          }
        }
      }
    }
  }
};

} // namespace

int main() {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("no AVX-512F on this CPU: skipped\n");
    return 0;
  }
  std::printf("openblas core: %s, threads: %d\n", openblas_get_corename(),
              openblas_get_num_threads());
  std::printf("%-22s %12s %12s %8s %10s\n", "m x n x k", "openblas GF/s",
              "probe GF/s", "ratio", "max diff");
  const int64_t shapes[][3] = {{1024, 256, 256},
                               {1024, 1024, 256},
                               {1024, 256, 1024},
                               {256, 1024, 256},
                               {256, 256, 1024}};
  constexpr int R = 8, rounds = 15;
  Probe probe;
  for (const auto &s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    std::vector<std::vector<float>> A(R, std::vector<float>(m * k)),
        B(R, std::vector<float>(k * n)), C(R, std::vector<float>(m * n)),
        D(R, std::vector<float>(m * n));
    std::srand(1);
    for (auto &v : A)
      for (auto &x : v)
        x = std::rand() / static_cast<float>(RAND_MAX) - 0.5f;
    for (auto &v : B)
      for (auto &x : v)
        x = std::rand() / static_cast<float>(RAND_MAX) - 0.5f;
    std::vector<double> tb, tp;
    for (int r = 0; r < rounds; ++r) {
      double t = now();
      for (int i = 0; i < R; ++i)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.f,
                    A[i].data(), k, B[i].data(), n, 0.f, D[i].data(), n);
      tb.push_back((now() - t) / R);
      t = now();
      for (int i = 0; i < R; ++i)
        probe.gemm(m, n, k, A[i].data(), k, B[i].data(), n, C[i].data(), n);
      tp.push_back((now() - t) / R);
    }
    std::sort(tb.begin(), tb.end());
    std::sort(tp.begin(), tp.end());
    double diff = 0;
    for (int i = 0; i < R; ++i)
      for (int64_t e = 0; e < m * n; ++e)
        diff =
            std::max(diff, static_cast<double>(std::fabs(C[i][e] - D[i][e])));
    const double flop = 2.0 * m * n * k, b = tb[rounds / 2], p = tp[rounds / 2];
    char name[64];
    std::snprintf(name, sizeof(name), "%lld x %lld x %lld",
                  static_cast<long long>(m), static_cast<long long>(n),
                  static_cast<long long>(k));
    std::printf("%-22s %12.1f %12.1f %8.3f %10.2g\n", name, flop / b / 1e9,
                flop / p / 1e9, b / p, diff);
  }
  return 0;
}

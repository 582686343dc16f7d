//===- SmallGemm.cpp - Batches of small f32 matrices on AVX-512 -----------===//
//
// Per matrix: op(A) is read where it lies, unless its rows have gaps and
// more than one panel of 64 columns reads them (then they are copied back
// to back); op(B) is copied into rows of
// nPad (n rounded up to 16) zero-padded values, through 16 x 16 register
// transposes when the plan stores it as n x k. A tile of R rows x NV
// zmm columns (R x NV <= 24 accumulators) runs over k: per step NV loads
// of B's row and R broadcasts of A. C's last vector of a row is stored
// with a mask, so gaps between C's rows are never written. Before each
// matrix, the next one's A and B lines are asked into L2.
//
//===----------------------------------------------------------------------===//

#include "SmallGemm.h"

#include "weft/rt/Error.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define WEFT_SMALL_GEMM_X86 1
#endif

namespace weft::rt::cpu {

namespace {
/// Whether the kernel can run matrices of p's size at all.
bool fitsKernel(const GemmPlan &p) {
  auto fits = [](int64_t d) { return d >= 1 && d <= kSmallGemmMaxDim; };
  return fits(p.m) && fits(p.n) && fits(p.k);
}
} // namespace

bool smallGemmShape(const GemmPlan &p, int64_t l2Bytes) {
  const int64_t matrices = p.batch * p.outerBatch;
  if (matrices < 2 || !fitsKernel(p) || p.m * p.n * p.k > 2 * 64 * 64 * 64)
    return false;
  const int64_t bytes = (p.m * p.k + p.k * p.n + p.m * p.n) * matrices *
                        static_cast<int64_t>(sizeof(float));
  return p.transA || bytes > l2Bytes;
}

SmallGemmMode parseSmallGemmMode(const char *value) {
  const std::string v = value ? value : "";
  if (v.empty() || v == "auto")
    return SmallGemmMode::Auto;
  if (v == "always")
    return SmallGemmMode::Always;
  check(v == "never", "WEFT_CPU_SMALL_GEMM='", v,
        "': expected auto, always or never");
  return SmallGemmMode::Never;
}

SmallGemmMode smallGemmMode() {
  static const SmallGemmMode mode =
      parseSmallGemmMode(std::getenv("WEFT_CPU_SMALL_GEMM"));
  return mode;
}

bool smallGemmRule(const GemmPlan &p, SmallGemmMode mode, int64_t l2Bytes) {
  switch (mode) {
  case SmallGemmMode::Never:
    return false;
  case SmallGemmMode::Always:
    return fitsKernel(p);
  case SmallGemmMode::Auto:
    break;
  }
  return smallGemmShape(p, l2Bytes);
}

bool smallGemmEnabled() {
  return smallGemmAvailable() && gemmThreads() == 1 &&
         smallGemmMode() != SmallGemmMode::Never;
}

bool smallGemmTakes(const GemmPlan &p) {
  return smallGemmEnabled() && smallGemmRule(p, smallGemmMode(), cpuL2Bytes());
}

#ifdef WEFT_SMALL_GEMM_X86

bool smallGemmAvailable() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}

// GCC 12 warns that the intrinsics' own _mm512_undefined_* results "may be
// used uninitialized" (its bug 105593); they are not.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
namespace {

#define WEFT_AVX512 __attribute__((target("avx512f")))

/// dst[c * ldd + r] = src[r * lds + c] for r, c < 16.
WEFT_AVX512 inline void transpose16(const float *src, int64_t lds, float *dst,
                                    int64_t ldd) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i)
    r[i] = _mm512_loadu_ps(src + i * lds);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_castpd_ps(
        _mm512_unpacklo_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
    r[i + 1] = _mm512_castpd_ps(
        _mm512_unpackhi_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
    r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i + 1]),
                                                   _mm512_castps_pd(t[i + 3])));
    r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i + 1]),
                                                   _mm512_castps_pd(t[i + 3])));
  }
  // r[4q + j] holds, in 128-bit lane L, rows 4q .. 4q + 3 of column
  // 4L + j: gather the lanes.
  for (int j = 0; j < 4; ++j) {
    t[j] = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x88);
    t[4 + j] = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xdd);
    t[8 + j] = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x88);
    t[12 + j] = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xdd);
  }
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
    r[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xdd);
  }
  // r[i] now holds column i of the block.
  for (int i = 0; i < 16; ++i)
    _mm512_storeu_ps(dst + i * ldd, r[i]);
}

/// R rows x NV vectors of C over k: C[r][16v + j] = sum_p A(r, p) B[p][16v
/// + j], A(r, p) = a[r * rs + p * cs], B's rows ldb apart; the last vector
/// stored under `last`.
template <int R, int NV>
WEFT_AVX512 void tile(int64_t k, const float *a, int64_t rs, int64_t cs,
                      const float *b, int64_t ldb, float *c, int64_t ldc,
                      __mmask16 last) {
  __m512 acc[R][NV];
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[r][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      bv[v] = _mm512_loadu_ps(b + p * ldb + 16 * v);
    const float *ap = a + p * cs;
#pragma GCC unroll 24
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(ap[r * rs]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[r][v] = _mm512_fmadd_ps(x, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v + 1 < NV; ++v)
      _mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
    _mm512_mask_storeu_ps(c + r * ldc + 16 * (NV - 1), last, acc[r][NV - 1]);
  }
}

/// Rows per tile for NV vectors (16 to 24 accumulators): 4 x 4 and 8 x 2
/// measured faster than 6 x 4 and 12 x 2 (docs/runtime.md).
constexpr int rowsFor(int nv) {
  return nv == 1 ? 16 : nv == 2 ? 8 : nv == 4 ? 4 : 24 / nv;
}

using TileFn = void (*)(int64_t, const float *, int64_t, int64_t, const float *,
                        int64_t, float *, int64_t, __mmask16);

template <int NV, int... Rs>
constexpr auto tileTable(std::integer_sequence<int, Rs...>) {
  return std::array<TileFn, sizeof...(Rs)>{&tile<Rs + 1, NV>...};
}

template <int NV> TileFn tileFor(int rows) {
  static constexpr auto table =
      tileTable<NV>(std::make_integer_sequence<int, rowsFor(NV)>());
  return table[static_cast<std::size_t>(rows - 1)];
}

TileFn tileFor(int nv, int rows) {
  switch (nv) {
  case 1:
    return tileFor<1>(rows);
  case 2:
    return tileFor<2>(rows);
  case 3:
    return tileFor<3>(rows);
  default:
    return tileFor<4>(rows);
  }
}

/// Asks for the lines of `rows` rows of `cols` values, `ld` apart, to be
/// brought into L2 (prefetcht1).
inline void prefetchRows(const float *x, int64_t rows, int64_t cols,
                         int64_t ld) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; j += 16)
      _mm_prefetch(reinterpret_cast<const char *>(x + r * ld + j), _MM_HINT_T1);
}

/// One matrix: C (m x n, ldc) = op(A) op(B).
WEFT_AVX512 void oneMatrix(const GemmPlan &p, const float *a, const float *b,
                           float *c, float *packA, float *packB) {
  const int64_t m = p.m, n = p.n, k = p.k;
  const int64_t nPad = (n + 15) / 16 * 16;
  // op(A)(i, q) at a[i * rs + q * cs]. A stored with gaps between its rows
  // is copied back to back first when more than one panel of 64 columns
  // reads it: rows ld apart share few L1 sets. With one panel (attention's
  // n of 64 or 32) each element of A is read once, where it lies.
  const int64_t aRows = p.transA ? k : m, aCols = p.transA ? m : k;
  const float *ap = a;
  int64_t lda = p.lda;
  if (p.lda != aCols && nPad > 64) {
    for (int64_t r = 0; r < aRows; ++r)
      std::memcpy(packA + r * aCols, a + r * p.lda,
                  static_cast<std::size_t>(aCols) * sizeof(float));
    ap = packA;
    lda = aCols;
  }
  const int64_t rs = p.transA ? 1 : lda, cs = p.transA ? lda : 1;
  // op(B) as k rows of nPad values: as it lies when its rows are
  // contiguous and whole vectors, else copied.
  const float *bp = packB;
  int64_t ldb = nPad;
  if (!p.transB && p.ldb == n && n % 16 == 0) {
    bp = b;
  } else if (!p.transB) {
    const __mmask16 tail =
        static_cast<__mmask16>(n % 16 ? (1u << (n % 16)) - 1 : 0xffff);
    for (int64_t q = 0; q < k; ++q) {
      const float *src = b + q * p.ldb;
      float *dst = packB + q * nPad;
      int64_t j = 0;
      for (; j + 16 <= n; j += 16)
        _mm512_storeu_ps(dst + j, _mm512_loadu_ps(src + j));
      if (j < nPad)
        _mm512_storeu_ps(dst + j, _mm512_maskz_loadu_ps(tail, src + j));
    }
  } else {
    // B stored n x k (row j at b + j * ldb): transpose 16 x 16 blocks.
    const int64_t n16 = n / 16 * 16, k16 = k / 16 * 16;
    for (int64_t j = 0; j < n16; j += 16)
      for (int64_t q = 0; q < k16; q += 16)
        transpose16(b + j * p.ldb + q, p.ldb, packB + q * nPad + j, nPad);
    for (int64_t q = 0; q < k; ++q) {
      float *dst = packB + q * nPad;
      const int64_t from = q < k16 ? n16 : 0;
      for (int64_t j = from; j < n; ++j)
        dst[j] = b[j * p.ldb + q];
      for (int64_t j = n; j < nPad; ++j)
        dst[j] = 0.0f;
    }
  }
  for (int64_t j0 = 0; j0 < n; j0 += 64) {
    const int nv = static_cast<int>(std::min<int64_t>(4, (nPad - j0) / 16));
    const int64_t lastCols = std::min<int64_t>(16, n - j0 - 16 * (nv - 1));
    const __mmask16 last =
        static_cast<__mmask16>(lastCols == 16 ? 0xffff : (1u << lastCols) - 1);
    const int mr = rowsFor(nv);
    for (int64_t i0 = 0; i0 < m; i0 += mr) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, m - i0));
      tileFor(nv, rows)(k, ap + i0 * rs, rs, cs, bp + j0, ldb,
                        c + i0 * p.ldc + j0, p.ldc, last);
    }
  }
}

} // namespace
#pragma GCC diagnostic pop

void smallGemm(const GemmPlan &p, const float *a, const float *b, float *c) {
  check(smallGemmAvailable(), "smallGemm: this CPU has no AVX-512F");
  check(p.m <= kSmallGemmMaxDim && p.n <= kSmallGemmMaxDim &&
            p.k <= kSmallGemmMaxDim,
        "smallGemm: ", p.str(), " is larger than ", kSmallGemmMaxDim);
  if (p.m <= 0 || p.n <= 0)
    return;
  if (p.k <= 0) {
    for (int64_t o = 0; o < p.outerBatch; ++o)
      for (int64_t i = 0; i < p.batch; ++i)
        for (int64_t r = 0; r < p.m; ++r)
          std::fill_n(c + o * p.outerStrideC + i * p.strideC + r * p.ldc, p.n,
                      0.0f);
    return;
  }
  thread_local std::vector<float> packA, packB;
  packA.resize(static_cast<std::size_t>(kSmallGemmMaxDim * kSmallGemmMaxDim));
  packB.resize(static_cast<std::size_t>(kSmallGemmMaxDim * kSmallGemmMaxDim));
  // The next matrix's A and B are asked into L2 before each matrix runs,
  // so that their lines arrive while it computes: attention's batches at
  // b=16 (4 MiB per GEMM) come from L3 or memory.
  const int64_t aRows = p.transA ? p.k : p.m, aCols = p.transA ? p.m : p.k;
  const int64_t bRows = p.transB ? p.n : p.k, bCols = p.transB ? p.k : p.n;
  for (int64_t o = 0; o < p.outerBatch; ++o)
    for (int64_t i = 0; i < p.batch; ++i) {
      const int64_t no = i + 1 < p.batch ? o : o + 1;
      const int64_t ni = i + 1 < p.batch ? i + 1 : 0;
      if (no < p.outerBatch) {
        prefetchRows(a + no * p.outerStrideA + ni * p.strideA, aRows, aCols,
                     p.lda);
        prefetchRows(b + no * p.outerStrideB + ni * p.strideB, bRows, bCols,
                     p.ldb);
      }
      oneMatrix(p, a + o * p.outerStrideA + i * p.strideA,
                b + o * p.outerStrideB + i * p.strideB,
                c + o * p.outerStrideC + i * p.strideC, packA.data(),
                packB.data());
    }
}

#else // !WEFT_SMALL_GEMM_X86

bool smallGemmAvailable() { return false; }

void smallGemm(const GemmPlan &p, const float *, const float *, float *) {
  fail("smallGemm: ", p.str(), ": this build has no AVX-512 kernel");
}

#endif

} // namespace weft::rt::cpu

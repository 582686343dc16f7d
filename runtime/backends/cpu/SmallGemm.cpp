//===- SmallGemm.cpp - Batches of small f32 matrices on AVX-512 or AVX2 ---===//
//
// Per matrix: op(A) is read where it lies, unless its rows have gaps and
// more than one panel (one tile row of vectors) reads them (then they are
// copied back to back); op(B) is copied into rows of nPad (n rounded up to
// a whole vector) zero-padded values, through register transposes of one
// vector's width when the plan stores it as n x k. A tile of R rows x NV
// vectors runs over k: per step NV loads of B's row and R broadcasts of
// A. C's last vector of a row is stored with a mask, so gaps between C's
// rows are never written. Before each matrix, the next one's A and B lines
// are asked into L2. The kernel (SmallGemmKernel.inc) is compiled twice:
// for AVX-512F (16 lanes, up to 4 x 16 = 64 columns and 24 zmm
// accumulators per tile) and for AVX2 with FMA (8 lanes, 2 x 8 = 16
// columns, 12 ymm accumulators).
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
         (smallGemmMode() == SmallGemmMode::Always ||
          (smallGemmMode() == SmallGemmMode::Auto && smallGemmAutoHere()));
}

bool smallGemmTakes(const GemmPlan &p) {
  return smallGemmEnabled() && smallGemmRule(p, smallGemmMode(), cpuL2Bytes());
}

#ifdef WEFT_SMALL_GEMM_X86

namespace {
/// Which kernel runs here: AVX-512F's, else AVX2 with FMA's (cpuSimdLevel's
/// Avx512 and Avx2), else none.
SimdLevel kernelIsa() {
  static const SimdLevel isa = cpuSimdLevel();
  return isa;
}

/// Asks for the lines of `rows` rows of `cols` values, `ld` apart, to be
/// brought into L2 (prefetcht1).
inline void prefetchRows(const float *x, int64_t rows, int64_t cols,
                         int64_t ld) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; j += 16)
      _mm_prefetch(reinterpret_cast<const char *>(x + r * ld + j), _MM_HINT_T1);
}
} // namespace

bool smallGemmAvailable() { return kernelIsa() >= SimdLevel::Avx2; }

bool smallGemmAutoHere() { return kernelIsa() == SimdLevel::Avx512; }

const char *smallGemmIsaName() {
  return kernelIsa() == SimdLevel::Avx512 ? "avx512"
         : kernelIsa() == SimdLevel::Avx2 ? "avx2"
                                          : "none";
}

// GCC 12 warns that the intrinsics' own _mm512_undefined_* results "may be
// used uninitialized" (its bug 105593); they are not.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
namespace avx512 {
namespace {
#pragma GCC push_options
#pragma GCC target("avx512f")

using Vec = __m512;
using Mask = __mmask16;
constexpr int kLanes = 16;
constexpr int kMaxNv = 4;

/// Rows per tile for NV vectors (16 to 24 of the 32 zmm accumulate): 4 x 4
/// and 8 x 2 measured faster than 6 x 4 and 12 x 2 (docs/runtime.md).
constexpr int rowsFor(int nv) {
  return nv == 1 ? 16 : nv == 2 ? 8 : nv == 4 ? 4 : 24 / nv;
}

inline Vec vzero() { return _mm512_setzero_ps(); }
inline Vec vload(const float *p) { return _mm512_loadu_ps(p); }
inline Vec vloadMasked(Mask m, const float *p) {
  return _mm512_maskz_loadu_ps(m, p);
}
inline void vstore(float *p, Vec v) { _mm512_storeu_ps(p, v); }
inline void vstoreMasked(float *p, Mask m, Vec v) {
  _mm512_mask_storeu_ps(p, m, v);
}
inline Vec vbroadcast(float x) { return _mm512_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Mask tailMask(int cols) {
  return static_cast<Mask>(cols >= 16 ? 0xffff : (1u << cols) - 1);
}

/// dst[c * ldd + r] = src[r * lds + c] for r, c < 16.
inline void transposeBlock(const float *src, int64_t lds, float *dst,
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

#include "SmallGemmKernel.inc"
#pragma GCC pop_options
} // namespace
} // namespace avx512

namespace avx2 {
namespace {
#pragma GCC push_options
#pragma GCC target("avx2,fma")

using Vec = __m256;
/// The number of leading lanes to store, in [1, 8]: a store of all 8 is a
/// plain store (vmaskmovps is slow on AMD's cores).
using Mask = int;
constexpr int kLanes = 8;
constexpr int kMaxNv = 2;

/// Rows per tile for NV vectors: 12 of the 16 ymm accumulate, 6 x 2 as in
/// the usual AVX2 SGEMM kernel.
constexpr int rowsFor(int nv) { return 12 / nv; }

inline __m256i laneMask(int cols) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(cols),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline Vec vzero() { return _mm256_setzero_ps(); }
inline Vec vload(const float *p) { return _mm256_loadu_ps(p); }
inline Vec vloadMasked(Mask m, const float *p) {
  return _mm256_maskload_ps(p, laneMask(m));
}
inline void vstore(float *p, Vec v) { _mm256_storeu_ps(p, v); }
inline void vstoreMasked(float *p, Mask m, Vec v) {
  if (m >= 8)
    _mm256_storeu_ps(p, v);
  else
    _mm256_maskstore_ps(p, laneMask(m), v);
}
inline Vec vbroadcast(float x) { return _mm256_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Mask tailMask(int cols) { return cols; }

/// dst[c * ldd + r] = src[r * lds + c] for r, c < 8.
inline void transposeBlock(const float *src, int64_t lds, float *dst,
                           int64_t ldd) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(src + i * lds);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  // t[2q], t[2q + 1] hold rows 2q, 2q + 1 interleaved: columns (0, 1, 4,
  // 5) and (2, 3, 6, 7) in each 128-bit lane.
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  // r[4q + j] holds rows 4q .. 4q + 3 of column j (low lane) and j + 4
  // (high lane): join the halves.
  for (int j = 0; j < 4; ++j) {
    t[j] = _mm256_permute2f128_ps(r[j], r[4 + j], 0x20);
    t[4 + j] = _mm256_permute2f128_ps(r[j], r[4 + j], 0x31);
  }
  for (int i = 0; i < 8; ++i)
    _mm256_storeu_ps(dst + i * ldd, t[i]);
}

#include "SmallGemmKernel.inc"
#pragma GCC pop_options
} // namespace
} // namespace avx2
#pragma GCC diagnostic pop

void smallGemm(const GemmPlan &p, const float *a, const float *b, float *c) {
  check(smallGemmAvailable(), "smallGemm: this CPU has neither AVX-512F nor "
                              "AVX2 with FMA");
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
  if (kernelIsa() == SimdLevel::Avx512)
    avx512::allMatrices(p, a, b, c, packA.data(), packB.data());
  else
    avx2::allMatrices(p, a, b, c, packA.data(), packB.data());
}

#else // !WEFT_SMALL_GEMM_X86

bool smallGemmAvailable() { return false; }

bool smallGemmAutoHere() { return false; }

const char *smallGemmIsaName() { return "none"; }

void smallGemm(const GemmPlan &p, const float *, const float *, float *) {
  fail("smallGemm: ", p.str(), ": this build has no x86 kernel");
}

#endif

} // namespace weft::rt::cpu

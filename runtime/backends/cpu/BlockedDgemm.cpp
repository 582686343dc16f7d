//===- BlockedDgemm.cpp - An AVX-512 f64 GEMM for CPUs OpenBLAS misses ----===//
//
// Goto's scheme, single-threaded: C is computed in blocks of kKc along k;
// within one, op(B)'s block of kNc columns is packed into panels of 16
// columns (zero-padded) and op(A)'s block of kMc rows into panels of 6
// rows, and a 6 x 16 register tile (12 zmm accumulators) runs over each
// pair of panels. Packing reads either layout of A and B, so every
// transposition costs the same. Edge tiles go through a small buffer.
//
//===----------------------------------------------------------------------===//

#include "BlockedDgemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace weft::rt::cpu {

namespace {

constexpr int64_t kMr = 6, kNr = 16;
constexpr int64_t kKc = 256, kMc = 96, kNc = 2048;

typedef double V8 __attribute__((vector_size(64)));

/// C(6 x 16 tile) (+)= Ap Bp over kc: Ap holds kc groups of 6 values (one
/// per row), Bp kc groups of 16. `accumulate`: add to what C holds.
__attribute__((target("avx512f"))) void tile(int64_t kc, const double *ap,
                                             const double *bp, double *c,
                                             int64_t ldc, int64_t rows,
                                             int64_t cols, bool accumulate) {
  V8 acc[kMr][2] = {};
  for (int64_t p = 0; p < kc; ++p) {
    V8 b0, b1;
    std::memcpy(&b0, bp + p * kNr, sizeof b0);
    std::memcpy(&b1, bp + p * kNr + 8, sizeof b1);
    const double *a = ap + p * kMr;
    for (int r = 0; r < kMr; ++r) {
      acc[r][0] += a[r] * b0;
      acc[r][1] += a[r] * b1;
    }
  }
  if (rows == kMr && cols == kNr) {
    for (int r = 0; r < kMr; ++r) {
      double *cr = c + r * ldc;
      V8 c0 = acc[r][0], c1 = acc[r][1];
      if (accumulate) {
        V8 o0, o1;
        std::memcpy(&o0, cr, sizeof o0);
        std::memcpy(&o1, cr + 8, sizeof o1);
        c0 += o0;
        c1 += o1;
      }
      std::memcpy(cr, &c0, sizeof c0);
      std::memcpy(cr + 8, &c1, sizeof c1);
    }
    return;
  }
  double buf[kMr][kNr];
  std::memcpy(buf, acc, sizeof buf);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j)
      c[r * ldc + j] = accumulate ? c[r * ldc + j] + buf[r][j] : buf[r][j];
}

} // namespace

bool blockedDgemmAvailable() {
#if defined(__x86_64__)
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
#else
  return false;
#endif
}

void blockedDgemm(int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                  const double *a, int64_t lda, const double *b, int64_t ldb,
                  double *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i)
      std::fill(c + i * ldc, c + i * ldc + n, 0.0);
    return;
  }
  auto elemA = [&](int64_t i, int64_t p) {
    return transA ? a[p * lda + i] : a[i * lda + p];
  };
  auto elemB = [&](int64_t p, int64_t j) {
    return transB ? b[j * ldb + p] : b[p * ldb + j];
  };
  thread_local std::vector<double> packA, packB;
  packA.resize(static_cast<std::size_t>(kMc * kKc));
  packB.resize(static_cast<std::size_t>(kNc * kKc));
  for (int64_t j0 = 0; j0 < n; j0 += kNc) {
    const int64_t nc = std::min(kNc, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKc) {
      const int64_t kc = std::min(kKc, k - p0);
      // op(B)[p0.., j0..] into panels of 16 columns: panel q holds kc rows
      // of 16 values.
      for (int64_t q = 0; q * kNr < nc; ++q) {
        double *dst = packB.data() + q * kNr * kc;
        const int64_t cols = std::min(kNr, nc - q * kNr);
        for (int64_t p = 0; p < kc; ++p)
          for (int64_t j = 0; j < kNr; ++j)
            dst[p * kNr + j] = j < cols ? elemB(p0 + p, j0 + q * kNr + j) : 0.0;
      }
      for (int64_t i0 = 0; i0 < m; i0 += kMc) {
        const int64_t mc = std::min(kMc, m - i0);
        for (int64_t s = 0; s * kMr < mc; ++s) {
          double *dst = packA.data() + s * kMr * kc;
          const int64_t rows = std::min(kMr, mc - s * kMr);
          for (int64_t p = 0; p < kc; ++p)
            for (int64_t r = 0; r < kMr; ++r)
              dst[p * kMr + r] =
                  r < rows ? elemA(i0 + s * kMr + r, p0 + p) : 0.0;
        }
        for (int64_t q = 0; q * kNr < nc; ++q)
          for (int64_t s = 0; s * kMr < mc; ++s)
            tile(kc, packA.data() + s * kMr * kc, packB.data() + q * kNr * kc,
                 c + (i0 + s * kMr) * ldc + j0 + q * kNr, ldc,
                 std::min(kMr, mc - s * kMr), std::min(kNr, nc - q * kNr),
                 p0 > 0);
      }
    }
  }
}

} // namespace weft::rt::cpu

//===- BlockedDgemm.h - An AVX-512 f64 GEMM for CPUs OpenBLAS misses -*- C++
//-*-===//
//
// The CPU backend's f64 GEMM where the linked OpenBLAS runs kernels below
// the CPU's instruction set (Debian's 0.3.21 runs Prescott's SSE3 kernels
// on CPUs newer than it knows) and the CPU has AVX-512: oneDNN 2.6 has no
// f64 at all. Packed panels and a 6x16 register tile; docs/runtime.md,
// "f64 GEMMs", has the measurements. Private to CpuGemm.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_BLOCKEDDGEMM_H
#define WEFT_RT_CPU_BLOCKEDDGEMM_H

#include <cstdint>

namespace weft::rt::cpu {

/// Whether this CPU runs blockedDgemm (AVX-512F).
bool blockedDgemmAvailable();

/// C = op(A) op(B) for one row-major matrix, as cblas_dgemm with alpha 1
/// and beta 0: op(A) is m x k (A[i * lda + p], or A[p * lda + i] with
/// transA), op(B) k x n (B[p * ldb + j], or B[j * ldb + p] with transB),
/// C[i * ldc + j]. Single-threaded; blockedDgemmAvailable() must hold.
void blockedDgemm(int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                  const double *a, int64_t lda, const double *b, int64_t ldb,
                  double *c, int64_t ldc);

} // namespace weft::rt::cpu

#endif // WEFT_RT_CPU_BLOCKEDDGEMM_H

//===- CpuGemm.cpp - GemmPlan on cblas_sgemm / cblas_dgemm ----------------===//

#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/Error.h"

#include <cblas.h>
#include <climits>

namespace weft::rt {

static int asInt(int64_t v, const char *what) {
  check(v >= 0 && v <= INT_MAX, "gemm ", what, " = ", v,
        " does not fit the BLAS integer type");
  return static_cast<int>(v);
}

void CpuBackend::gemm(const GemmPlan &p, DType dtype, const void *a,
                      const void *b, void *c) {
  int m = asInt(p.m, "m"), n = asInt(p.n, "n"), k = asInt(p.k, "k");
  int lda = asInt(p.lda, "lda"), ldb = asInt(p.ldb, "ldb"),
      ldc = asInt(p.ldc, "ldc");
  CBLAS_TRANSPOSE ta = p.transA ? CblasTrans : CblasNoTrans;
  CBLAS_TRANSPOSE tb = p.transB ? CblasTrans : CblasNoTrans;
  // Outer batch, then inner strided batch, as the plan says.
  auto loop = [&](auto *A, auto *B, auto *C, auto call) {
    for (int64_t o = 0; o < p.outerBatch; ++o)
      for (int64_t i = 0; i < p.batch; ++i)
        call(A + o * p.outerStrideA + i * p.strideA,
             B + o * p.outerStrideB + i * p.strideB,
             C + o * p.outerStrideC + i * p.strideC);
  };
  switch (dtype) {
  case DType::F32:
    loop(static_cast<const float *>(a), static_cast<const float *>(b),
         static_cast<float *>(c),
         [&](const float *A, const float *B, float *C) {
           cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, A, lda, B, ldb,
                       0.0f, C, ldc);
         });
    return;
  case DType::F64:
    loop(static_cast<const double *>(a), static_cast<const double *>(b),
         static_cast<double *>(c),
         [&](const double *A, const double *B, double *C) {
           cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, A, lda, B, ldb,
                       0.0, C, ldc);
         });
    return;
  default:
    fail("einsum of ", dtypeName(dtype),
         " is not supported on the cpu backend (f32, f64)");
  }
}

} // namespace weft::rt

//===- CpuGemm.cpp - GemmPlan on cblas_sgemm / cblas_dgemm ----------------===//

#include "CpuBackend.h"
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
  switch (dtype) {
  case DType::F32: {
    auto *A = static_cast<const float *>(a);
    auto *B = static_cast<const float *>(b);
    auto *C = static_cast<float *>(c);
    for (int64_t o = 0; o < p.outerBatch; ++o)
      for (int64_t i = 0; i < p.batch; ++i)
        cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f,
                    A + o * p.outerStrideA + i * p.strideA, lda,
                    B + o * p.outerStrideB + i * p.strideB, ldb, 0.0f,
                    C + o * p.outerStrideC + i * p.strideC, ldc);
    return;
  }
  case DType::F64: {
    auto *A = static_cast<const double *>(a);
    auto *B = static_cast<const double *>(b);
    auto *C = static_cast<double *>(c);
    for (int64_t o = 0; o < p.outerBatch; ++o)
      for (int64_t i = 0; i < p.batch; ++i)
        cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0,
                    A + o * p.outerStrideA + i * p.strideA, lda,
                    B + o * p.outerStrideB + i * p.strideB, ldb, 0.0,
                    C + o * p.outerStrideC + i * p.strideC, ldc);
    return;
  }
  default:
    fail("einsum of ", dtypeName(dtype),
         " is not supported on the cpu backend (f32, f64)");
  }
}

} // namespace weft::rt

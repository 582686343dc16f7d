//===- EinsumPlan.h - Einsum to (batched, strided) GEMM ---------*- C++ -*-===//
//
// Planning is pure C++ with no BLAS/CUDA/MPI dependency, so the compiler
// can call it at compile time and both backends execute the same numbers.
// See docs/runtime.md "Einsum planning" for the rules.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_EINSUMPLAN_H
#define WEFT_RT_EINSUMPLAN_H

#include "weft/rt/CopyPlan.h"
#include "weft/rt/DType.h"
#include "weft/rt/ElementPlans.h"

#include <string>

namespace weft::rt {

/// Exactly the arguments of a row-major cblas_?gemm looped over `batch`
/// and of cublasGemmStridedBatchedEx (after the row-major -> column-major
/// swap the CUDA backend does): C[m,n] = op(A)[m,k] op(B)[k,n] for
/// each batch index i at A + i*strideA, B + i*strideB, C + i*strideC.
/// A second, outer batch level (a loop in the backend: one strided-batched
/// call per outer index on CUDA) covers batch letters that are not adjacent
/// in memory, e.g. b and h of q[b,t,h,k] in attention: the GEMM of outer
/// index o and batch index i is at A + o*outerStrideA + i*strideA, etc.
struct GemmPlan {
  int64_t m = 1, n = 1, k = 1;
  bool transA = false, transB = false;
  int64_t lda = 1, ldb = 1, ldc = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  int64_t batch = 1;
  int64_t outerBatch = 1;
  int64_t outerStrideA = 0, outerStrideB = 0, outerStrideC = 0;
  std::string str() const;
};

struct EinsumPlan {
  std::string spec;
  DType dtype = DType::F32;
  Shape aShape, bShape, outShape;
  bool unary = false;

  // Unary einsum: a permutation (copy) or a sum over dropped letters.
  bool unaryIsCopy = false;
  CopyPlan unaryCopy;
  ReducePlan unaryReduce;

  // Binary einsum, stage 1: sum out letters found in one operand only.
  bool reduceA = false, reduceB = false;
  ReducePlan reduceAPlan, reduceBPlan;
  // Stage 2: permute an operand into a GEMM-ready layout (into a temp).
  bool permuteA = false, permuteB = false;
  CopyPlan permAPlan, permBPlan;
  // Stage 3: the GEMM. With swapOperands the GEMM computes C^T = B^T A^T,
  // i.e. its first operand is (the possibly reduced/permuted) B.
  bool swapOperands = false;
  GemmPlan gemm;
  // Stage 4: the GEMM wrote a temp that is permuted into the result.
  bool permuteOut = false;
  CopyPlan permOutPlan;

  int64_t tempAElements = 0, tempBElements = 0, tempOutElements = 0;
  /// 2*m*n*k*batch*outerBatch (plus reduced elements of stage 1 and unary
  /// sums).
  int64_t flops = 0;

  /// Multi-line human-readable description (for logs and tests).
  std::string str() const;
};

/// Plans `spec` ("btd,df->btf" or "bhts->bht") for local operand shapes.
/// Throws Error on a malformed spec, rank or size mismatch, or a result
/// letter present in no operand.
EinsumPlan planEinsum(const std::string &spec, const Shape &aShape,
                      const Shape &bShape, DType dtype);
EinsumPlan planEinsum(const std::string &spec, const Shape &aShape,
                      DType dtype);

} // namespace weft::rt

#endif // WEFT_RT_EINSUMPLAN_H

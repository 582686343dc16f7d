//===- SmallGemm.h - Batches of small f32 matrices --------------*- C++ -*-===//
//
// Attention's batched GEMMs (64 x 64 x 32 scores, 64 x 32 x 64
// probabilities times v, one matrix per batch and head). At P6/P9's b=16
// they come from memory, and oneDNN's brgemm ran them at 41-50 GFLOP/s,
// packed or not; its kernel for a transposed op(A) (T2's backward) at
// 68-78% of the peak (docs/runtime.md, "Small batched GEMMs"). This kernel
// runs a whole GemmPlan of such matrices itself, one matrix at a time,
// with the next matrix's operands prefetched: op(B) is copied into an L1
// buffer (transposed there when the plan stores it as n x k), op(A) read
// where it lies, and a register tile (up to 24 zmm accumulators on
// AVX-512F, 12 ymm on AVX2 with FMA) runs over them. On AVX2 CPUs the
// default rule gives it no plans (smallGemmAutoHere). Private to the CPU
// backend (CpuGemm.cpp); the rule that picks it is smallGemmTakes.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_SMALLGEMM_H
#define WEFT_RT_CPU_SMALLGEMM_H

#include "weft/rt/EinsumPlan.h"

#include <cstdint>

namespace weft::rt::cpu {

/// The largest m, n and k the kernel takes: one matrix's copied operands
/// (at most 2 x 128 x 128 f32, 128 KiB) stay in L2; the kernel has no
/// cache blocking beyond that.
constexpr int64_t kSmallGemmMaxDim = 128;

/// Whether this CPU runs the kernel (AVX-512F, or AVX2 with FMA).
bool smallGemmAvailable();

/// The kernel's instruction set on this CPU: "avx512", "avx2" or "none".
const char *smallGemmIsaName();

/// Whether `auto` gives the kernel the plans of the shape rule on this CPU:
/// on AVX-512F only. On AVX2 (AMD EPYC Zen 3, docs/runtime.md "Small
/// batched GEMMs") it ran 15-20% slower than oneDNN's gemm:jit on batches
/// from memory and 5-20% faster in L3, and P9's steps did not change
/// beyond the host's noise: there only `always` runs it.
bool smallGemmAutoHere();

/// The shape rule, from gemm-libs' measurements (docs/runtime.md, "Small
/// batched GEMMs"): at least two matrices (batch x outerBatch), each of m,
/// n and k between 1 and kSmallGemmMaxDim, m x n x k at most
/// 2 x 64 x 64 x 64, and either op(A) transposed (oneDNN 2.6.3's kernel
/// for it ran at 68-78% of the peak, this one at 82-86%) or the plan's A,
/// B and C together larger than `l2Bytes` (then they come from L3 or
/// memory, and this kernel, with its prefetch of the next matrix, ran
/// 10-25% faster than oneDNN). In L2 oneDNN is as fast or faster on the
/// other layouts.
bool smallGemmShape(const GemmPlan &p, int64_t l2Bytes);

/// $WEFT_CPU_SMALL_GEMM: `auto` (the default: plans of the shape rule),
/// `always` (every plan the kernel can run, whatever its size: tests and
/// A/B timing) or `never` (no plan).
enum class SmallGemmMode { Auto, Always, Never };
/// `value` (null or empty: Auto); another value throws Error.
SmallGemmMode parseSmallGemmMode(const char *value);
/// The environment's, read once (the start banner reads it, so a bad
/// value fails on every rank before the first step).
SmallGemmMode smallGemmMode();

/// Whether `mode` gives plan `p` to the kernel: never under Never; under
/// Always any plan with m, n, k in [1, kSmallGemmMaxDim]; under Auto the
/// shape rule. Pure (no CPU check).
bool smallGemmRule(const GemmPlan &p, SmallGemmMode mode, int64_t l2Bytes);

/// Whether the kernel runs at all here: smallGemmAvailable(), one GEMM
/// thread per rank, and $WEFT_CPU_SMALL_GEMM `always`, or `auto` where
/// smallGemmAutoHere() (the start line says so).
bool smallGemmEnabled();

/// Whether the f32 GEMM of `p` runs on the kernel: smallGemmEnabled()
/// (one GEMM thread per rank, $WEFT_CPU_THREADS unset or 1: the kernel is
/// single-threaded) and smallGemmRule under the environment's mode and
/// this CPU's L2 (cpuL2Bytes).
bool smallGemmTakes(const GemmPlan &p);

/// C = op(A) op(B) for every matrix of `p` (alpha 1, beta 0; C's gaps
/// between rows are left alone). smallGemmAvailable() must hold, and m, n,
/// k at most kSmallGemmMaxDim. Single-threaded. Each element of C is the
/// sum over k in order 0, 1, ..., k-1, one FMA per term.
void smallGemm(const GemmPlan &p, const float *a, const float *b, float *c);

} // namespace weft::rt::cpu

#endif // WEFT_RT_CPU_SMALLGEMM_H

//===- BatchPack.h - Packing a batched GEMM's matrices ------*- C++ -*-===//
//
// Attention's batched GEMMs read q, k and v as [b, t, h, k]: the 64 rows of
// one head's matrix are 128 bytes each, h * k elements apart, interleaved
// with the other heads' rows. With rows 1 KiB apart a matrix's rows share
// 8 of L1's 64 sets, so a GEMM over them misses L1 on every pass; oneDNN's
// brgemm runs 64 x 64 x 32 at 35-46 GFLOP/s that way in P9's step at b=16
// (128 matrices), against 90-100 on the same matrices packed back to back
// (docs/runtime.md, "Packed batches"). The plan below packs such an operand
// a chunk of matrices at a time into a small contiguous buffer (L1/L2) and
// runs the GEMM of the chunk on it; the result is written in place, in its
// own layout. The plan is a function of the GemmPlan alone.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_BATCHPACK_H
#define WEFT_RT_CPU_BATCHPACK_H

#include "weft/rt/EinsumPlan.h"

#include <optional>

namespace weft::rt::cpu {

/// One operand's packing: its matrices as stored (rows of `cols` elements,
/// `ld` apart) are copied back to back.
struct PackedOperand {
  bool pack = false;
  int64_t rows = 0, cols = 0; // as stored (a transposed operand's k x m)
  int64_t elements() const { return rows * cols; }
};

struct BatchPackPlan {
  PackedOperand a, b;
  /// Matrices per chunk along the outer and the inner batch level; they
  /// divide outerBatch and batch.
  int64_t chunkOuter = 1, chunkInner = 1;
  /// The GEMM of one chunk: packed operands at ld = cols, stride = rows *
  /// cols, outer stride = chunkInner * rows * cols; the others (and C) in
  /// their own layout, at the chunk's first matrix.
  GemmPlan chunk;
};

/// Matrices per chunk: enough to amortize a primitive call, few enough
/// that a chunk's packed operands stay in L2 (16 of attention's 8 KiB
/// matrices: 128 KiB per operand).
constexpr int64_t kPackChunkMatrices = 16;

/// The largest matrix (elements) packed: 64 KiB of f32, so that a chunk's
/// 16 packed matrices of one operand stay within 1 MiB.
constexpr int64_t kPackMaxMatrixElements = 16384;

/// The packing of `p` (f32) on a CPU whose L2 holds `l2Bytes`, or nullopt
/// when no operand needs it: an operand is packed when it differs per
/// matrix (a nonzero stride on every batch level of extent > 1), its rows
/// have a gap (ld > cols) and its matrices are at most
/// kPackMaxMatrixElements; and
/// only when the plan has at least 32 matrices whose operands and result
/// (A, B and C's elements) do not fit in L2. Where they fit (P6/P9 at b=4:
/// 1 MiB on a 1 MiB L2) the unpacked GEMM reads them from L2 and packing
/// cost 15% (scores 87.6 -> 72.5 GFLOP/s).
std::optional<BatchPackPlan> planBatchPack(const GemmPlan &p, int64_t l2Bytes);

/// The L2 size planBatchPack is given at run time: this CPU's (sysconf;
/// 1 MiB when the system does not say), or $WEFT_CPU_PACK_BATCHES: `auto`
/// (the default), `always` (0: every plan the rule takes packs; tests and
/// A/B timing) or `never` (no plan packs). Read at each plan's creation
/// and by the start banner (cpu::gemmBanner, so a bad value fails before
/// the first step); another value throws Error.
int64_t packL2Bytes();

/// Copies the chunk's matrices (outer o0 .. o0 + plan.chunkOuter - 1,
/// inner i0 .. i0 + plan.chunkInner - 1) of operand A (`isA`) or B of
/// plan `p` at `src` back to back into `dst`.
void packChunk(const GemmPlan &p, const BatchPackPlan &plan, bool isA,
               const float *src, int64_t o0, int64_t i0, float *dst);

/// Asks for the lines of the chunk at (o0, i0) of A and B (packed or not)
/// to be brought into L2 (prefetcht1), each where the chunk's matrices lie
/// in a span at most twice their size (attention's heads: a contiguous
/// block); run before the previous chunk's GEMM, so the lines arrive while
/// it computes. (Prefetching C's lines for writing as well made P9's
/// probabilities-times-v GEMM slower, 52 -> 46 GFLOP/s: not done.)
void prefetchChunk(const GemmPlan &p, const BatchPackPlan &plan, const float *a,
                   const float *b, int64_t o0, int64_t i0);

} // namespace weft::rt::cpu

#endif // WEFT_RT_CPU_BATCHPACK_H

//===- BatchPack.cpp - Packing the interleaved matrices of a batched GEMM -===//

#include "BatchPack.h"

#include "weft/rt/Error.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include <cstdlib>
#include <limits>
#include <string>

namespace weft::rt::cpu {

namespace {

/// The largest divisor of n that is at most limit (>= 1).
int64_t divisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, std::max<int64_t>(limit, 1)); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

} // namespace

int64_t packL2Bytes() {
  const char *env = std::getenv("WEFT_CPU_PACK_BATCHES");
  const std::string v = env ? env : "auto";
  if (v == "always")
    return 0;
  if (v == "never")
    return std::numeric_limits<int64_t>::max();
  check(v == "auto", "WEFT_CPU_PACK_BATCHES='", v,
        "': expected auto, always or never");
  return cpuL2Bytes();
}

std::optional<BatchPackPlan> planBatchPack(const GemmPlan &p, int64_t l2Bytes) {
  const int64_t matrices = p.batch * p.outerBatch;
  if (p.m <= 0 || p.n <= 0 || p.k <= 0 || p.batch <= 0 || p.outerBatch <= 0 ||
      matrices < 2 * kPackChunkMatrices ||
      (p.m * p.k + p.k * p.n + p.m * p.n) * matrices <=
          l2Bytes / static_cast<int64_t>(sizeof(float)))
    return std::nullopt;
  auto operand = [&](bool trans, int64_t rows, int64_t cols, int64_t ld,
                     int64_t stride, int64_t outerStride) {
    PackedOperand o;
    o.rows = trans ? cols : rows;
    o.cols = trans ? rows : cols;
    const bool perMatrix = (p.batch == 1 || stride != 0) &&
                           (p.outerBatch == 1 || outerStride != 0);
    o.pack = perMatrix && ld > o.cols && o.elements() <= kPackMaxMatrixElements;
    return o;
  };
  BatchPackPlan plan;
  plan.a = operand(p.transA, p.m, p.k, p.lda, p.strideA, p.outerStrideA);
  plan.b = operand(p.transB, p.k, p.n, p.ldb, p.strideB, p.outerStrideB);
  if (!plan.a.pack && !plan.b.pack)
    return std::nullopt;
  if (p.batch >= kPackChunkMatrices) {
    plan.chunkInner = divisorAtMost(p.batch, kPackChunkMatrices);
    plan.chunkOuter = 1;
  } else {
    plan.chunkInner = p.batch;
    plan.chunkOuter = divisorAtMost(p.outerBatch, kPackChunkMatrices / p.batch);
  }
  GemmPlan &c = plan.chunk;
  c = p;
  c.batch = plan.chunkInner;
  c.outerBatch = plan.chunkOuter;
  auto packed = [&](const PackedOperand &o, int64_t &ld, int64_t &stride,
                    int64_t &outerStride) {
    if (!o.pack)
      return;
    ld = o.cols;
    stride = o.elements();
    outerStride = plan.chunkInner * o.elements();
  };
  packed(plan.a, c.lda, c.strideA, c.outerStrideA);
  packed(plan.b, c.ldb, c.strideB, c.outerStrideB);
  // Levels of extent 1 get stride 0, as the planner writes them.
  if (c.batch == 1)
    c.strideA = c.strideB = c.strideC = 0;
  if (c.outerBatch == 1)
    c.outerStrideA = c.outerStrideB = c.outerStrideC = 0;
  return plan;
}

void packChunk(const GemmPlan &p, const BatchPackPlan &plan, bool isA,
               const float *src, int64_t o0, int64_t i0, float *dst) {
  const PackedOperand &op = isA ? plan.a : plan.b;
  const int64_t ld = isA ? p.lda : p.ldb;
  const int64_t stride = isA ? p.strideA : p.strideB;
  const int64_t outerStride = isA ? p.outerStrideA : p.outerStrideB;
  const int64_t rows = op.rows, cols = op.cols;
  // Row r of every inner matrix, then row r + 1: attention's heads are the
  // inner level, and row r of head i + 1 follows row r of head i in memory
  // (q[b, t, h, k]), so the reads are one sequential stream the hardware
  // prefetcher follows; matrix by matrix, every row was a miss to L3.
  const int64_t matrix = rows * cols;
  for (int64_t o = 0; o < plan.chunkOuter; ++o) {
    const float *m = src + (o0 + o) * outerStride + i0 * stride;
    float *d = dst + o * plan.chunkInner * matrix;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < plan.chunkInner; ++i) {
        const float *row = m + i * stride + r * ld;
        float *out = d + i * matrix + r * cols;
        for (int64_t j = 0; j < cols; ++j)
          out[j] = row[j];
      }
  }
}

namespace {

/// prefetcht1 over the span of a chunk's matrices of one operand when
/// that span is at most twice the matrices' elements.
void prefetchSpan(const float *base, int64_t ld, int64_t stride,
                  int64_t outerStride, int64_t rows, int64_t cols,
                  const BatchPackPlan &plan) {
  const int64_t last = (plan.chunkOuter - 1) * outerStride +
                       (plan.chunkInner - 1) * stride + (rows - 1) * ld + cols;
  const int64_t elements = plan.chunkOuter * plan.chunkInner * rows * cols;
  if (last <= 0 || last > 2 * elements)
    return;
  const char *begin = reinterpret_cast<const char *>(base);
  const char *end = begin + last * static_cast<int64_t>(sizeof(float));
  for (const char *line = begin; line < end; line += 64)
    __builtin_prefetch(line, 0, 2);
}

} // namespace

void prefetchChunk(const GemmPlan &p, const BatchPackPlan &plan, const float *a,
                   const float *b, int64_t o0, int64_t i0) {
  prefetchSpan(a + o0 * p.outerStrideA + i0 * p.strideA, p.lda, p.strideA,
               p.outerStrideA, plan.a.rows, plan.a.cols, plan);
  prefetchSpan(b + o0 * p.outerStrideB + i0 * p.strideB, p.ldb, p.strideB,
               p.outerStrideB, plan.b.rows, plan.b.cols, plan);
}

} // namespace weft::rt::cpu

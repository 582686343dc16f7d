//===- PlanTests.cpp - Einsum planning rules and copy plans ---------------===//
//
// Expected GEMM parameters are derived by hand from the layouts (see the
// comment of each case); the numerical results are checked separately
// against naive loops in EinsumTests.cpp.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/CopyPlan.h"
#include "weft/rt/EinsumPlan.h"
#include "weft/rt/EinsumSpec.h"
#include "weft/rt/ElementOps.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace weft::rt;

namespace {

void expectNoCopies(const EinsumPlan &p) {
  EXPECT_FALSE(p.reduceA || p.reduceB || p.permuteA || p.permuteB ||
               p.permuteOut)
      << p.str();
}

// MLP up-projection (P1): bt flattens into m, no copy, no transpose.
TEST(EinsumPlan, MlpIsOnePlainGemm) {
  auto p = planEinsum("btd,df->btf", {4, 64, 256}, {256, 1024}, DType::F32);
  expectNoCopies(p);
  EXPECT_FALSE(p.swapOperands);
  const GemmPlan &g = p.gemm;
  EXPECT_EQ(g.m, 256);
  EXPECT_EQ(g.n, 1024);
  EXPECT_EQ(g.k, 256);
  EXPECT_FALSE(g.transA);
  EXPECT_FALSE(g.transB);
  EXPECT_EQ(g.lda, 256);
  EXPECT_EQ(g.ldb, 1024);
  EXPECT_EQ(g.ldc, 1024);
  EXPECT_EQ(g.batch, 1);
  EXPECT_EQ(p.flops, 2LL * 256 * 1024 * 256);
}

// Weight gradient (P8): k = bt is the leading group of both operands, so A
// is used transposed with lda = d.
TEST(EinsumPlan, WeightGradientTransposesA) {
  auto p = planEinsum("btd,btf->df", {2, 3, 4}, {2, 3, 5}, DType::F32);
  expectNoCopies(p);
  EXPECT_TRUE(p.gemm.transA);
  EXPECT_FALSE(p.gemm.transB);
  EXPECT_EQ(p.gemm.m, 4);
  EXPECT_EQ(p.gemm.n, 5);
  EXPECT_EQ(p.gemm.k, 6);
  EXPECT_EQ(p.gemm.lda, 4);
  EXPECT_EQ(p.gemm.ldb, 5);
  EXPECT_EQ(p.gemm.ldc, 5);
}

// A result stored [n, m] is computed as C^T = B^T A^T: no copy.
TEST(EinsumPlan, TransposedResultSwapsOperands) {
  auto p = planEinsum("md,dn->nm", {5, 7}, {7, 3}, DType::F64);
  expectNoCopies(p);
  EXPECT_TRUE(p.swapOperands);
  EXPECT_EQ(p.gemm.m, 3);
  EXPECT_EQ(p.gemm.n, 5);
  EXPECT_EQ(p.gemm.k, 7);
  EXPECT_TRUE(p.gemm.transA); // B [d, n] read as [n, d]
  EXPECT_EQ(p.gemm.lda, 3);
  EXPECT_TRUE(p.gemm.transB); // A [m, d] read as [d, m]
  EXPECT_EQ(p.gemm.ldb, 7);
  EXPECT_EQ(p.gemm.ldc, 5);
}

// Batch letter in the middle of every operand: strided batches, no copy.
TEST(EinsumPlan, BatchInTheMiddleUsesStrides) {
  auto p = planEinsum("ibj,jbk->bik", {3, 4, 5}, {5, 4, 2}, DType::F32);
  expectNoCopies(p);
  const GemmPlan &g = p.gemm;
  EXPECT_EQ(g.batch, 4);
  EXPECT_EQ(g.outerBatch, 1);
  EXPECT_EQ(g.m, 3);
  EXPECT_EQ(g.n, 2);
  EXPECT_EQ(g.k, 5);
  EXPECT_EQ(g.lda, 20);
  EXPECT_EQ(g.strideA, 5);
  EXPECT_EQ(g.ldb, 8);
  EXPECT_EQ(g.strideB, 2);
  EXPECT_EQ(g.ldc, 2);
  EXPECT_EQ(g.strideC, 6);
}

// Attention scores (P6): b and h are not adjacent in q[b,t,h,k] or
// kk[b,s,h,k], so b becomes the outer batch level and h the strided inner
// batch; no copies. Dense strides: q b=60 t=12 h=4 k=1, kk b=72 s=12 h=4
// k=1, sc[b,h,t,s] b=90 h=30 t=6 s=1. Per (b, h): sc[t,s] = q[t,k] kk[s,k]^T
// with lda = ldb = h*k = 12 (kk read transposed), ldc = s = 6.
TEST(EinsumPlan, AttentionScoresUseAnOuterBatch) {
  auto p =
      planEinsum("bthk,bshk->bhts", {2, 5, 3, 4}, {2, 6, 3, 4}, DType::F32);
  expectNoCopies(p);
  EXPECT_FALSE(p.swapOperands);
  const GemmPlan &g = p.gemm;
  EXPECT_EQ(g.m, 5);
  EXPECT_EQ(g.n, 6);
  EXPECT_EQ(g.k, 4);
  EXPECT_FALSE(g.transA);
  EXPECT_TRUE(g.transB);
  EXPECT_EQ(g.lda, 12);
  EXPECT_EQ(g.ldb, 12);
  EXPECT_EQ(g.ldc, 6);
  EXPECT_EQ(g.batch, 3); // h
  EXPECT_EQ(g.strideA, 4);
  EXPECT_EQ(g.strideB, 4);
  EXPECT_EQ(g.strideC, 30);
  EXPECT_EQ(g.outerBatch, 2); // b
  EXPECT_EQ(g.outerStrideA, 60);
  EXPECT_EQ(g.outerStrideB, 72);
  EXPECT_EQ(g.outerStrideC, 90);
  EXPECT_EQ(p.flops, 2 * 5 * 6 * 4 * 3 * 2);
}

// Attention values: p[b,h,t,s] b=90 h=30 t=6 s=1, v[b,s,h,k] b=72 s=12 h=4
// k=1, o[b,t,h,k] b=60 t=12 h=4 k=1. Per (b, h): o[t,k] = p[t,s] v[s,k]
// with lda = 6, ldb = h*k = 12, ldc = h*k = 12; no copies.
TEST(EinsumPlan, AttentionValuesUseAnOuterBatch) {
  auto p =
      planEinsum("bhts,bshk->bthk", {2, 3, 5, 6}, {2, 6, 3, 4}, DType::F32);
  expectNoCopies(p);
  EXPECT_FALSE(p.swapOperands);
  const GemmPlan &g = p.gemm;
  EXPECT_EQ(g.m, 5);
  EXPECT_EQ(g.n, 4);
  EXPECT_EQ(g.k, 6);
  EXPECT_FALSE(g.transA);
  EXPECT_FALSE(g.transB);
  EXPECT_EQ(g.lda, 6);
  EXPECT_EQ(g.ldb, 12);
  EXPECT_EQ(g.ldc, 12);
  EXPECT_EQ(g.batch, 3);
  EXPECT_EQ(g.strideA, 30);
  EXPECT_EQ(g.strideB, 4);
  EXPECT_EQ(g.strideC, 4);
  EXPECT_EQ(g.outerBatch, 2);
  EXPECT_EQ(g.outerStrideA, 90);
  EXPECT_EQ(g.outerStrideB, 72);
  EXPECT_EQ(g.outerStrideC, 60);
}

// P6's shapes (b=4, t=s=64, h=8, k=32): the same two plans, the numbers
// programs.md's attention runs with.
TEST(EinsumPlan, AttentionAtProgramShapes) {
  auto sc =
      planEinsum("bthk,bshk->bhts", {4, 64, 8, 32}, {4, 64, 8, 32}, DType::F32);
  expectNoCopies(sc);
  EXPECT_EQ(sc.gemm.str(),
            "gemm m=64 n=64 k=32 transA=0 transB=1 lda=256 ldb=256 ldc=64 "
            "strideA=32 strideB=32 strideC=4096 batch=8 outerBatch=4 "
            "outerStrideA=16384 outerStrideB=16384 outerStrideC=32768");
  auto o =
      planEinsum("bhts,bshk->bthk", {4, 8, 64, 64}, {4, 64, 8, 32}, DType::F32);
  expectNoCopies(o);
  EXPECT_EQ(o.gemm.str(),
            "gemm m=64 n=32 k=64 transA=0 transB=0 lda=64 ldb=256 ldc=256 "
            "strideA=4096 strideB=32 strideC=32 batch=8 outerBatch=4 "
            "outerStrideA=32768 outerStrideB=16384 outerStrideC=16384");
}

// A split is taken only when it saves a copy: with b, h adjacent in every
// operand, one strided batch of b*h = 6 GEMMs (outerBatch stays 1).
TEST(EinsumPlan, AdjacentBatchLettersKeepOneLevel) {
  auto p =
      planEinsum("bhtk,bhsk->bhts", {2, 3, 5, 4}, {2, 3, 6, 4}, DType::F32);
  expectNoCopies(p);
  EXPECT_EQ(p.gemm.batch, 6);
  EXPECT_EQ(p.gemm.outerBatch, 1);
  EXPECT_EQ(p.gemm.strideC, 30);
}

// The cheaper operand is the one copied: with A = [j, i] x B whose k group
// is split, only B is permuted.
TEST(EinsumPlan, PermutesOnlyWhatDoesNotFit) {
  // B "kxj" has the contracted letters k, j not adjacent.
  auto p = planEinsum("ikj,kxj->ix", {3, 4, 5}, {4, 2, 5}, DType::F32);
  EXPECT_FALSE(p.permuteA);
  EXPECT_TRUE(p.permuteB);
  EXPECT_FALSE(p.permuteOut);
}

TEST(EinsumPlan, LettersOfOneOperandAreSummedFirst) {
  auto p = planEinsum("ijx,jky->ik", {3, 4, 2}, {4, 5, 3}, DType::F32);
  EXPECT_TRUE(p.reduceA);
  EXPECT_TRUE(p.reduceB);
  EXPECT_EQ(p.reduceAPlan.spec, "ijx->ij");
  EXPECT_EQ(p.reduceBPlan.spec, "jky->jk");
  EXPECT_EQ(p.gemm.k, 4);
}

TEST(EinsumPlan, ExtentOneLettersNeverForceCopies) {
  // With a = 1 the layouts are plain matrices whatever the letter order.
  auto p = planEinsum("mak,kn->nam", {3, 1, 4}, {4, 5}, DType::F32);
  expectNoCopies(p);
  EXPECT_TRUE(p.swapOperands);
}

TEST(EinsumPlan, ZeroExtentContractionZeroFills) {
  auto p = planEinsum("md,dn->mn", {3, 0}, {0, 2}, DType::F32);
  EXPECT_EQ(p.gemm.batch, 0);
  EXPECT_EQ(p.outShape, (Shape{3, 2}));
}

TEST(EinsumPlan, Unary) {
  auto t = planEinsum("ij->ji", {3, 4}, DType::F32);
  EXPECT_TRUE(t.unary);
  EXPECT_TRUE(t.unaryIsCopy);
  EXPECT_EQ(t.outShape, (Shape{4, 3}));
  auto r = planEinsum("ijk->ki", {3, 4, 5}, DType::F32);
  EXPECT_FALSE(r.unaryIsCopy);
  EXPECT_EQ(r.unaryReduce.reducedElements, 4);
  EXPECT_EQ(r.outShape, (Shape{5, 3}));
}

TEST(EinsumPlan, Errors) {
  auto bad = [](const std::string &spec, Shape a, Shape b) {
    EXPECT_THROW(planEinsum(spec, a, b, DType::F32), Error) << spec;
  };
  bad("ij,jk->iz", {2, 3}, {3, 4});    // result letter in no operand
  bad("ii,ij->j", {2, 2}, {2, 3});     // repeated letter
  bad("ij,jk->ik", {2, 3, 1}, {3, 4}); // rank mismatch
  bad("ij,jk->ik", {2, 3}, {4, 4});    // size mismatch on j
  bad("i1,1k->ik", {2, 3}, {3, 4});    // not a letter
  bad("ij,jk", {2, 3}, {3, 4});        // no arrow
  EXPECT_THROW(EinsumSpec::parse("a,b,c->abc"), Error);
  EXPECT_THROW(planEinsum("ij->ik", {2, 3}, DType::F32), Error);
  try {
    planEinsum("ij,jk->ik", {2, 3}, {4, 4}, DType::F32);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("letter 'j' has size 3 and 4"),
              std::string::npos)
        << e.what();
  }
}

TEST(CopyPlan, PermuteExtractInsert) {
  // dst[j][i] = src[i][j] for a 2x3 source.
  CopyPlan t = CopyPlan::permute({2, 3}, {1, 0});
  std::vector<int> src{0, 1, 2, 3, 4, 5}, dst(6, -1);
  copyStridedHost(t, sizeof(int), src.data(), dst.data());
  EXPECT_EQ(dst, (std::vector<int>{0, 3, 1, 4, 2, 5}));

  CopyPlan e = CopyPlan::extractBlock({3, 4}, {1, 1}, {2, 2});
  std::vector<int> m(12), blk(4, -1);
  for (int i = 0; i < 12; ++i)
    m[i] = i;
  copyStridedHost(e, sizeof(int), m.data(), blk.data());
  EXPECT_EQ(blk, (std::vector<int>{5, 6, 9, 10}));

  CopyPlan in = CopyPlan::insertBlock({3, 4}, {1, 2}, {2, 2});
  std::vector<int> big(12, 0), small{1, 2, 3, 4};
  copyStridedHost(in, sizeof(int), small.data(), big.data());
  EXPECT_EQ(big, (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4}));

  // A block of whole rows is one contiguous run after simplify().
  CopyPlan rows = CopyPlan::extractBlock({4, 5, 6}, {2, 0, 0}, {2, 5, 6});
  EXPECT_TRUE(rows.isContiguous());
  EXPECT_EQ(rows.srcOffset, 60);
  EXPECT_THROW(CopyPlan::extractBlock({4, 5}, {3, 0}, {2, 5}), Error);
}

// pad_fill's plan: keep = clamp(valid - first, 0, extent) per dim, and a
// dim absorbs the fully kept dims inside it.
TEST(PadFillPlan, MergesFullyKeptInnerDims) {
  // The last shard of [10, 64] split 4 ways (blocks of 3 rows): one row.
  PadFillPlan p = planPadFill(DType::F32, {3, 64}, {9, 0}, {10, 64}, 0);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.shape[0], 192);
  EXPECT_EQ(p.keep[0], 64);
  EXPECT_EQ(p.count, 192);
  EXPECT_EQ(p.inside, 64);
  // Padded along the inner dim: two dims (the outer one fully kept).
  p = planPadFill(DType::F32, {4, 6}, {0, 6}, {4, 10}, 0);
  ASSERT_EQ(p.rank, 2);
  EXPECT_EQ(p.shape[0], 4);
  EXPECT_EQ(p.shape[1], 6);
  EXPECT_EQ(p.keep[0], 4);
  EXPECT_EQ(p.keep[1], 4);
  // Padded along dims 0 and 2 of 3; dim 1 (fully kept) merges into dim 0,
  // the extent-1 dim drops out.
  p = planPadFill(DType::F32, {2, 3, 1, 5}, {4, 0, 0, 10}, {5, 3, 1, 12}, 0);
  ASSERT_EQ(p.rank, 2);
  EXPECT_EQ(p.shape[0], 6);
  EXPECT_EQ(p.keep[0], 3);
  EXPECT_EQ(p.shape[1], 5);
  EXPECT_EQ(p.keep[1], 2);
  EXPECT_EQ(p.inside, 1 * 3 * 1 * 2);
  // Nothing padded, everything padded, an empty block, a scalar.
  p = planPadFill(DType::F32, {3, 4}, {3, 0}, {6, 4}, 0);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.inside, 12);
  EXPECT_EQ(p.keep[0], 12);
  p = planPadFill(DType::F32, {3, 4}, {12, 0}, {10, 4}, 0);
  EXPECT_EQ(p.inside, 0);
  EXPECT_EQ(p.keep[0], 0);
  EXPECT_EQ(p.shape[0], 12);
  p = planPadFill(DType::F32, {0, 4}, {0, 0}, {0, 4}, 0);
  EXPECT_EQ(p.count, 0);
  p = planPadFill(DType::F32, {}, {}, {}, 0);
  EXPECT_EQ(p.count, 1);
  EXPECT_EQ(p.inside, 1);
  // Eight alternating padded dims fit; nine do not.
  Shape s8(8, 2), s9(9, 2);
  p = planPadFill(DType::F32, s8, std::vector<int64_t>(8, 1),
                  std::vector<int64_t>(8, 2), 0);
  EXPECT_EQ(p.rank, 8);
  EXPECT_EQ(p.count, 256);
  EXPECT_EQ(p.inside, 1);
  EXPECT_THROW(planPadFill(DType::F32, s9, std::vector<int64_t>(9, 1),
                           std::vector<int64_t>(9, 2), 0),
               Error);
}

TEST(PadFillPlan, FillBitsAndErrors) {
  auto bitsOf = [](auto v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
  };
  Shape s{2};
  std::vector<int64_t> f{0}, v{1};
  EXPECT_EQ(planPadFill(DType::F32, s, f, v, -1.5).fill, bitsOf(-1.5f));
  EXPECT_EQ(planPadFill(DType::F64, s, f, v, 0.1).fill, bitsOf(0.1));
  EXPECT_EQ(planPadFill(DType::F32, s, f, v, -INFINITY).fill,
            bitsOf(-INFINITY));
  EXPECT_EQ(planPadFill(DType::F16, s, f, v, 1.0).fill, 0x3c00u);
  EXPECT_EQ(planPadFill(DType::BF16, s, f, v, 1.0).fill, 0x3f80u);
  EXPECT_EQ(planPadFill(DType::I32, s, f, v, -3.7).fill,
            static_cast<uint32_t>(-3));
  EXPECT_EQ(planPadFill(DType::I32, s, f, v, 1e12).fill, 0x7fffffffu);
  EXPECT_EQ(planPadFill(DType::I32, s, f, v, -INFINITY).fill, 0x80000000u);
  EXPECT_THROW(planPadFill(DType::I32, s, f, v, NAN), Error);
  EXPECT_THROW(planPadFill(DType::F32, {2, 3}, {0}, {1, 1}, 0), Error);
  EXPECT_THROW(planPadFill(DType::F32, {2, 3}, {0, 0}, {1}, 0), Error);
  EXPECT_THROW(planPadFill(DType::F32, {2}, {-1}, {1}, 0), Error);
  EXPECT_THROW(planPadFill(DType::F32, {2}, {0}, {-1}, 0), Error);
  EXPECT_THROW(planPadFill(DType::F32, {-2}, {0}, {1}, 0), Error);
  EXPECT_THROW(planPadFill(DType::F32, {2}, {INT64_MAX - 1}, {1}, 0), Error);
  EXPECT_THROW(
      planPadFill(DType::F32, {int64_t(1) << 62, 4}, {0, 0}, {1, 1}, 0),
      Error); // more than 2^63 elements
  EXPECT_THROW(planPadFill(DType::F64, {int64_t(1) << 61}, {0}, {1}, 0),
               Error); // more than 2^63 bytes
}

// cumsum's plan: the shape viewed as [outer, n, inner] around dim.
TEST(CumsumPlan, OuterLineInner) {
  CumsumPlan p = planCumsum(DType::F32, {3, 5, 6}, 1, true, false);
  EXPECT_EQ(p.dtype, DType::F32);
  EXPECT_EQ(p.dim, 1);
  EXPECT_TRUE(p.exclusive);
  EXPECT_FALSE(p.reverse);
  EXPECT_EQ(p.outer, 3);
  EXPECT_EQ(p.n, 5);
  EXPECT_EQ(p.inner, 6);
  EXPECT_EQ(p.lines, 18);
  EXPECT_EQ(p.count, 90);
  p = planCumsum(DType::F64, {3, 5, 6}, 0, false, true);
  EXPECT_TRUE(p.reverse);
  EXPECT_EQ(p.outer, 1);
  EXPECT_EQ(p.n, 3);
  EXPECT_EQ(p.inner, 30);
  p = planCumsum(DType::F16, {3, 5, 6}, 2, false, false);
  EXPECT_EQ(p.outer, 15);
  EXPECT_EQ(p.n, 6);
  EXPECT_EQ(p.inner, 1);
  EXPECT_EQ(p.lines, 15);
  p = planCumsum(DType::BF16, {7}, 0, false, false);
  EXPECT_EQ(p.outer, 1);
  EXPECT_EQ(p.n, 7);
  EXPECT_EQ(p.inner, 1);
  EXPECT_EQ(p.count, 7);
  p = planCumsum(DType::F32, {4, 1, 2}, 1, false, false); // n = 1
  EXPECT_EQ(p.n, 1);
  EXPECT_EQ(p.lines, 8);
  // Empty tensors: nothing to do, even where the other extents' product
  // would overflow.
  p = planCumsum(DType::F32, {3, 0, 4}, 1, false, false);
  EXPECT_EQ(p.count, 0);
  EXPECT_EQ(p.lines, 0);
  EXPECT_EQ(p.n, 0);
  p = planCumsum(DType::F32, {3, 0, 4}, 2, false, false);
  EXPECT_EQ(p.count, 0);
  EXPECT_EQ(p.lines, 0);
  p = planCumsum(DType::F32, {int64_t(1) << 62, 8, 0}, 2, false, false);
  EXPECT_EQ(p.count, 0);
  EXPECT_EQ(p.lines, 0);
}

TEST(CumsumPlan, Errors) {
  auto message = [](auto &&f) {
    try {
      f();
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto has = [](const std::string &m, const char *part) {
    return m.find(part) != std::string::npos;
  };
  std::string m =
      message([] { planCumsum(DType::F32, {2, 3}, 2, false, false); });
  EXPECT_TRUE(has(m, "cumsum: dim 2 is out of range for [2, 3]")) << m;
  m = message([] { planCumsum(DType::F32, {2, 3}, -1, false, false); });
  EXPECT_TRUE(has(m, "cumsum: dim -1 is out of range")) << m;
  m = message([] { planCumsum(DType::F32, {}, 0, false, false); });
  EXPECT_TRUE(has(m, "rank-0")) << m;
  m = message([] { planCumsum(DType::I32, {4}, 0, false, false); });
  EXPECT_TRUE(has(m, "cumsum of i32 is not supported")) << m;
  m = message([] { planCumsum(DType::F32, {2, -3}, 0, false, false); });
  EXPECT_TRUE(has(m, "negative extent")) << m;
  m = message(
      [] { planCumsum(DType::F32, {int64_t(1) << 62, 4}, 0, false, false); });
  EXPECT_TRUE(has(m, "more than 2^63 elements")) << m;
  m = message(
      [] { planCumsum(DType::F64, {int64_t(1) << 61}, 0, false, false); });
  EXPECT_TRUE(has(m, "too large")) << m;
}

// A fused chain's plan: planMap's strides over 1..8 operands, merged dims,
// and the steps kept as given.
TEST(FusedMapPlan, StridesMergedDimsAndSteps) {
  // bias + relu: "btd,d->btd", add then relu.
  std::vector<FusedStep> steps = {{MapKind::Add, 0, 1, 0.0},
                                  {MapKind::Relu, 2, -1, 0.0}};
  FusedMapPlan p =
      planFusedMap("btd,d->btd", {{2, 3, 5}, {5}}, {2, 3, 5}, steps);
  EXPECT_EQ(p.spec, "btd,d->btd");
  EXPECT_EQ(p.outShape, (Shape{2, 3, 5}));
  // b and t merge (contiguous in the result and the first operand, stride 0
  // in the bias).
  EXPECT_EQ(p.shape, (Shape{6, 5}));
  ASSERT_EQ(p.inStrides.size(), 2u);
  EXPECT_EQ(p.inStrides[0], (std::vector<int64_t>{5, 1}));
  EXPECT_EQ(p.inStrides[1], (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(p.outStrides, (std::vector<int64_t>{5, 1}));
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[1].kind, MapKind::Relu);
  EXPECT_EQ(p.steps[1].a, 2);

  // A transposed operand, a rank-0 operand and a broadcast result letter
  // (k, sized by the result shape only).
  FusedMapPlan q = planFusedMap("ij,ji,->ijk", {{3, 4}, {4, 3}, {}}, {3, 4, 2},
                                {{MapKind::Mul, 0, 1, 0.0},
                                 {MapKind::Scale, 3, -1, 2.5},
                                 {MapKind::Sub, 4, 2, 0.0}});
  EXPECT_EQ(q.shape, (Shape{3, 4, 2})); // the transpose keeps i, j apart
  EXPECT_EQ(q.inStrides[0], (std::vector<int64_t>{4, 1, 0}));
  EXPECT_EQ(q.inStrides[1], (std::vector<int64_t>{1, 3, 0}));
  EXPECT_EQ(q.inStrides[2], (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(q.outStrides, (std::vector<int64_t>{8, 2, 1}));

  // The limits: 8 inputs, 16 steps; a step may read any earlier value.
  std::vector<FusedStep> chain;
  for (int i = 1; i < kMaxFusedInputs; ++i)
    chain.push_back({MapKind::Add, i == 1 ? 0 : kMaxFusedInputs + i - 2, i});
  while (chain.size() < static_cast<std::size_t>(kMaxFusedSteps))
    chain.push_back(
        {MapKind::Neg, kMaxFusedInputs + static_cast<int>(chain.size()) - 1});
  FusedMapPlan r =
      planFusedMap("i,i,i,i,i,i,i,i->i",
                   std::vector<Shape>(kMaxFusedInputs, {7}), {7}, chain);
  EXPECT_EQ(r.inStrides.size(), 8u);
  EXPECT_EQ(r.steps.size(), 16u);
  EXPECT_EQ(r.shape, (Shape{7}));

  // Rank 0 and empty results.
  FusedMapPlan z = planFusedMap("->", {{}}, {}, {{MapKind::Exp, 0}});
  EXPECT_TRUE(z.shape.empty());
  FusedMapPlan e =
      planFusedMap("ij->ij", {{0, 3}}, {0, 3}, {{MapKind::Exp, 0}});
  EXPECT_EQ(e.shape, (Shape{0}));
}

TEST(FusedMapPlan, Errors) {
  auto message = [](auto &&f) {
    try {
      f();
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto has = [](const std::string &m, const char *part) {
    return m.find(part) != std::string::npos;
  };
  const std::vector<Shape> two = {{2, 3}, {3}};
  const Shape out = {2, 3};
  auto plan = [&](std::vector<FusedStep> steps) {
    return message([&] { planFusedMap("ij,j->ij", two, out, steps); });
  };
  EXPECT_EQ(plan({{MapKind::Add, 0, 1}}), "no error");
  // Arity: a binary kind without its second operand, a unary one with one.
  std::string m = plan({{MapKind::Add, 0, -1}});
  EXPECT_TRUE(has(m, "fused_map spec 'ij,j->ij': step 0 (add) reads value "
                     "-1 as its second operand"))
      << m;
  m = plan({{MapKind::Add, 0, 1}, {MapKind::Relu, 2, 1}});
  EXPECT_TRUE(has(m, "step 1 (relu) is unary but has a second operand 1")) << m;
  // Forward and out-of-range ids: step j reads values below inputs + j.
  m = plan({{MapKind::Add, 0, 2}});
  EXPECT_TRUE(has(m, "step 0 (add) reads value 2 as its second operand, but "
                     "only values 0 to 1 exist"))
      << m;
  m = plan({{MapKind::Add, 0, 1}, {MapKind::Exp, 3}});
  EXPECT_TRUE(has(m, "step 1 (exp) reads value 3 as its first operand")) << m;
  m = plan({{MapKind::Add, -2, 1}});
  EXPECT_TRUE(has(m, "reads value -2")) << m;
  m = plan({{static_cast<MapKind>(99), 0, 1}});
  EXPECT_TRUE(has(m, "step 0 has invalid kind 99")) << m;
  // Every input is read.
  m = plan({{MapKind::Exp, 0}});
  EXPECT_TRUE(has(m, "input 1 'j' is read by no step")) << m;
  // Step counts.
  m = plan({});
  EXPECT_TRUE(has(m, "has 0 steps, expected 1 to 16")) << m;
  std::vector<FusedStep> many = {{MapKind::Add, 0, 1}};
  while (many.size() <= static_cast<std::size_t>(kMaxFusedSteps))
    many.push_back({MapKind::Neg, 1 + static_cast<int>(many.size())});
  m = plan(many);
  EXPECT_TRUE(has(m, "has 17 steps, expected 1 to 16")) << m;
  // Input counts: at most 8.
  m = message([] {
    planFusedMap("i,i,i,i,i,i,i,i,i->i", std::vector<Shape>(9, {4}), {4},
                 {{MapKind::Add, 0, 1}});
  });
  EXPECT_TRUE(has(m, "has 9 operands, expected 1 to 8")) << m;
  // Letters and sizes.
  m = message(
      [] { planFusedMap("ij->i", {{2, 3}}, {2}, {{MapKind::Exp, 0}}); });
  EXPECT_TRUE(has(m, "operand letter 'j' missing from the result")) << m;
  m = message(
      [] { planFusedMap("i,i->i", {{2}, {3}}, {2}, {{MapKind::Add, 0, 1}}); });
  EXPECT_TRUE(has(m, "letter 'i' has size 2 and 3")) << m;
  m = message([] {
    planFusedMap("ij,j->ij", {{2, 3}, {3}}, {2, 4}, {{MapKind::Add, 0, 1}});
  });
  EXPECT_TRUE(has(m, "result letter 'j' has size 4 but 3 in an operand")) << m;
  m = message([] {
    planFusedMap("ij,j->ij", {{2, 3}, {3}}, {2}, {{MapKind::Add, 0, 1}});
  });
  EXPECT_TRUE(has(m, "the result has 2 letters but rank 1")) << m;
  m = message([] {
    planFusedMap("i,j->ij", {{int64_t(1) << 40}, {int64_t(1) << 40}},
                 {int64_t(1) << 40, int64_t(1) << 40}, {{MapKind::Add, 0, 1}});
  });
  EXPECT_TRUE(has(m, "more than 2^63 elements")) << m;
  m = message([] {
    planFusedMap("i->i", {{int64_t(1) << 61}}, {int64_t(1) << 61},
                 {{MapKind::Exp, 0}});
  });
  EXPECT_TRUE(has(m, "too large")) << m;
}

// top-k's plan: the shape viewed as [outer, n, inner] around dim, k of n.
TEST(TopKPlan, OuterLineInner) {
  TopKPlan p = planTopK(DType::F32, {3, 5, 6}, 1, 2);
  EXPECT_EQ(p.dtype, DType::F32);
  EXPECT_EQ(p.dim, 1);
  EXPECT_EQ(p.outer, 3);
  EXPECT_EQ(p.n, 5);
  EXPECT_EQ(p.inner, 6);
  EXPECT_EQ(p.k, 2);
  EXPECT_EQ(p.lines, 18);
  EXPECT_EQ(p.count, 90);
  EXPECT_EQ(p.outCount, 36);
  p = planTopK(DType::F64, {3, 5, 6}, 0, 3); // k = n
  EXPECT_EQ(p.outer, 1);
  EXPECT_EQ(p.n, 3);
  EXPECT_EQ(p.inner, 30);
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.outCount, 90);
  p = planTopK(DType::F16, {3, 5, 6}, 2, 1);
  EXPECT_EQ(p.outer, 15);
  EXPECT_EQ(p.n, 6);
  EXPECT_EQ(p.inner, 1);
  EXPECT_EQ(p.lines, 15);
  EXPECT_EQ(p.outCount, 15);
  p = planTopK(DType::BF16, {1}, 0, 1); // n = 1
  EXPECT_EQ(p.n, 1);
  EXPECT_EQ(p.lines, 1);
  EXPECT_EQ(p.count, 1);
  EXPECT_EQ(p.outCount, 1);
  // Empty outside dim: nothing to do, even where the other extents'
  // product would overflow.
  p = planTopK(DType::F32, {0, 4}, 1, 2);
  EXPECT_EQ(p.count, 0);
  EXPECT_EQ(p.lines, 0);
  EXPECT_EQ(p.outCount, 0);
  p = planTopK(DType::F32, {int64_t(1) << 62, 8, 0}, 1, 8);
  EXPECT_EQ(p.count, 0);
  EXPECT_EQ(p.lines, 0);
  EXPECT_EQ(p.outCount, 0);
}

TEST(TopKPlan, Errors) {
  auto message = [](auto &&f) {
    try {
      f();
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto has = [](const std::string &m, const char *part) {
    return m.find(part) != std::string::npos;
  };
  std::string m = message([] { planTopK(DType::F32, {2, 3}, 1, 0); });
  EXPECT_TRUE(has(m, "top_k: k = 0 is out of range for dim 1 of [2, 3] "
                     "(1 <= k <= 3)"))
      << m;
  m = message([] { planTopK(DType::F32, {2, 3}, 1, 4); });
  EXPECT_TRUE(has(m, "top_k: k = 4 is out of range")) << m;
  m = message([] { planTopK(DType::F32, {2, 3}, 1, -1); });
  EXPECT_TRUE(has(m, "top_k: k = -1 is out of range")) << m;
  m = message([] { planTopK(DType::F32, {2, 0}, 1, 1); }); // n = 0
  EXPECT_TRUE(has(m, "top_k: k = 1 is out of range")) << m;
  m = message([] { planTopK(DType::F32, {2, 3}, 2, 1); });
  EXPECT_TRUE(has(m, "top_k: dim 2 is out of range for [2, 3]")) << m;
  m = message([] { planTopK(DType::F32, {2, 3}, -1, 1); });
  EXPECT_TRUE(has(m, "top_k: dim -1 is out of range")) << m;
  m = message([] { planTopK(DType::F32, {}, 0, 1); });
  EXPECT_TRUE(has(m, "rank-0")) << m;
  m = message([] { planTopK(DType::I32, {4}, 0, 1); });
  EXPECT_TRUE(has(m, "top_k of i32 is not supported")) << m;
  m = message([] { planTopK(DType::F32, {-2, 3}, 1, 1); });
  EXPECT_TRUE(has(m, "negative extent")) << m;
  m = message([] { planTopK(DType::F32, {int64_t(1) << 62, 4}, 1, 2); });
  EXPECT_TRUE(has(m, "more than 2^63 elements")) << m;
  m = message([] { planTopK(DType::F64, {int64_t(1) << 61}, 0, 1); });
  EXPECT_TRUE(has(m, "too large")) << m;
}

// A fused row chain's plan: kept dims merged, row strides, full flags.
TEST(FusedRowsPlan, SoftmaxRmsNormAndRowValues) {
  using K = MapKind;
  // Softmax over s: b, h, t merge into one kept dim of 2*3*4 rows.
  FusedRowsPlan p = planFusedRows(
      "bhts->bhts", "s", {{2, 3, 4, 5}},
      {fusedRowReduce(ReduceKind::Max, 0), fusedRowMap(K::Sub, 0, 1),
       fusedRowMap(K::Exp, 2), fusedRowReduce(ReduceKind::Sum, 3),
       fusedRowMap(K::Div, 3, 4)});
  EXPECT_EQ(p.spec, "bhts->bhts");
  EXPECT_EQ(p.rowLetters, "s");
  EXPECT_EQ(p.outShape, (Shape{2, 3, 4, 5}));
  EXPECT_EQ(p.keptShape, (Shape{24}));
  EXPECT_EQ(p.rows, 24);
  EXPECT_EQ(p.rowLength, 5);
  EXPECT_EQ(p.inKeptStrides, (std::vector<std::vector<int64_t>>{{5}}));
  EXPECT_EQ(p.outKeptStrides, (std::vector<int64_t>{5}));
  EXPECT_EQ(p.inRowStrides, (std::vector<int64_t>{1}));
  EXPECT_EQ(p.outRowStride, 1);
  EXPECT_EQ(p.full, (std::vector<bool>{true, false, true, true, false, true}));
  ASSERT_EQ(p.steps.size(), 5u);
  EXPECT_TRUE(p.steps[3].reduce);
  EXPECT_EQ(p.steps[3].reduceKind, ReduceKind::Sum);

  // RMSNorm with a weight over rows "d" (the weight: stride 0 along the
  // kept dims, a full input).
  p = planFusedRows(
      "btd,d->btd", "d", {{2, 3, 8}, {8}},
      {fusedRowMap(K::Square, 0), fusedRowReduce(ReduceKind::Sum, 2),
       fusedRowMap(K::Scale, 3, -1, 0.125), fusedRowMap(K::Shift, 4, -1, 1e-5),
       fusedRowMap(K::Rsqrt, 5), fusedRowMap(K::Mul, 0, 6),
       fusedRowMap(K::Mul, 7, 1)});
  EXPECT_EQ(p.keptShape, (Shape{6}));
  EXPECT_EQ(p.inKeptStrides, (std::vector<std::vector<int64_t>>{{8}, {0}}));
  EXPECT_EQ(p.inRowStrides, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(p.full, (std::vector<bool>{true, true, true, false, false, false,
                                       false, true, true}));

  // A row-valued result (log-sum-exp), two row letters, a row-value input
  // and a transposed kept letter: t, b do not merge.
  p = planFusedRows("tbhd,bt->bt", "hd", {{3, 2, 4, 5}, {2, 3}},
                    {fusedRowReduce(ReduceKind::Max, 0),
                     fusedRowMap(K::Sub, 0, 2), fusedRowMap(K::Exp, 3),
                     fusedRowReduce(ReduceKind::Sum, 4), fusedRowMap(K::Log, 5),
                     fusedRowMap(K::Add, 6, 2), fusedRowMap(K::Mul, 7, 1)});
  EXPECT_EQ(p.outShape, (Shape{2, 3}));
  EXPECT_EQ(p.keptShape, (Shape{2, 3}));
  EXPECT_EQ(p.rows, 6);
  EXPECT_EQ(p.rowLength, 20);
  EXPECT_EQ(p.inKeptStrides,
            (std::vector<std::vector<int64_t>>{{20, 40}, {3, 1}}));
  EXPECT_EQ(p.outKeptStrides, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(p.inRowStrides, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(p.outRowStride, 0);
  EXPECT_FALSE(p.full.back());

  // A transposed full input: the row is read at stride b.
  p = planFusedRows("sb->bs", "s", {{7, 3}},
                    {fusedRowMap(K::Exp, 0), fusedRowReduce(ReduceKind::Sum, 1),
                     fusedRowMap(K::Div, 1, 2)});
  EXPECT_EQ(p.keptShape, (Shape{3}));
  EXPECT_EQ(p.inKeptStrides, (std::vector<std::vector<int64_t>>{{1}}));
  EXPECT_EQ(p.inRowStrides, (std::vector<int64_t>{3}));
  EXPECT_EQ(p.outKeptStrides, (std::vector<int64_t>{7}));

  // One row (no kept letters), extent-1 row letters, an empty space.
  p = planFusedRows("s->", "s", {{9}}, {fusedRowReduce(ReduceKind::Min, 0)});
  EXPECT_TRUE(p.keptShape.empty());
  EXPECT_EQ(p.rows, 1);
  EXPECT_EQ(p.rowLength, 9);
  p = planFusedRows(
      "bsu->bsu", "su", {{4, 1, 6}},
      {fusedRowReduce(ReduceKind::Max, 0), fusedRowMap(K::Sub, 0, 1)});
  EXPECT_EQ(p.rowLength, 6);
  EXPECT_EQ(p.inRowStrides, (std::vector<int64_t>{1}));
  p = planFusedRows(
      "bs->bs", "s", {{0, 6}},
      {fusedRowReduce(ReduceKind::Max, 0), fusedRowMap(K::Sub, 0, 1)});
  EXPECT_EQ(p.rows, 0);
  p = planFusedRows("bs->b", "s", {{4, 0}},
                    {fusedRowReduce(ReduceKind::Sum, 0)});
  EXPECT_EQ(p.rows, 4);
  EXPECT_EQ(p.rowLength, 0);
}

TEST(FusedRowsPlan, Errors) {
  auto message = [](auto &&f) {
    try {
      f();
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto has = [](const std::string &m, const char *part) {
    return m.find(part) != std::string::npos;
  };
  using K = MapKind;
  const std::vector<FusedRowStep> softmax = {
      fusedRowReduce(ReduceKind::Max, 0), fusedRowMap(K::Sub, 0, 1),
      fusedRowMap(K::Exp, 2), fusedRowReduce(ReduceKind::Sum, 3),
      fusedRowMap(K::Div, 3, 4)};
  auto plan = [&](const char *spec, const char *rows, std::vector<Shape> shapes,
                  std::vector<FusedRowStep> steps) {
    return message([&] { planFusedRows(spec, rows, shapes, steps); });
  };
  EXPECT_EQ(plan("bs->bs", "s", {{2, 3}}, softmax), "no error");
  // The row letters.
  std::string m = plan("bs->bs", "", {{2, 3}}, softmax);
  EXPECT_TRUE(has(m, "fused_rows spec 'bs->bs' (rows ''): names no row "
                     "letter"))
      << m;
  m = plan("bs->bs", "ss", {{2, 3}}, softmax);
  EXPECT_TRUE(has(m, "row letter 's' is repeated")) << m;
  m = plan("bs->bs", "s1", {{2, 3}}, softmax);
  EXPECT_TRUE(has(m, "row letter '1' is not a letter")) << m;
  // The result and the inputs' letters.
  m = plan("bs->sb", "s", {{2, 3}}, softmax);
  EXPECT_TRUE(has(m, "the result 'sb' holds row letters but not 's' as its "
                     "trailing letters"))
      << m;
  m = plan("bst,bs->bst", "st", {{2, 3, 4}, {2, 3}},
           {fusedRowMap(K::Add, 0, 1), fusedRowReduce(ReduceKind::Sum, 2),
            fusedRowMap(K::Sub, 2, 3)});
  EXPECT_TRUE(has(m, "input 1 'bs' holds some of the row letters 'st' but "
                     "not all"))
      << m;
  m = plan("bsx->bs", "s", {{2, 3, 4}}, softmax);
  EXPECT_TRUE(has(m, "input 0 'bsx': letter 'x' is neither a kept letter of "
                     "the result nor a row letter"))
      << m;
  m = plan("b->b", "s", {{2}}, {fusedRowMap(K::Exp, 0)});
  EXPECT_TRUE(has(m, "no input holds the row letters")) << m;
  m = plan("s->bs", "s", {{3}}, softmax);
  EXPECT_TRUE(has(m, "result letter 'b' is in no input")) << m;
  m = plan("bst->bst", "st", {{2, 3, 4}}, softmax);
  EXPECT_EQ(m, "no error");
  m = plan("tbs->bts", "ts", {{3, 2, 4}}, softmax); // b between t and s
  EXPECT_TRUE(has(m, "input 0 'tbs': its row letters do not merge into one "
                     "stride (they must be adjacent, in the order 'ts')"))
      << m;
  m = plan("sbt->bst", "st", {{3, 2, 4}}, softmax); // s, t not adjacent
  EXPECT_TRUE(has(m, "input 0 'sbt': its row letters do not merge into one "
                     "stride"))
      << m;
  m = plan("bts->bst", "st", {{2, 4, 3}}, softmax); // t, s swapped
  EXPECT_TRUE(has(m, "its row letters do not merge")) << m;
  m = plan("bs,bs->bs", "s", {{2, 3}, {2, 4}}, softmax);
  EXPECT_TRUE(has(m, "letter 's' has size 3 and 4")) << m;
  // Sizes.
  m = plan("bs->bs", "s", {{int64_t(1) << 40, int64_t(1) << 40}}, softmax);
  EXPECT_TRUE(has(m, "more than 2^63 elements")) << m;
  m = plan("bs->bs", "s", {{int64_t(1) << 30, int64_t(1) << 31}}, softmax);
  EXPECT_TRUE(has(m, "too large")) << m;
  // Steps: counts, kinds, arity, ids, reductions of row values, inputs read
  // and the last step's kind.
  m = plan("bs->bs", "s", {{2, 3}}, {});
  EXPECT_TRUE(has(m, "has 0 steps, expected 1 to 16")) << m;
  std::vector<FusedRowStep> many = {fusedRowMap(K::Exp, 0)};
  while (many.size() <= static_cast<std::size_t>(kMaxFusedSteps))
    many.push_back(fusedRowMap(K::Neg, static_cast<int>(many.size())));
  m = plan("bs->bs", "s", {{2, 3}}, many);
  EXPECT_TRUE(has(m, "has 17 steps, expected 1 to 16")) << m;
  m = plan("s,s,s,s,s,s,s,s,s->s", "s", std::vector<Shape>(9, {4}),
           {fusedRowMap(K::Add, 0, 1)});
  EXPECT_TRUE(has(m, "has 9 operands, expected 1 to 8")) << m;
  m = plan("bs->bs", "s", {{2, 3}}, {fusedRowMap(static_cast<K>(99), 0)});
  EXPECT_TRUE(has(m, "step 0 has invalid kind 99")) << m;
  m = plan("bs->b", "s", {{2, 3}},
           {fusedRowReduce(static_cast<ReduceKind>(7), 0)});
  EXPECT_TRUE(has(m, "step 0 is a reduction of invalid kind 7")) << m;
  m = plan("bs->bs", "s", {{2, 3}}, {fusedRowMap(K::Add, 0)});
  EXPECT_TRUE(has(m, "step 0 (add) reads value -1 as its second operand")) << m;
  m = plan("bs->bs", "s", {{2, 3}}, {fusedRowMap(K::Exp, 0, 0)});
  EXPECT_TRUE(has(m, "step 0 (exp) takes one operand but has a second "
                     "operand 0"))
      << m;
  FusedRowStep twoOperands = fusedRowReduce(ReduceKind::Sum, 0);
  twoOperands.b = 0;
  m = plan("bs->b", "s", {{2, 3}}, {twoOperands});
  EXPECT_TRUE(has(m, "step 0 (row_sum) takes one operand")) << m;
  m = plan("bs->bs", "s", {{2, 3}}, {fusedRowMap(K::Add, 0, 1)});
  EXPECT_TRUE(has(m, "step 0 (add) reads value 1 as its second operand, but "
                     "only values 0 to 0 exist"))
      << m;
  m = plan("bs->bs", "s", {{2, 3}}, {fusedRowMap(K::Exp, -1)});
  EXPECT_TRUE(has(m, "reads value -1 as its first operand")) << m;
  m = plan(
      "bs->b", "s", {{2, 3}},
      {fusedRowReduce(ReduceKind::Sum, 0), fusedRowReduce(ReduceKind::Max, 1)});
  EXPECT_TRUE(has(m, "step 1 (row_max) reduces value 1, a row value")) << m;
  m = plan("bs,b->bs", "s", {{2, 3}, {2}}, {fusedRowMap(K::Exp, 0)});
  EXPECT_TRUE(has(m, "input 1 'b' is read by no step")) << m;
  m = plan("bs->bs", "s", {{2, 3}}, {fusedRowReduce(ReduceKind::Sum, 0)});
  EXPECT_TRUE(has(m, "the last step is a row value but the result 'bs' holds "
                     "the row letters"))
      << m;
  m = plan("bs->b", "s", {{2, 3}}, {fusedRowMap(K::Exp, 0)});
  EXPECT_TRUE(has(m, "the last step is full but the result 'b' lacks the row "
                     "letters"))
      << m;
}

// ops::reduceCanonical's definition written out over a vector: lanes and
// the tree within a segment, segments by recursion (the streaming
// implementation in ElementOps.h shares only the combine with it).
template <typename R>
double canonicalByDefinition(const std::vector<double> &x) {
  const std::size_t seg = 2048;
  if (x.size() <= seg) {
    double acc[32];
    for (double &a : acc)
      a = R::identity();
    for (std::size_t r = 0; r < x.size(); ++r)
      acc[r % 32] = R::combine(acc[r % 32], x[r]);
    for (int d = 16; d >= 1; d /= 2)
      for (int i = 0; i < d; ++i)
        acc[i] = R::combine(acc[i], acc[i + d]);
    return acc[0];
  }
  std::vector<double> partials;
  for (std::size_t b = 0; b < x.size(); b += seg)
    partials.push_back(canonicalByDefinition<R>(std::vector<double>(
        x.begin() + b, x.begin() + std::min(x.size(), b + seg))));
  return canonicalByDefinition<R>(partials);
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, 8) == 0; }

/// Values with a wide range of magnitudes, so the order of a sum shows.
std::vector<double> spreadValues(int64_t n, uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(n));
  uint64_t s = seed;
  for (auto &x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    x = (u - 0.5) * std::ldexp(1.0, static_cast<int>(s % 40) - 20);
  }
  return v;
}

const std::vector<int64_t> kCanonicalSizes = {
    0,    1,    2,    31,   32,   33,   64,    100,
    2047, 2048, 2049, 4096, 5000, 6145, 70000, 2048 * 2048 + 3};

TEST(ReduceCanonical, MatchesItsDefinition) {
  using Sum = ops::Reduce<ReduceKind::Sum, double>;
  using Max = ops::Reduce<ReduceKind::Max, double>;
  using Min = ops::Reduce<ReduceKind::Min, double>;
  std::vector<int64_t> sizes = kCanonicalSizes;
  sizes.push_back(2048 * 2049 + 1); // three levels: 2050 partials, then 2
  for (int64_t n : sizes) {
    SCOPED_TRACE(n);
    std::vector<double> v = spreadValues(n, 7 + n);
    EXPECT_TRUE(
        sameBits(ops::reduceCanonical<ReduceKind::Sum, double>(v.data(), n),
                 canonicalByDefinition<Sum>(v)));
    EXPECT_TRUE(
        sameBits(ops::reduceCanonical<ReduceKind::Max, double>(v.data(), n),
                 canonicalByDefinition<Max>(v)));
    EXPECT_TRUE(
        sameBits(ops::reduceCanonical<ReduceKind::Min, double>(v.data(), n),
                 canonicalByDefinition<Min>(v)));
  }
  // A stride and a load functor read the same elements.
  std::vector<double> v = spreadValues(3 * 5000, 3);
  std::vector<double> every3rd;
  for (std::size_t i = 0; i < v.size(); i += 3)
    every3rd.push_back(v[i]);
  EXPECT_TRUE(
      sameBits(ops::reduceCanonical<ReduceKind::Sum, double>(v.data(), 5000, 3),
               canonicalByDefinition<Sum>(every3rd)));
  // f32 elements accumulate in f64.
  std::vector<float> f(3000);
  std::vector<double> fd;
  for (std::size_t i = 0; i < f.size(); ++i) {
    f[i] = static_cast<float>(v[i]);
    fd.push_back(f[i]);
  }
  EXPECT_TRUE(
      sameBits(ops::reduceCanonical<ReduceKind::Sum, double>(f.data(), 3000),
               canonicalByDefinition<Sum>(fd)));
  auto canonSum = [](const std::vector<double> &x, int64_t n) {
    return ops::reduceCanonical<ReduceKind::Sum, double>(x.data(), n);
  };
  auto canonMax = [](const std::vector<double> &x, int64_t n) {
    return ops::reduceCanonical<ReduceKind::Max, double>(x.data(), n);
  };
  auto canonMin = [](const std::vector<double> &x, int64_t n) {
    return ops::reduceCanonical<ReduceKind::Min, double>(x.data(), n);
  };
  // The order is not the sequential one: a sum where it shows.
  std::vector<double> cancel(64, 1.0);
  cancel[0] = 1e16;
  cancel[32] = -1e16; // lane 0: 1e16 + -1e16 = 0; the other lanes keep 62
  EXPECT_EQ(canonSum(cancel, 64), 62.0);
  double sequential = 0;
  for (double x : cancel)
    sequential += x;
  EXPECT_NE(sequential, 62.0);
  // Identities for nothing; NaN from any segment, and infinities.
  EXPECT_TRUE(sameBits(canonSum(v, 0), 0.0));
  EXPECT_EQ(canonMax(v, 0), -INFINITY);
  EXPECT_EQ(canonMin(v, 0), INFINITY);
  std::vector<double> w = spreadValues(5000, 5);
  w[4500] = NAN;
  EXPECT_TRUE(std::isnan(canonMax(w, 5000)));
  EXPECT_TRUE(std::isnan(canonMin(w, 5000)));
  EXPECT_TRUE(std::isnan(canonSum(w, 5000)));
  w[4500] = INFINITY;
  EXPECT_EQ(canonMax(w, 5000), INFINITY);
  EXPECT_EQ(canonSum(w, 5000), INFINITY);
}

// Which reductions are row-ordered: the innermost reduced dim, after
// merging, has input stride 1.
TEST(ReduceRowOrdered, InnermostReducedDimContiguous) {
  auto rowOrdered = [](const char *spec, Shape shape) {
    return reduceRowOrdered(planReduce(spec, shape));
  };
  EXPECT_TRUE(rowOrdered("bhts->bht", {2, 3, 4, 5}));
  EXPECT_TRUE(rowOrdered("btd->b", {2, 3, 4})); // t, d merge
  EXPECT_TRUE(rowOrdered("ijk->j", {3, 4, 5})); // i and k: gathered rows
  EXPECT_TRUE(rowOrdered("ij->", {4, 6}));
  EXPECT_FALSE(rowOrdered("ijk->ki", {3, 4, 5})); // j, between kept dims
  EXPECT_FALSE(rowOrdered("btd->d", {3, 4, 5}));  // a bias gradient
  EXPECT_FALSE(rowOrdered("ijk->k", {3, 4, 5}));
  EXPECT_FALSE(rowOrdered("ijk->kji", {3, 4, 5})); // nothing reduced
  EXPECT_FALSE(rowOrdered("ij->j", {0, 3}));       // nothing to reduce
  EXPECT_FALSE(rowOrdered("abcd->db", {2, 3, 1, 4}));
  EXPECT_TRUE(rowOrdered("abcd->ab", {2, 3, 4, 1})); // d has extent 1
  EXPECT_FALSE(rowOrdered("ij->i", {5, 1}));         // nothing left
}

} // namespace

// planReduceLaunch (the CUDA backend's launch of a reduction). Row-ordered:
// a warp per (output, segment of 2048), passes until one value is left,
// whatever the device. Otherwise: a thread per output, the reduced range cut
// into segments (none empty, within the caps) only when the outputs alone
// leave the device idle.
TEST(ReduceLaunch, SegmentsCoverTheRangeWithinTheCaps) {
  const int64_t h100 = 132 * 2048;
  for (int64_t out : {1, 7, 100, 1024, 5000, 300000})
    for (int64_t red : {0, 1, 32, 33, 100, 2048, 2049, 4096, 100000, 67108864})
      for (bool rowOrdered : {false, true}) {
        ReduceLaunch l = planReduceLaunch(out, red, rowOrdered, h100);
        SCOPED_TRACE(testing::Message()
                     << out << " x " << red << " " << rowOrdered);
        ASSERT_GE(l.segments, 1);
        // Pass 1, then a pass per level of partials (2048 per warp).
        int passes = 1;
        for (int64_t m = l.segments; m > 1; m = (m + 2047) / 2048)
          ++passes;
        EXPECT_EQ(l.passes, passes);
        if (rowOrdered) {
          EXPECT_EQ(l.team, 32);
          EXPECT_EQ(l.segmentLength, std::min<int64_t>(red, 2048));
          EXPECT_EQ(l.segments, std::max<int64_t>(1, (red + 2047) / 2048));
          // Independent of the device.
          ReduceLaunch small = planReduceLaunch(out, red, true, 1);
          EXPECT_EQ(small.segments, l.segments);
          EXPECT_EQ(small.passes, l.passes);
          continue;
        }
        EXPECT_EQ(l.team, 1);
        EXPECT_LE(l.segments, 4096);
        if (l.segments == 1) {
          EXPECT_EQ(l.segmentLength, red);
          continue;
        }
        EXPECT_LT(out, h100); // split only an idle device
        EXPECT_GE(l.segments * l.segmentLength, red);
        EXPECT_LT((l.segments - 1) * l.segmentLength, red); // none empty
        EXPECT_GE(l.segmentLength, 16);                     // work per thread
      }
  // A scalar loss over 2^26 elements: 32768 warps, then 16, then one.
  ReduceLaunch scalar = planReduceLaunch(1, 67108864, true, h100);
  EXPECT_EQ(scalar.team, 32);
  EXPECT_EQ(scalar.segments, 32768);
  EXPECT_EQ(scalar.passes, 3);
  // Columns (a bias gradient) of few outputs: split to fill the device.
  ReduceLaunch columns = planReduceLaunch(1024, 4096, false, h100);
  EXPECT_EQ(columns.team, 1);
  EXPECT_GT(columns.segments, 100);
  EXPECT_EQ(planReduceLaunch(0, 100, true, h100).segments, 1);
  EXPECT_THROW(planReduceLaunch(-1, 4, true, h100), Error);
  EXPECT_THROW(planReduceLaunch(1, 4, true, 0), Error);
}

namespace {
/// The CUDA row-ordered launch replayed on the host, driven by the plan:
/// pass after pass, a warp per (output, segment): lane j combines the
/// segment's elements j, j+32, ..., then __shfl_down_sync's tree as the
/// hardware runs it (all lanes at once, from the values before the step; a
/// lane whose source is past the warp reads its own value), lane 0's value
/// being the partial; until one value is left. Returns it and the number of
/// passes and of pass-1 partials.
template <typename R>
double replayRowOrdered(const ReduceLaunch &l, std::vector<double> x,
                        int &passes, int64_t &firstPartials) {
  passes = 0;
  int64_t segLen = l.segmentLength;
  do {
    std::vector<double> next;
    const int64_t n = static_cast<int64_t>(x.size());
    for (int64_t begin = 0; begin < n || begin == 0; begin += segLen) {
      const int64_t end = std::min(n, begin + segLen);
      double lane[32];
      for (int j = 0; j < 32; ++j) {
        lane[j] = R::identity();
        for (int64_t r = begin + j; r < end; r += 32)
          lane[j] = R::combine(lane[j], x[r]);
      }
      for (int d = 16; d > 0; d /= 2) {
        double before[32];
        std::copy(lane, lane + 32, before);
        for (int j = 0; j < 32; ++j)
          lane[j] = R::combine(before[j], before[j + d < 32 ? j + d : j]);
      }
      next.push_back(lane[0]);
      if (segLen == 0)
        break;
    }
    if (passes++ == 0)
      firstPartials = static_cast<int64_t>(next.size());
    x = std::move(next);
    segLen = ops::kReduceSegment; // later passes: the partials' rows
  } while (x.size() > 1);
  return x[0];
}
} // namespace

// The replay gives ops::reduceCanonical's bits for every size, with the
// plan's pass and segment counts, and NaN and infinities come through.
TEST(ReduceLaunch, RowOrderedPassesGiveTheCanonicalBits) {
  for (int64_t n : kCanonicalSizes) {
    SCOPED_TRACE(n);
    ReduceLaunch l = planReduceLaunch(3, n, true, 132 * 2048);
    for (int special = 0; special < 3; ++special) {
      std::vector<double> v = spreadValues(n, 11 + n);
      if (special == 1 && n > 0)
        v[n / 2] = NAN;
      if (special == 2 && n > 0) {
        v[n - 1] = INFINITY;
        v[0] = -INFINITY;
      }
      int passes = 0;
      int64_t partials = 0;
      auto expect = [&](auto tag, ReduceKind kind) {
        using R = decltype(tag);
        double got = replayRowOrdered<R>(l, v, passes, partials);
        double want =
            kind == ReduceKind::Sum
                ? ops::reduceCanonical<ReduceKind::Sum, double>(v.data(), n)
            : kind == ReduceKind::Max
                ? ops::reduceCanonical<ReduceKind::Max, double>(v.data(), n)
                : ops::reduceCanonical<ReduceKind::Min, double>(v.data(), n);
        EXPECT_TRUE(sameBits(got, want) ||
                    (std::isnan(got) && std::isnan(want)))
            << reduceKindName(kind) << " special " << special << ": " << got
            << " vs " << want;
        EXPECT_EQ(passes, l.passes);
        EXPECT_EQ(partials, l.segments);
      };
      expect(ops::Reduce<ReduceKind::Sum, double>{}, ReduceKind::Sum);
      expect(ops::Reduce<ReduceKind::Max, double>{}, ReduceKind::Max);
      expect(ops::Reduce<ReduceKind::Min, double>{}, ReduceKind::Min);
    }
  }
}

// The thread-per-output launch (reductions that are not row-ordered)
// replayed: each output's segments sequentially, then its partials in the
// canonical order (the row-ordered passes). Max/min must keep a NaN from
// any segment; sums must match the direct loop to rounding, and unsplit
// give the sequential loop's bits.
TEST(ReduceLaunch, ThreadPerOutputOrderMatchesTheDirectReduction) {
  const int64_t n = 100003;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = std::sin(double(i)) * 3.0;
  auto replay = [&](auto tag, const ReduceLaunch &l) {
    using R = decltype(tag);
    std::vector<double> parts;
    for (int64_t s = 0; s < l.segments; ++s) {
      int64_t begin = s * l.segmentLength;
      int64_t end = std::min(n, begin + l.segmentLength);
      double part = R::identity();
      for (int64_t r = begin; r < end; ++r)
        part = R::combine(part, v[r]);
      parts.push_back(part);
    }
    return parts.size() == 1 ? parts[0] : canonicalByDefinition<R>(parts);
  };
  ReduceLaunch l = planReduceLaunch(4, n, false, 132 * 2048);
  ASSERT_GT(l.segments, 1);
  double sum = 0, mx = -INFINITY;
  for (double x : v) {
    sum += x;
    mx = std::max(mx, x);
  }
  using Sum = ops::Reduce<ReduceKind::Sum, double>;
  using Max = ops::Reduce<ReduceKind::Max, double>;
  using Min = ops::Reduce<ReduceKind::Min, double>;
  EXPECT_NEAR(replay(Sum{}, l), sum, 1e-9 * n);
  EXPECT_EQ(replay(Max{}, l), mx);
  ReduceLaunch whole = planReduceLaunch(300000, n, false, 132 * 2048);
  ASSERT_EQ(whole.segments, 1);
  EXPECT_TRUE(sameBits(replay(Sum{}, whole), sum));
  v[n - 5] = NAN; // in the last segment
  EXPECT_TRUE(std::isnan(replay(Max{}, l)));
  EXPECT_TRUE(std::isnan(replay(Min{}, l)));
}

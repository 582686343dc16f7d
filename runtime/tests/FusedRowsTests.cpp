//===- FusedRowsTests.cpp - Fused row chains against the unfused ops ------===//
//
// Backend::fusedRows (planFusedRows) against the same chain run as one
// Backend::map or Backend::reduce per step on the same backend: the results
// must match bit for bit (each step rounds to the dtype as the unfused op
// stores it; the reductions of both follow ops::reduceCanonical).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "weft/rt/EinsumSpec.h"
#include "weft/rt/ElementOps.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Error.h"
#include "weft/rt/Profiler.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>

using namespace weft::rt;
using namespace weft::rt::test;

namespace {

/// Runs on every dtype the backend maps (f16 and bf16 on CUDA; skipped
/// where map lacks them).
class FusedRowsTest : public ::testing::TestWithParam<DType> {
protected:
  void SetUp() override {
    std::string why = mapSkipReason(GetParam());
    if (!why.empty())
      GTEST_SKIP() << why;
  }
};

struct RowsCase {
  std::string name;
  std::string spec;
  std::string rows;
  std::vector<Shape> shapes;
  std::vector<FusedRowStep> steps;
  /// Nonzero: every 37th element of input 0 is +-big (sums whose bits
  /// depend on the order of their additions, in f32 too).
  double big = 0;
};

/// The chain of `c` as separate ops, one tensor per step: a reduction is
/// "<its operand's letters>-><kept letters>", a map "<operands' letters>->
/// <kept letters>[<row letters>]" (the row letters when an operand is full).
Tensor runUnfusedRows(Backend &be, const RowsCase &c,
                      const std::vector<Tensor> &inputs) {
  EinsumSpec spec = EinsumSpec::parse(c.spec, 1, kMaxFusedInputs);
  auto sizes = spec.letterSizes(c.shapes);
  std::string kept = spec.output;
  if (kept.size() >= c.rows.size() &&
      kept.compare(kept.size() - c.rows.size(), c.rows.size(), c.rows) == 0)
    kept.resize(kept.size() - c.rows.size());
  auto shapeOf = [&](const std::string &letters) {
    Shape s;
    for (char ch : letters)
      s.push_back(sizes.at(ch));
    return s;
  };
  const DType dt = inputs[0].dtype;
  std::vector<Tensor> values = inputs;
  std::vector<std::string> letters = spec.inputs;
  std::vector<bool> full;
  for (const std::string &l : letters)
    full.push_back(l.find(c.rows[0]) != std::string::npos);
  for (const FusedRowStep &st : c.steps) {
    if (st.reduce) {
      ReducePlan plan =
          planReduce(letters[st.a] + "->" + kept, values[st.a].shape);
      Tensor out = be.empty(dt, plan.outShape);
      be.reduce(st.reduceKind, plan, values[st.a], out);
      values.push_back(out);
      letters.push_back(kept);
      full.push_back(false);
      continue;
    }
    const bool binary = isBinary(st.kind);
    const bool isFull = full[st.a] || (binary && full[st.b]);
    const std::string result = isFull ? kept + c.rows : kept;
    std::string mapSpec = letters[st.a];
    std::vector<Shape> shapes = {values[st.a].shape};
    if (binary) {
      mapSpec += "," + letters[st.b];
      shapes.push_back(values[st.b].shape);
    }
    Shape outShape = shapeOf(result);
    MapPlan plan = planMap(mapSpec + "->" + result, shapes, &outShape);
    Tensor out = be.empty(dt, outShape);
    be.map(st.kind, plan, values[st.a], binary ? &values[st.b] : nullptr, out,
           st.scalar);
    values.push_back(out);
    letters.push_back(result);
    full.push_back(isFull);
  }
  return values.back();
}

/// Uploads `c`'s inputs: test values times `scale`, input i from seed
/// 21 + i, with the special values `specials` cycled into input 0 every
/// 7th element when given.
std::vector<Tensor> rowsInputs(Backend &be, DType dt, const RowsCase &c,
                               double scale,
                               const std::vector<double> &specials = {}) {
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < c.shapes.size(); ++i) {
    auto v = testValues(numElements(c.shapes[i]), 21 + i);
    for (auto &x : v)
      x *= scale;
    for (std::size_t k = 5; i == 0 && c.big != 0 && k < v.size(); k += 37)
      v[k] = k % 2 ? c.big : -c.big;
    for (std::size_t k = 0; i == 0 && !specials.empty() && k < v.size(); k += 7)
      v[k] = specials[(k / 7) % specials.size()];
    inputs.push_back(be.upload(hostFrom(dt, c.shapes[i], v)));
  }
  return inputs;
}

Tensor runFusedRows(Backend &be, const RowsCase &c,
                    const std::vector<Tensor> &inputs) {
  FusedRowsPlan plan = planFusedRows(c.spec, c.rows, c.shapes, c.steps);
  std::vector<const Tensor *> ptrs;
  for (const Tensor &t : inputs)
    ptrs.push_back(&t);
  Tensor out = be.empty(inputs[0].dtype, plan.outShape);
  be.fusedRows(plan, ptrs, out);
  return out;
}

using K = MapKind;
using RK = ReduceKind;

/// The chains: softmax (short rows, a row longer than a 2048-element
/// segment, a vocabulary), RMSNorm with its weight, LayerNorm, row-valued
/// results (log-sum-exp, a scalar), two row letters, a transposed full
/// input (read at a stride), kept letters transposed in an input that a
/// reduction reads directly, a row-value input, a row value as a full
/// step's first operand, empty spaces.
std::vector<RowsCase> rowsCases() {
  const double d256 = 1.0 / 256, d96 = 1.0 / 96, d64 = 1.0 / 64;
  std::vector<FusedRowStep> maskFirst = fusedMaskedSoftmaxSteps();
  maskFirst[0] = fusedRowMap(K::Add, 1, 0); // the mask, input 0, first
  return {
      {"softmax", "bhts->bhts", "s", {{2, 3, 5, 64}}, fusedSoftmaxSteps()},
      {"softmax_long", "bs->bs", "s", {{3, 5000}}, fusedSoftmaxSteps()},
      {"softmax_vocab", "bs->bs", "s", {{2, 50257}}, fusedSoftmaxSteps()},
      {"softmax_short", "bs->bs", "s", {{4, 3}}, fusedSoftmaxSteps()},
      // Attention's additive mask, broadcast over b and h, as either
      // operand of the add.
      {"softmax_masked",
       "bhts,ts->bhts",
       "s",
       {{2, 3, 5, 64}, {5, 64}},
       fusedMaskedSoftmaxSteps()},
      {"softmax_masked_first",
       "ts,bhts->bhts",
       "s",
       {{5, 48}, {2, 3, 5, 48}},
       maskFirst},
      // The row value as the first operand of a full step (a span per row
      // with a broadcast first operand): max(x) - x, then its row sum
      // divided by it, over several rows of a tile.
      {"row_value_first",
       "bs->bs",
       "s",
       {{6, 50}},
       {fusedRowReduce(RK::Max, 0), fusedRowMap(K::Sub, 1, 0),
        fusedRowReduce(RK::Sum, 2), fusedRowMap(K::Div, 3, 2)}},
      {"rmsnorm",
       "btd,d->btd",
       "d",
       {{2, 5, 256}, {256}},
       {fusedRowMap(K::Square, 0), fusedRowReduce(RK::Sum, 2),
        fusedRowMap(K::Scale, 3, -1, d256), fusedRowMap(K::Shift, 4, -1, 1e-5),
        fusedRowMap(K::Rsqrt, 5), fusedRowMap(K::Mul, 0, 6),
        fusedRowMap(K::Mul, 7, 1)}},
      {"layernorm",
       "btd,d,d->btd",
       "d",
       {{3, 4, 96}, {96}, {96}},
       {fusedRowReduce(RK::Sum, 0), fusedRowMap(K::Scale, 3, -1, d96),
        fusedRowMap(K::Sub, 0, 4), fusedRowMap(K::Square, 5),
        fusedRowReduce(RK::Sum, 6), fusedRowMap(K::Scale, 7, -1, d96),
        fusedRowMap(K::Shift, 8, -1, 1e-5), fusedRowMap(K::Rsqrt, 9),
        fusedRowMap(K::Mul, 5, 10), fusedRowMap(K::Mul, 11, 1),
        fusedRowMap(K::Add, 12, 2)}},
      // log-sum-exp: max, sub, exp, sum, log, add max; a row value.
      {"logsumexp",
       "bts->bt",
       "s",
       {{2, 3, 100}},
       {fusedRowReduce(RK::Max, 0), fusedRowMap(K::Sub, 0, 1),
        fusedRowMap(K::Exp, 2), fusedRowReduce(RK::Sum, 3),
        fusedRowMap(K::Log, 4), fusedRowMap(K::Add, 5, 1)}},
      {"logsumexp_one_row",
       "s->",
       "s",
       {{5000}},
       {fusedRowReduce(RK::Max, 0), fusedRowMap(K::Sub, 0, 1),
        fusedRowMap(K::Exp, 2), fusedRowReduce(RK::Sum, 3),
        fusedRowMap(K::Log, 4), fusedRowMap(K::Add, 5, 1)}},
      // RMS over two row letters (h, d) with a row-value gain g[b].
      {"two_row_letters",
       "bhd,b->bhd",
       "hd",
       {{3, 4, 16}, {3}},
       {fusedRowMap(K::Square, 0), fusedRowReduce(RK::Sum, 2),
        fusedRowMap(K::Scale, 3, -1, d64), fusedRowMap(K::Sqrt, 4),
        fusedRowMap(K::Mul, 5, 1), fusedRowMap(K::Div, 0, 6)}},
      // A transposed full input: rows of s read at stride b; a row-value
      // input scales the result.
      {"transposed",
       "sb,b->bs",
       "s",
       {{300, 4}, {4}},
       {fusedRowMap(K::Mul, 0, 0), fusedRowReduce(RK::Max, 2),
        fusedRowMap(K::Sub, 2, 3), fusedRowMap(K::Exp, 4),
        fusedRowReduce(RK::Sum, 5), fusedRowMap(K::Div, 5, 6),
        fusedRowMap(K::Mul, 7, 1)}},
      {"transposed_long",
       "sb,b->bs",
       "s",
       {{3000, 3}, {3}},
       {fusedRowMap(K::Mul, 0, 0), fusedRowReduce(RK::Max, 2),
        fusedRowMap(K::Sub, 2, 3), fusedRowMap(K::Exp, 4),
        fusedRowReduce(RK::Sum, 5), fusedRowMap(K::Div, 5, 6),
        fusedRowMap(K::Mul, 7, 1)}},
      // Kept letters transposed (t, b) in an input reduced directly, and a
      // temperature per row: log-softmax of x * temp.
      {"kept_transposed",
       "tbs,bt->bts",
       "s",
       {{3, 2, 40}, {2, 3}},
       {fusedRowReduce(RK::Max, 0), fusedRowMap(K::Sub, 0, 2),
        fusedRowMap(K::Mul, 3, 1), fusedRowMap(K::Exp, 4),
        fusedRowReduce(RK::Sum, 5), fusedRowMap(K::Log, 6),
        fusedRowMap(K::Sub, 4, 7)}},
      // Row values from row values: min and max, their mean, broadcast back.
      {"row_maps",
       "bs->bs",
       "s",
       {{5, 70}},
       {fusedRowReduce(RK::Min, 0), fusedRowReduce(RK::Max, 0),
        fusedRowMap(K::Add, 1, 2), fusedRowMap(K::Scale, 3, -1, 0.5),
        fusedRowMap(K::Sub, 0, 4)}},
      // Sums of large values that cancel and small ones, some rows longer
      // than a segment: the canonical order's bits, in f32 too.
      {"cancelling_sums",
       "bs->b",
       "s",
       {{4, 3000}},
       {fusedRowMap(K::Neg, 0), fusedRowReduce(RK::Sum, 1),
        fusedRowReduce(RK::Sum, 0), fusedRowMap(K::Add, 2, 3)},
       std::ldexp(1.0, 40)},
      {"cancelling_short",
       "bs,b->bs",
       "s",
       {{6, 500}, {6}},
       {fusedRowMap(K::Mul, 0, 1), fusedRowReduce(RK::Sum, 2),
        fusedRowMap(K::Sub, 2, 3)},
       std::ldexp(1.0, 40)},
      {"empty_rows", "bs->bs", "s", {{0, 6}}, fusedSoftmaxSteps()},
      {"empty_row",
       "bs->b",
       "s",
       {{3, 0}},
       {fusedRowReduce(RK::Sum, 0), fusedRowMap(K::Shift, 1, -1, 2.0)}},
  };
}

TEST_P(FusedRowsTest, BitIdenticalToUnfusedOps) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  for (const RowsCase &c : rowsCases()) {
    SCOPED_TRACE(c.name + " " + c.spec + " [" + c.rows + "]");
    std::vector<Tensor> inputs = rowsInputs(be, dt, c, 4.0);
    expectSameBits(be.download(runFusedRows(be, c, inputs)),
                   be.download(runUnfusedRows(be, c, inputs)));
  }
}

// Rows holding NaN, infinities and signed zeros (a row of -inf gives NaN
// through inf - inf): they come through every step as the unfused ops give
// them.
TEST_P(FusedRowsTest, SpecialValuesBitIdentical) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::vector<double> specials = {NAN, INFINITY, -INFINITY, 0.0, -0.0};
  for (const RowsCase &c : rowsCases()) {
    SCOPED_TRACE(c.name + " " + c.spec + " [" + c.rows + "]");
    std::vector<Tensor> inputs = rowsInputs(be, dt, c, 4.0, specials);
    expectSameBits(be.download(runFusedRows(be, c, inputs)),
                   be.download(runUnfusedRows(be, c, inputs)));
  }
  // A row of -inf only, one of +inf only.
  RowsCase c{"softmax_inf", "bs->bs", "s", {{2, 40}}, fusedSoftmaxSteps()};
  std::vector<double> v(80, -INFINITY);
  std::fill(v.begin() + 40, v.end(), INFINITY);
  std::vector<Tensor> inputs = {be.upload(hostFrom(dt, {2, 40}, v))};
  expectSameBits(be.download(runFusedRows(be, c, inputs)),
                 be.download(runUnfusedRows(be, c, inputs)));
}

// Softmax and the row reductions over f32 rows of every length class the
// CPU's short-row reductions and one-pass softmax handle (full 32-element
// blocks, a tail in the first or second 16 lanes, one segment), with quiet
// and signaling NaNs of both signs, NaN pairs meeting at every level of the
// tree, infinities, signed zeros (which zero a max keeps shows) and the
// maximum in the tail: the unfused ops' bits, and ops::reduceCanonical's.
// A NaN compares equal to any NaN (expectSameBits): which payload survives
// is outside the bit-identity contract, and the generic loops already
// differ from the scalar reference there.
TEST_P(FusedRowsTest, ShortRowsOfEveryLength) {
  if (GetParam() != DType::F32)
    GTEST_SKIP() << "f32 bit patterns";
  Backend &be = *testBackend();
  const uint32_t specials[] = {
      0x7fc00123u, // quiet NaN, payload 0x123
      0xffc00456u, // negative quiet NaN
      0x7f800001u, // signaling NaN
      0xff800777u, // negative signaling NaN
      0x7f800000u, // +inf
      0xff800000u, // -inf
      0x00000000u, // +0
      0x80000000u, // -0
  };
  for (int64_t n : {1, 2, 3, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 95,
                    100, 2047, 2048}) {
    const int64_t rows = 24;
    RowsCase c{"softmax_n", "bs->bs", "s", {{rows, n}}, fusedSoftmaxSteps()};
    SCOPED_TRACE("n = " + std::to_string(n));
    Tensor h = hostTensor(DType::F32, {rows, n});
    auto v = testValues(rows * n, 5);
    uint32_t *bits = h.ptr<uint32_t>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        float f = static_cast<float>(v[r * n + j] * 4.0);
        std::memcpy(&bits[r * n + j], &f, 4);
      }
    // Rows 0-7: one special value at a row-dependent position; rows 8-15:
    // two specials; row 16 all -0 but its last +0; row 17 the max in the
    // last element.
    for (int64_t r = 0; r < 16; ++r) {
      bits[r * n + (r * 7) % n] = specials[r % 8];
      if (r >= 8)
        bits[r * n + (r * 13 + 5) % n] = specials[(r + 3) % 8];
    }
    for (int64_t j = 0; j < n; ++j)
      bits[16 * n + j] = j + 1 < n ? 0x80000000u : 0u;
    float big = 100.0f;
    std::memcpy(&bits[17 * n + n - 1], &big, 4);
    // Rows 18-23: two NaNs that meet in one combine: in lane 0 (elements 0
    // and 32) and at each level of the tree (lane 0 with lane 16, 8, 4, 2,
    // 1).
    const int64_t apart[] = {32, 16, 8, 4, 2, 1};
    for (int64_t r = 18; r < 24; ++r)
      if (const int64_t d = apart[r - 18]; d < n) {
        bits[r * n] = 0x7fc00aaau;
        bits[r * n + d] = 0xffc00bbbu;
      }
    std::vector<Tensor> inputs = {be.upload(h)};
    expectSameBits(be.download(runFusedRows(be, c, inputs)),
                   be.download(runUnfusedRows(be, c, inputs)));
    // The row reductions alone against ops::reduceCanonical over the
    // floats widened to double (which quiets a signaling NaN), rounded.
    for (RK k : {RK::Sum, RK::Max, RK::Min}) {
      SCOPED_TRACE(reduceKindName(k));
      ReducePlan plan = planReduce("bs->b", {rows, n});
      Tensor out = be.empty(DType::F32, {rows});
      be.reduce(k, plan, inputs[0], out);
      Tensor want = hostTensor(DType::F32, {rows});
      for (int64_t r = 0; r < rows; ++r) {
        auto load = [&](int64_t j) {
          float f;
          std::memcpy(&f, &bits[r * n + j], 4);
          return static_cast<double>(f);
        };
        want.ptr<float>()[r] =
            static_cast<float>(ops::dispatchReduce(k, [&]<RK K>() {
              return ops::reduceCanonical<K, double>(n, load);
            }));
      }
      expectSameBits(be.download(out), want);
    }
  }
}

// Softmax rows whose quotients are subnormal, and masked rows: logits
// spread far beyond exp's normal range (their exp and quotient subnormal or
// zero), causal masks of -inf, and one logit swept over the quotient's
// subnormal boundary in steps of 1/64 next to 2, 4 or all other logits
// equal (a sum of 2 or 4 makes exact ties; one of n - 1, subnormal
// quotients of normal exps). The CPU's one-pass softmax divides those lanes
// exactly in f64 without subnormal arithmetic; the result must be the
// unfused division's bits. (Checked against mutation: rounding the f64
// quotient 2^-20 low, or reading a subnormal exp as a normal one, fails.)
TEST_P(FusedRowsTest, SubnormalQuotientsAndMaskedRows) {
  if (GetParam() != DType::F32)
    GTEST_SKIP() << "f32 bit patterns";
  Backend &be = *testBackend();
  int64_t subnormal = 0;
  for (int64_t n : {16, 64, 100, 2048}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const int64_t rows = 66; // groups of 4 rows and 2 left over
    Tensor h = hostTensor(DType::F32, {rows, n});
    float *x = h.ptr<float>();
    auto v = testValues(rows * n, 11);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        const double u = v[r * n + j];
        float f;
        if (r < 16) // spread 25 to 400
          f = static_cast<float>(u * 25.0 * (1 + r));
        else if (r < 32) // causal: -inf past a row-dependent column
          f = j > (r * 5) % n ? -INFINITY : static_cast<float>(u * 4.0);
        else if (j == 0) // swept from -78 down in steps of 1/64
          f = static_cast<float>(-78.0 - (r - 32) * 0.75 - r % 48 / 64.0);
        else // w logits of 0 (the sum: w, even ones give ties), then -inf
          f = j <= std::array<int64_t, 3>{2, 4, n - 1}[r % 3] ? 0.0f
                                                              : -INFINITY;
        x[r * n + j] = f;
      }
    std::vector<Tensor> inputs = {be.upload(h)};
    RowsCase c{"softmax_tiny", "bs->bs", "s", {{rows, n}}, fusedSoftmaxSteps()};
    Tensor got = be.download(runFusedRows(be, c, inputs));
    expectSameBits(got, be.download(runUnfusedRows(be, c, inputs)));
    for (int64_t i = 0; i < rows * n; ++i)
      subnormal += std::fpclassify(got.ptr<float>()[i]) == FP_SUBNORMAL;
  }
  // The rows do reach the subnormal quotients they are for.
  EXPECT_GT(subnormal, 100);
}

TEST_P(FusedRowsTest, RejectsMismatchesAndProfiles) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  FusedRowsPlan plan =
      planFusedRows("bs,b->bs", "s", {{2, 3}, {2}},
                    {fusedRowMap(K::Mul, 0, 1), fusedRowReduce(RK::Max, 2),
                     fusedRowMap(K::Sub, 2, 3)});
  Tensor a = be.zeros(dt, {2, 3}), b = be.zeros(dt, {2});
  Tensor out = be.zeros(dt, {2, 3});
  EXPECT_THROW(be.fusedRows(plan, {&a}, out), Error); // too few inputs
  EXPECT_THROW(be.fusedRows(plan, {&a, &b, &b}, out), Error);
  EXPECT_THROW(be.fusedRows(plan, {&b, &a}, out), Error); // shapes swapped
  EXPECT_THROW(be.fusedRows(plan, {&a, nullptr}, out), Error);
  Tensor wrongOut = be.zeros(dt, {3, 2});
  EXPECT_THROW(be.fusedRows(plan, {&a, &b}, wrongOut), Error);
  Tensor other = be.zeros(dt == DType::F64 ? DType::F32 : DType::F64, {2});
  EXPECT_THROW(be.fusedRows(plan, {&a, &other}, out), Error); // dtype
  EXPECT_THROW(be.fusedRows(plan, {&out, &b}, out), Error);   // in place
  Tensor ia = be.zeros(DType::I32, {2, 3}), ib = be.zeros(DType::I32, {2});
  Tensor iout = be.zeros(DType::I32, {2, 3});
  EXPECT_THROW(be.fusedRows(plan, {&ia, &ib}, iout), Error); // not a float
  // A plan whose arrays disagree with its steps (generated code copies
  // planFusedRows' fields; a hand-edited one is caught before a kernel).
  FusedRowsPlan broken = plan;
  broken.steps[1].a = 1; // a reduction of a row value
  EXPECT_THROW(be.fusedRows(broken, {&a, &b}, out), Error);
  broken = plan;
  broken.full.pop_back();
  EXPECT_THROW(be.fusedRows(broken, {&a, &b}, out), Error);
  broken = plan;
  broken.inRowStrides.clear();
  EXPECT_THROW(be.fusedRows(broken, {&a, &b}, out), Error);

  // Profiled as kind "fused", under its label or the steps, spec and rows.
  Profiler prof;
  be.setProfiler(&prof);
  be.fusedRows(plan, {&a, &b}, out, "scaled_shift");
  be.fusedRows(plan, {&a, &b}, out);
  be.setProfiler(nullptr);
  const OpStats *named = prof.find("scaled_shift");
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->kind, "fused");
  const OpStats *unnamed = prof.find("fused mul+max+sub bs,b->bs [s]");
  ASSERT_NE(unnamed, nullptr);
  EXPECT_EQ(unnamed->kind, "fused");
  EXPECT_EQ(unnamed->calls, 1);
}

// A reduction reading a strided full input directly (a transposed
// operand; the compiler never emits one, and the unfused weft.reduce of it
// is not row-ordered): the canonical order over the row's elements, from
// short rows (tiles of several rows on the CPU) to rows of several segments.
TEST_P(FusedRowsTest, ReductionOfAStridedInputIsCanonical) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  for (int64_t n : {100, 3000, 5000})
    for (RK k : {RK::Sum, RK::Max, RK::Min}) {
      SCOPED_TRACE(std::to_string(n) + " " + reduceKindName(k));
      const Shape shape = {n, 3}; // "sb": row s of column b at stride 3
      RowsCase c{"strided", "sb->b", "s", {shape}, {fusedRowReduce(k, 0)}, 0.0};
      std::vector<double> v = testValues(3 * n, 5);
      for (int64_t i = 0; i < 3 * n; i += 37) // sums that show the order
        v[i] = std::ldexp(i % 2 ? 1.0 : -1.0, 30);
      Tensor host = hostFrom(dt, shape, v);
      v = toDoubles(host);
      std::vector<double> want(3);
      for (int64_t b = 0; b < 3; ++b) {
        auto load = [&](int64_t r) { return v[r * 3 + b]; };
        want[b] = k == RK::Sum ? ops::reduceCanonical<RK::Sum, double>(n, load)
                  : k == RK::Max
                      ? ops::reduceCanonical<RK::Max, double>(n, load)
                      : ops::reduceCanonical<RK::Min, double>(n, load);
      }
      std::vector<Tensor> inputs = {be.upload(host)};
      expectSameBits(be.download(runFusedRows(be, c, inputs)),
                     hostFrom(dt, {3}, want));
    }
}

// A row of 2048 * 2048 + 5 elements: three levels of the canonical order.
// The CPU gives the unfused reduce's bits; the CUDA kernel, whose warp
// holds two levels, refuses it with a clear error.
TEST_P(FusedRowsTest, RowsLongerThanTwoLevels) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const int64_t n = 2048 * 2048 + 5;
  RowsCase c{"sum_of_squares",
             "s->",
             "s",
             {{n}},
             {fusedRowMap(K::Square, 0), fusedRowReduce(RK::Sum, 1)}};
  std::vector<Tensor> inputs = rowsInputs(be, dt, c, 1.0);
  if (be.device() != Device::Host) {
    try {
      runFusedRows(be, c, inputs);
      ADD_FAILURE() << "no error for a row of " << n << " elements";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("2048 x 2048"), std::string::npos)
          << e.what();
    }
    return;
  }
  expectSameBits(be.download(runFusedRows(be, c, inputs)),
                 be.download(runUnfusedRows(be, c, inputs)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FusedRowsTest,
                         ::testing::Values(DType::F32, DType::F64, DType::F16,
                                           DType::BF16),
                         [](const auto &info) {
                           return std::string(dtypeName(info.param));
                         });

} // namespace

//===- ElementTests.cpp - Maps, reductions, embed and slices --------------===//

#include "TestUtil.h"
#include "weft/rt/EinsumSpec.h"
#include "weft/rt/ElementOps.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Error.h"
#include "weft/rt/Philox.h"
#include "weft/rt/Profiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace weft::rt;
using namespace weft::rt::test;

namespace {

class ElementTest : public ::testing::TestWithParam<DType> {
protected:
  void SetUp() override {
    if (!testBackend())
      GTEST_SKIP() << testBackendSkipReason();
  }
  double tol() const { return GetParam() == DType::F32 ? 3e-6 : 1e-13; }
};

/// Reference semantics written out independently of ElementOps.h.
double refMap(MapKind k, double a, double b, double s) {
  switch (k) {
  case MapKind::Add:
    return a + b;
  case MapKind::Sub:
    return a - b;
  case MapKind::Mul:
    return a * b;
  case MapKind::Div:
    return a / b;
  case MapKind::Max:
    return std::max(a, b);
  case MapKind::Min:
    return std::min(a, b);
  case MapKind::Gt:
    return a > b;
  case MapKind::Ge:
    return a >= b;
  case MapKind::Lt:
    return a < b;
  case MapKind::Le:
    return a <= b;
  case MapKind::Eq:
    return a == b;
  case MapKind::Ne:
    return a != b;
  case MapKind::Neg:
    return -a;
  case MapKind::Exp:
    return std::exp(a);
  case MapKind::Log:
    return std::log(a);
  case MapKind::Sqrt:
    return std::sqrt(a);
  case MapKind::Rsqrt:
    return 1.0 / std::sqrt(a);
  case MapKind::Square:
    return a * a;
  case MapKind::Tanh:
    return std::tanh(a);
  case MapKind::Relu:
    return a > 0 ? a : 0;
  case MapKind::Gelu: {
    const double pi = 3.14159265358979323846;
    return 0.5 * a *
           (1 + std::tanh(std::sqrt(2 / pi) * (a + 0.044715 * a * a * a)));
  }
  case MapKind::Silu:
    return a / (1 + std::exp(-a));
  case MapKind::Abs:
    return std::fabs(a);
  case MapKind::Sign:
    return (a > 0) - (a < 0);
  case MapKind::Step:
    return a > 0;
  case MapKind::Sigmoid:
    return 1 / (1 + std::exp(-a));
  case MapKind::Sin:
    return std::sin(a);
  case MapKind::Cos:
    return std::cos(a);
  case MapKind::Scale:
    return a * s;
  case MapKind::Shift:
    return a + s;
  case MapKind::Softplus:
    return std::log(1 + std::exp(a));
  }
  return NAN;
}

bool needsPositive(MapKind k) {
  return k == MapKind::Log || k == MapKind::Sqrt || k == MapKind::Rsqrt;
}

struct MapCase {
  std::string spec;
  std::vector<Shape> shapes;
};

TEST_P(ElementTest, EveryMapKindWithBroadcasts) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::vector<MapCase> binary = {
      {"btd,btd->btd", {{2, 3, 5}, {2, 3, 5}}},
      {"btd,d->btd", {{2, 3, 5}, {5}}},              // bias broadcast
      {"bhts,bht->bhts", {{2, 2, 3, 4}, {2, 2, 3}}}, // softmax shapes
      {"d,btd->btd", {{5}, {2, 3, 5}}},              // broadcast on the left
      {"ij,ji->ij", {{3, 4}, {4, 3}}},               // transposed operand
      {"i,j->ij", {{3}, {4}}},                       // outer broadcast
      {"bt,td->btd", {{2, 3}, {3, 4}}},
      {",i->i", {{}, {4}}}, // scalar operand
  };
  const std::vector<MapCase> unary = {
      {"btf->btf", {{2, 3, 7}}},
      {"ij->ji", {{3, 5}}},
      {"->", {{}}},
  };
  for (int ki = 0; ki < kNumMapKinds; ++ki) {
    MapKind k = static_cast<MapKind>(ki);
    const auto &cases = isBinary(k) ? binary : unary;
    for (const auto &c : cases) {
      std::vector<std::vector<double>> vals;
      for (std::size_t i = 0; i < c.shapes.size(); ++i) {
        auto v = testValues(numElements(c.shapes[i]), 5 + i);
        for (auto &x : v)
          x = needsPositive(k) || (k == MapKind::Div && i == 1)
                  ? 0.25 + std::fabs(x)
                  : 3 * x;
        vals.push_back(v);
      }
      std::vector<const std::vector<double> *> ptrs;
      std::vector<Tensor> hostIn;
      for (std::size_t i = 0; i < vals.size(); ++i) {
        ptrs.push_back(&vals[i]);
        hostIn.push_back(hostFrom(dt, c.shapes[i], vals[i]));
        // Compare against the values the backend actually sees.
        vals[i] = toDoubles(hostIn.back());
      }
      EinsumSpec spec = EinsumSpec::parse(c.spec);
      const double s = 0.37;
      auto want = naiveEvaluate(
          spec.inputs, c.shapes, ptrs, spec.output,
          [&](const std::vector<double> &v) {
            return refMap(k, v[0], v.size() > 1 ? v[1] : 0, s);
          },
          [](double, double x) { return x; }, 0.0);
      MapPlan plan = planMap(c.spec, c.shapes);
      Tensor a = be.upload(hostIn[0]);
      Tensor b = hostIn.size() > 1 ? be.upload(hostIn[1]) : Tensor();
      Tensor out = be.zeros(dt, plan.outShape);
      be.map(k, plan, a, hostIn.size() > 1 ? &b : nullptr, out, s);
      EXPECT_LE(maxRelError(toDoubles(be.download(out)), want), tol())
          << mapKindName(k) << " " << c.spec;
    }
  }
}

// NaN propagates through max, min, relu and max/min reductions, as in numpy
// (np.maximum, np.max), PyTorch and JAX: a NaN input is never dropped
// silently (docs/runtime.md). Vector lengths past 16 exercise the
// vectorized CPU loops too.
TEST_P(ElementTest, NanPropagatesThroughMaxMinRelu) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const int64_t n = 37;
  std::vector<double> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = (i % 3 == 0) ? NAN : double(i) - 18;
    b[i] = (i % 5 == 0) ? NAN : 18 - double(i);
  }
  Tensor ha = hostFrom(dt, {n}, a), hb = hostFrom(dt, {n}, b);
  Tensor da = be.upload(ha), db = be.upload(hb);
  MapPlan binary = planMap("i,i->i", {{n}, {n}});
  MapPlan unary = planMap("i->i", {{n}});
  for (MapKind k : {MapKind::Max, MapKind::Min, MapKind::Relu}) {
    Tensor out = be.zeros(dt, {n});
    if (k == MapKind::Relu)
      be.map(k, unary, da, nullptr, out);
    else
      be.map(k, binary, da, &db, out);
    auto got = toDoubles(be.download(out));
    for (int64_t i = 0; i < n; ++i) {
      bool nan = std::isnan(a[i]) || (k != MapKind::Relu && std::isnan(b[i]));
      if (nan) {
        EXPECT_TRUE(std::isnan(got[i])) << mapKindName(k) << " at " << i;
      } else {
        double want = k == MapKind::Max   ? std::max(a[i], b[i])
                      : k == MapKind::Min ? std::min(a[i], b[i])
                                          : std::max(a[i], 0.0);
        EXPECT_EQ(got[i], want) << mapKindName(k) << " at " << i;
      }
    }
  }
  // One NaN anywhere in a reduced row makes the row NaN; rows without stay
  // exact. Row r of [4, 9] holds a NaN at column r (none in row 3).
  std::vector<double> m(36);
  for (int64_t i = 0; i < 36; ++i)
    m[i] = (i / 9 != 3 && i % 9 == i / 9) ? NAN : double(i % 7);
  Tensor dm = be.upload(hostFrom(dt, {4, 9}, m));
  ReducePlan plan = planReduce("ij->i", {4, 9});
  for (ReduceKind k : {ReduceKind::Max, ReduceKind::Min}) {
    Tensor out = be.zeros(dt, {4});
    be.reduce(k, plan, dm, out);
    auto got = toDoubles(be.download(out));
    for (int r = 0; r < 3; ++r)
      EXPECT_TRUE(std::isnan(got[r])) << reduceKindName(k) << " row " << r;
    EXPECT_EQ(got[3], k == ReduceKind::Max ? 6.0 : 0.0) << reduceKindName(k);
  }
  // The same through a split reduction (one segment of row 0 holds the NaN;
  // its partial must carry it through pass 2).
  const int64_t cols = 100000;
  std::vector<double> big(2 * cols);
  for (int64_t i = 0; i < 2 * cols; ++i)
    big[i] = double(i % 11);
  big[77777] = NAN;
  Tensor dbig = be.upload(hostFrom(dt, {2, cols}, big));
  ReducePlan bigPlan = planReduce("ij->i", {2, cols});
  for (ReduceKind k : {ReduceKind::Max, ReduceKind::Min}) {
    Tensor out = be.zeros(dt, {2});
    be.reduce(k, bigPlan, dbig, out);
    auto got = toDoubles(be.download(out));
    EXPECT_TRUE(std::isnan(got[0])) << reduceKindName(k) << " long row";
    EXPECT_EQ(got[1], k == ReduceKind::Max ? 10.0 : 0.0) << reduceKindName(k);
  }
}

TEST_P(ElementTest, MapRejectsWrongArity) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  MapPlan unaryPlan = planMap("i->i", {{4}});
  Tensor a = be.zeros(dt, {4}), out = be.zeros(dt, {4});
  EXPECT_THROW(be.map(MapKind::Add, unaryPlan, a, nullptr, out), Error);
  EXPECT_THROW(planMap("ij->i", {{2, 3}}), Error); // drops a letter
  EXPECT_THROW(planMap("i,j->i", {{2}, {3}}), Error);
  EXPECT_THROW(planMap("i,i->i", {{2}, {3}}), Error); // size mismatch
}

TEST_P(ElementTest, Reductions) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::vector<std::pair<std::string, Shape>> cases = {
      {"bhts->bht", {2, 3, 4, 5}}, // innermost
      {"btd->bt", {2, 3, 6}},
      {"btd->d", {3, 4, 5}}, // outer letters
      {"btd->td", {3, 4, 5}},
      {"ijk->ki", {3, 4, 5}},     // reduce + transpose
      {"ijk->kji", {3, 4, 5}},    // pure transpose
      {"ij->", {4, 6}},           // everything
      {"abcd->db", {2, 3, 1, 4}}, // with an extent-1 letter
      {"ij->j", {0, 3}},          // nothing to reduce: identity
      // Long reductions the CUDA backend splits (planReduceLaunch): a team
      // per output over contiguous elements, segments with partials, and
      // one thread per output over strided ones.
      {"ij->", {3, 50000}},
      {"ij->i", {5, 40000}},
      {"ij->j", {20000, 7}},
      {"ijk->j", {300, 4, 100}},
      {"ij->i", {3000, 100}},
  };
  for (ReduceKind k : {ReduceKind::Sum, ReduceKind::Max, ReduceKind::Min}) {
    for (const auto &[specText, shape] : cases) {
      auto v =
          toDoubles(hostFrom(dt, shape, testValues(numElements(shape), 3)));
      EinsumSpec spec = EinsumSpec::parse(specText);
      double init = k == ReduceKind::Sum   ? 0.0
                    : k == ReduceKind::Max ? -INFINITY
                                           : INFINITY;
      auto want = naiveEvaluate(
          spec.inputs, {shape}, {&v}, spec.output,
          [](const std::vector<double> &x) { return x[0]; },
          [k](double a, double b) {
            return k == ReduceKind::Sum   ? a + b
                   : k == ReduceKind::Max ? std::max(a, b)
                                          : std::min(a, b);
          },
          init);
      ReducePlan plan = planReduce(specText, shape);
      Tensor in = be.upload(hostFrom(dt, shape, v));
      Tensor out = be.zeros(dt, plan.outShape);
      be.reduce(k, plan, in, out);
      auto got = toDoubles(be.download(out));
      if (numElements(shape) == 0) {
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i)
          EXPECT_EQ(got[i], want[i]) << specText;
      } else {
        EXPECT_LE(maxRelError(got, want), tol() * 4)
            << reduceKindName(k) << " " << specText;
      }
    }
  }
}

TEST_P(ElementTest, EmbedMaskedLookup) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  // Table holds vocabulary rows [offset, offset + rows) of a vocab of 12.
  const int64_t rows = 4;
  struct EmbedCase {
    std::string spec;
    Shape ids, table;
  };
  const std::vector<EmbedCase> cases = {
      {"bt,vd->btd", {2, 3}, {rows, 5}}, // row-copy fast path
      {"bt,dv->btd", {2, 3}, {5, rows}}, // vocab letter last
      {"bt,vd->dbt", {2, 3}, {rows, 5}}, // result letters reordered
      {"t,vd->td", {6}, {rows, 1}},
  };
  for (const auto &c : cases) {
    for (int64_t offset : {0, 4, 8}) {
      Tensor ids = hostTensor(DType::I32, c.ids);
      for (int64_t i = 0; i < ids.numElements(); ++i)
        ids.ptr<int32_t>()[i] = static_cast<int32_t>((i * 5 + 1) % 12);
      auto tv =
          toDoubles(hostFrom(dt, c.table, testValues(numElements(c.table), 9)));
      EinsumSpec spec = EinsumSpec::parse(c.spec);
      char vocab = 0;
      for (char x : spec.inputs[1])
        if (spec.output.find(x) == std::string::npos)
          vocab = x;
      // Reference: the one-hot einsum over the vocab letter, evaluated
      // naively: hot[ids..., v] = (ids == offset + v).
      std::vector<double> idv = toDoubles(ids);
      std::vector<double> hot(idv.size() * rows, 0);
      for (std::size_t i = 0; i < idv.size(); ++i)
        for (int64_t r = 0; r < rows; ++r)
          hot[i * rows + r] = idv[i] == static_cast<double>(offset + r) ? 1 : 0;
      Shape hotShape = c.ids;
      hotShape.push_back(rows);
      auto want = naiveEvaluate(
          {spec.inputs[0] + vocab, spec.inputs[1]}, {hotShape, c.table},
          {&hot, &tv}, spec.output,
          [](const std::vector<double> &v) { return v[0] * v[1]; },
          [](double a, double b) { return a + b; }, 0.0);
      EmbedPlan plan = planEmbed(c.spec, c.ids, c.table);
      Tensor dids = be.upload(ids);
      Tensor table = be.upload(hostFrom(dt, c.table, tv));
      Tensor out = be.empty(dt, plan.outShape);
      be.embed(plan, dids, table, out, offset);
      EXPECT_EQ(toDoubles(be.download(out)), want)
          << c.spec << " offset " << offset;
    }
  }
  EXPECT_THROW(planEmbed("bt,vd->bt", {2, 3}, {4, 5}), Error);   // d dropped
  EXPECT_THROW(planEmbed("bt,vd->btvd", {2, 3}, {4, 5}), Error); // no vocab
  EXPECT_THROW(planEmbed("bt,td->bd", {2, 3}, {3, 5}), Error); // shared letter
}

// scatter_add against its definition, a naive loop over the ids: both the
// row-copy layout and a transposed one, with a block offset; one_hot
// against (id == offset + v) in every position of the vocabulary letter;
// iota's values from its first index.
TEST_P(ElementTest, ScatterAddOneHotIota) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  struct Case {
    std::string spec; // scatter_add "ids,updates->vd"
    Shape ids, updates;
  };
  const int64_t rows = 4, features = 3;
  for (const Case &c : {Case{"bt,btd->vd", {2, 3}, {2, 3, 3}},
                        Case{"bt,dtb->vd", {2, 3}, {3, 3, 2}}}) {
    for (int64_t offset : {0, 4}) {
      Tensor ids = hostTensor(DType::I32, c.ids);
      for (int64_t i = 0; i < numElements(c.ids); ++i)
        ids.ptr<int32_t>()[i] = static_cast<int32_t>((i * 5 + 1) % 8);
      auto uv = toDoubles(
          hostFrom(dt, c.updates, testValues(numElements(c.updates), 3)));
      EmbedPlan plan =
          planScatterAdd(c.spec, c.ids, c.updates, {rows, features});
      // Reference: walk the updates, add into row id - offset.
      EinsumSpec spec = EinsumSpec::parse(c.spec);
      const std::string &ul = spec.inputs[1];
      std::vector<double> want(rows * features, 0);
      std::vector<int64_t> idx(c.updates.size(), 0);
      for (int64_t i = 0; i < numElements(c.updates); ++i) {
        int64_t rem = i, idOff = 0, f = 0;
        for (int d = static_cast<int>(c.updates.size()) - 1; d >= 0; --d) {
          idx[d] = rem % c.updates[d];
          rem /= c.updates[d];
        }
        int64_t stride = 1;
        for (int d = static_cast<int>(spec.inputs[0].size()) - 1; d >= 0; --d) {
          idOff += idx[ul.find(spec.inputs[0][d])] * stride;
          stride *= c.ids[d];
        }
        f = idx[ul.find('d')];
        int64_t r = ids.ptr<int32_t>()[idOff] - offset;
        if (r >= 0 && r < rows)
          want[r * features + f] += uv[i];
      }
      Tensor dids = be.upload(ids);
      Tensor upd = be.upload(hostFrom(dt, c.updates, uv));
      Tensor out = be.empty(dt, {rows, features});
      be.scatterAdd(plan, dids, upd, out, offset);
      auto got = toDoubles(be.download(out));
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-2 * (1 + std::abs(want[i])))
            << c.spec << " offset " << offset << " element " << i;
    }
  }
  EXPECT_THROW(planScatterAdd("bt,btd->vd", {2, 3}, {2, 3, 4}, {4, 5}),
               Error); // the updates' d is not the result's

  for (std::string spec : {"bt->btv", "bt->vbt", "bt->bvt"}) {
    Shape idsShape{2, 3};
    Shape outShape;
    for (char c : spec.substr(4))
      outShape.push_back(c == 'v' ? 4 : (c == 'b' ? 2 : 3));
    Tensor ids = hostTensor(DType::I32, idsShape);
    for (int64_t i = 0; i < 6; ++i)
      ids.ptr<int32_t>()[i] = static_cast<int32_t>((i * 3) % 8);
    OneHotPlan plan = planOneHot(spec, idsShape, outShape);
    Tensor dids = be.upload(ids);
    Tensor out = be.empty(dt, outShape);
    be.oneHot(plan, dids, out, 4);
    auto got = toDoubles(be.download(out));
    std::string o = spec.substr(4);
    size_t bPos = o.find('b'), tPos = o.find('t'), vPos = o.find('v');
    ASSERT_TRUE(bPos < 3 && tPos < 3 && vPos < 3) << spec;
    for (int64_t i = 0; i < numElements(outShape); ++i) {
      int64_t rem = i, co[3];
      for (int d = 2; d >= 0; --d) {
        co[d] = rem % outShape[d];
        rem /= outShape[d];
      }
      int64_t b = co[bPos], t = co[tPos], v = co[vPos];
      double want = ids.ptr<int32_t>()[b * 3 + t] == 4 + v ? 1 : 0;
      EXPECT_EQ(got[i], want) << spec << " element " << i;
    }
  }
  EXPECT_THROW(planOneHot("bt->bt", {2, 3}, {2, 3}), Error); // no vocab

  Tensor pos = be.empty(dt, {5});
  be.iota(pos, 10);
  EXPECT_EQ(toDoubles(be.download(pos)),
            (std::vector<double>{10, 11, 12, 13, 14}));
}

// The Random123 known-answer vectors of Philox4x32-10 (kat_vectors).
TEST(Philox, KnownAnswers) {
  struct Kat {
    ops::Philox4 ctr;
    uint32_t k0, k1;
    ops::Philox4 want;
  } kats[] = {
      {{{0, 0, 0, 0}},
       0,
       0,
       {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const Kat &k : kats) {
    ops::Philox4 got = ops::philox4x32_10(k.ctr, k.k0, k.k1);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(got.w[i], k.want.w[i]) << "word " << i;
  }
}

// A block drawn at an offset equals the same block of the whole tensor;
// uniform values lie in [0, 1); normal values have mean ~0 and variance ~1.
TEST_P(ElementTest, RandomBlocks) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  if (dt != DType::F32 && dt != DType::F64)
    GTEST_SKIP() << "weft.random is f32 and f64 only";
  for (RandomKind kind : {RandomKind::Uniform, RandomKind::Normal}) {
    Shape shape{6, 8, 5};
    Tensor whole = be.empty(dt, shape);
    be.random(whole, kind, 0x123456789abcdefull, {0, 0, 0});
    auto all = toDoubles(be.download(whole));
    Tensor block = be.empty(dt, {3, 4, 5});
    be.random(block, kind, 0x123456789abcdefull, {3, 4, 0});
    auto got = toDoubles(be.download(block));
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t k = 0; k < 5; ++k)
          EXPECT_EQ(got[(i * 4 + j) * 5 + k],
                    all[((i + 3) * 8 + (j + 4)) * 5 + k]);
    double sum = 0, sq = 0;
    for (double v : all) {
      if (kind == RandomKind::Uniform) {
        EXPECT_GE(v, 0.0);
        EXPECT_LT(v, 1.0);
      }
      sum += v;
      sq += v * v;
    }
    double n = static_cast<double>(all.size()), mean = sum / n;
    double var = sq / n - mean * mean;
    if (kind == RandomKind::Uniform) {
      EXPECT_NEAR(mean, 0.5, 0.05);
      EXPECT_NEAR(var, 1.0 / 12, 0.02);
    } else {
      EXPECT_NEAR(mean, 0.0, 0.15);
      EXPECT_NEAR(var, 1.0, 0.2);
    }
    // Another seed draws other numbers.
    Tensor other = be.empty(dt, shape);
    be.random(other, kind, 0x123456789abcdeeull, {0, 0, 0});
    EXPECT_NE(toDoubles(be.download(other)), all);
  }
  // One offset per dimension, each index within a 32-bit counter word.
  Tensor t = be.empty(dt, {4, 4});
  EXPECT_THROW(be.random(t, RandomKind::Uniform, 1, {0}), Error);
  EXPECT_THROW(
      be.random(t, RandomKind::Uniform, 1, {0, (int64_t(1) << 32) - 2}), Error);
  Tensor big = be.empty(dt, {1, 1, 1, 1, 2});
  EXPECT_THROW(be.random(big, RandomKind::Uniform, 1, {0, 0, 0, 0, 0}), Error);
}

TEST_P(ElementTest, SliceAndShard) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  Shape shape{4, 6, 5};
  auto v = testValues(numElements(shape), 11);
  Tensor in = be.upload(hostFrom(dt, shape, v));
  auto hv = toDoubles(be.download(in));
  Tensor out = be.empty(dt, {2, 3, 4});
  be.slice(in, {1, 2, 1}, out);
  auto got = toDoubles(be.download(out));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k)
        EXPECT_EQ(got[(i * 3 + j) * 4 + k],
                  hv[((i + 1) * 6 + (j + 2)) * 5 + (k + 1)]);
  Tensor bad = be.empty(dt, {2, 3, 5});
  EXPECT_THROW(be.slice(in, {1, 2, 1}, bad), Error); // out of bounds
  // On the 1-device test mesh a shard over the axis is the whole tensor.
  Tensor whole = be.empty(dt, shape);
  be.sliceShard(in, 1, {0}, whole);
  EXPECT_EQ(toDoubles(be.download(whole)), hv);
}

// pad_fill (uneven shards) on every dtype, against a naive reference that
// tests first[d] + i[d] < valid[d] per element; the input is arbitrary bit
// patterns (NaN payloads included), which must come through unchanged.
class PadFillTest : public ::testing::TestWithParam<DType> {
protected:
  void SetUp() override {
    if (!testBackend())
      GTEST_SKIP() << testBackendSkipReason();
  }
};

/// The fill's bits in `dt`, written out here rather than taken from
/// planPadFill: floats rounded through float (f16/bf16) or not (f64), i32
/// clamped to its range then truncated toward zero.
uint64_t refFillBits(DType dt, double fill) {
  uint64_t bits = 0;
  switch (dt) {
  case DType::F32: {
    float f = static_cast<float>(fill);
    std::memcpy(&bits, &f, 4);
    break;
  }
  case DType::F64:
    std::memcpy(&bits, &fill, 8);
    break;
  case DType::F16:
    bits = floatToHalf(static_cast<float>(fill));
    break;
  case DType::BF16:
    bits = floatToBFloat16(static_cast<float>(fill));
    break;
  case DType::I32: {
    int32_t v = fill <= -2147483648.0  ? INT32_MIN
                : fill >= 2147483647.0 ? INT32_MAX
                                       : static_cast<int32_t>(std::trunc(fill));
    std::memcpy(&bits, &v, 4);
    break;
  }
  }
  return bits;
}

TEST_P(PadFillTest, AgainstNaiveReference) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::size_t es = dtypeSize(dt);
  struct Case {
    Shape shape;
    std::vector<int64_t> first, valid;
  };
  const Case cases[] = {
      {{3, 64}, {9, 0}, {10, 64}},  // the last of 4 shards: one row inside
      {{3, 64}, {12, 0}, {10, 64}}, // a shard of padding only
      {{3, 64}, {3, 0}, {10, 64}},  // an inner shard: not padded
      {{4, 6}, {0, 6}, {4, 10}},    // padded along the inner dim
      {{2, 3, 5}, {4, 6, 10}, {5, 8, 12}}, // along every dim
      {{4, 1, 6}, {0, 0, 3}, {4, 1, 7}},
      {{2, 3, 1, 5}, {4, 0, 0, 10}, {5, 3, 1, 12}},
      {{2, 2, 2, 2, 2}, {1, 0, 1, 0, 1}, {2, 1, 2, 1, 2}},
      {{3, 4}, {0, 0}, {3, 4}}, // unsharded, not padded
      {{7}, {5}, {9}},
      {{7}, {0}, {0}}, // logical size 0: all padding
      {{}, {}, {}},    // a scalar
      {{0, 5}, {0, 0}, {0, 5}},
  };
  uint64_t lcg = 0x9e3779b97f4a7c15ull;
  for (const Case &c : cases)
    for (double fill : {0.0, -double(INFINITY), 2.5, -7.75})
      for (bool inPlace : {false, true}) {
        int64_t n = numElements(c.shape);
        Tensor host = hostTensor(dt, c.shape);
        auto *bytes = static_cast<unsigned char *>(host.data);
        for (std::size_t b = 0; b < host.bytes(); ++b) {
          lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
          bytes[b] = static_cast<unsigned char>(lcg >> 56);
        }
        Tensor in = be.upload(host);
        Tensor out = inPlace ? in : be.empty(dt, c.shape);
        be.padFill(in, out, c.first, c.valid, fill);
        Tensor got = be.download(out);
        uint64_t fillBits = refFillBits(dt, fill);
        auto strides = rowMajorStrides(c.shape);
        for (int64_t i = 0; i < n; ++i) {
          bool inside = true;
          for (std::size_t d = 0; d < c.shape.size(); ++d)
            inside = inside &&
                     c.first[d] + (i / strides[d]) % c.shape[d] < c.valid[d];
          const void *want =
              inside ? bytes + i * es : static_cast<const void *>(&fillBits);
          ASSERT_EQ(
              std::memcmp(static_cast<char *>(got.data) + i * es, want, es), 0)
              << shapeToString(c.shape) << " at " << shapeToString(c.first)
              << " of " << shapeToString(c.valid) << " fill " << fill
              << (inPlace ? " in place" : "") << ": element " << i
              << (inside ? " (inside)" : " (padding)");
        }
      }
}

TEST_P(PadFillTest, RejectsMismatchesAndOverlap) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  Tensor in = be.zeros(dt, {4, 3});
  Tensor other = be.empty(dt == DType::F64 ? DType::F32 : DType::F64, {4, 3});
  EXPECT_THROW(be.padFill(in, other, {0, 0}, {3, 3}, 0), Error); // dtype
  Tensor wrong = be.empty(dt, {3, 4});
  EXPECT_THROW(be.padFill(in, wrong, {0, 0}, {3, 3}, 0), Error); // shape
  Tensor out = be.empty(dt, {4, 3});
  EXPECT_THROW(be.padFill(in, out, {0}, {3, 3}, 0), Error);
  EXPECT_THROW(be.padFill(in, out, {0, 0}, {3}, 0), Error);
  EXPECT_THROW(be.padFill(in, out, {-1, 0}, {3, 3}, 0), Error);
  // Two views of one buffer that overlap without being the same.
  Tensor big = be.zeros(dt, {8});
  Tensor a = big, b = big;
  a.shape = b.shape = {4};
  b.data = static_cast<char *>(big.data) + 2 * dtypeSize(dt);
  EXPECT_THROW(be.padFill(a, b, {0}, {3}, 0), Error);
  // Adjacent views do not overlap.
  b.data = static_cast<char *>(big.data) + 4 * dtypeSize(dt);
  EXPECT_NO_THROW(be.padFill(a, b, {0}, {3}, 0));
}

// cumsum on every float dtype against naive references that sum each
// element's prefix (or suffix) from scratch: in the accumulation type, in
// the order of the line (float for f32/f16/bf16, double for f64), which
// must match bit for bit (the backends add sequentially along each line),
// and in double, within a rounding tolerance.
class CumsumTest : public ::testing::TestWithParam<DType> {
protected:
  void SetUp() override {
    if (!testBackend())
      GTEST_SKIP() << testBackendSkipReason();
  }
};

/// `v` rounded to `dt` (f16 and bf16 through float).
double roundToDtype(DType dt, double v) {
  switch (dt) {
  case DType::F32:
    return static_cast<float>(v);
  case DType::F16:
    return halfToFloat(floatToHalf(static_cast<float>(v)));
  case DType::BF16:
    return bfloat16ToFloat(floatToBFloat16(static_cast<float>(v)));
  default:
    return v;
  }
}

/// Element e of the result: the sum of x along `dim` over j <= i (j < i
/// exclusive; j >= i, j > i reverse) where i is e's index along dim, added
/// in the line's order starting from the first (last, reverse) element, in
/// A. `absSum` gets the sum of the |x| added.
template <typename A>
A naiveCumsum(const Shape &shape, int dim, bool exclusive, bool reverse,
              const std::vector<double> &x, int64_t e, double *absSum) {
  const int64_t stride = rowMajorStrides(shape)[dim], n = shape[dim];
  const int64_t i = (e / stride) % n, base = e - i * stride;
  A acc = A(0);
  *absSum = 0;
  for (int64_t t = 0; t < n; ++t) {
    int64_t j = reverse ? n - 1 - t : t;
    bool in =
        reverse ? (exclusive ? j > i : j >= i) : (exclusive ? j < i : j <= i);
    if (!in)
      continue;
    acc = acc + static_cast<A>(x[base + j * stride]);
    *absSum += std::fabs(x[base + j * stride]);
  }
  return acc;
}

TEST_P(CumsumTest, AgainstNaiveReference) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  // The double reference's tolerance, relative to 1 + the sum of |x|: the
  // float (double) accumulation over up to 1000 terms, and the rounding of
  // each result to f16/bf16.
  const double eps = dt == DType::F64   ? 1e-12
                     : dt == DType::F32 ? 1e-4
                     : dt == DType::F16 ? 2e-3
                                        : 1e-2;
  struct Case {
    Shape shape;
    int dim;
  };
  const Case cases[] = {
      {{5}, 0},
      {{1}, 0},             // n = 1
      {{1000}, 0},          // one long line
      {{4, 7}, 0},          // first dim
      {{4, 7}, 1},          // last dim
      {{3, 5, 6}, 0},       // first of three
      {{3, 5, 6}, 1},       // middle
      {{3, 5, 6}, 2},       // last
      {{2, 1, 3}, 1},       // n = 1 in the middle
      {{6, 1}, 1},          // n = 1 last
      {{2, 40, 300}, 1},    // 600 lines, inner beyond the cpu's chunk of 256
      {{3, 130, 2}, 1},     // long lines, small inner
      {{2, 3, 2, 2, 3}, 3}, // rank 5
      {{0, 5}, 1},          // empty
      {{3, 0, 4}, 1},       // empty along dim
      {{3, 0, 4}, 2},       // empty elsewhere
  };
  uint64_t seed = 21;
  for (const Case &c : cases)
    for (bool exclusive : {false, true})
      for (bool reverse : {false, true})
        for (bool inPlace : {false, true}) {
          const int64_t count = numElements(c.shape);
          Tensor host = hostFrom(dt, c.shape, testValues(count, ++seed));
          const std::vector<double> x = toDoubles(host); // what it sees
          Tensor in = be.upload(host);
          Tensor out = inPlace ? in : be.empty(dt, c.shape);
          be.cumsum(in, out, c.dim, exclusive, reverse);
          const std::vector<double> got = toDoubles(be.download(out));
          ASSERT_EQ(static_cast<int64_t>(got.size()), count);
          for (int64_t e = 0; e < count; ++e) {
            double absSum = 0;
            double exact =
                dt == DType::F64
                    ? naiveCumsum<double>(c.shape, c.dim, exclusive, reverse, x,
                                          e, &absSum)
                    : roundToDtype(dt,
                                   naiveCumsum<float>(c.shape, c.dim, exclusive,
                                                      reverse, x, e, &absSum));
            double wide = naiveCumsum<double>(c.shape, c.dim, exclusive,
                                              reverse, x, e, &absSum);
            ASSERT_EQ(got[e], exact)
                << shapeToString(c.shape) << " dim " << c.dim
                << (exclusive ? " exclusive" : " inclusive")
                << (reverse ? " reverse" : "") << (inPlace ? " in place" : "")
                << ": element " << e;
            ASSERT_LE(std::fabs(got[e] - wide), eps * (1 + absSum))
                << shapeToString(c.shape) << " dim " << c.dim << " element "
                << e;
          }
        }
}

// The four forms on numbers worked out by hand (exact in every dtype).
TEST_P(CumsumTest, WorkedExample) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::vector<double> x = {1, 2, 3, 4, -1, 0.5, 2, 8};
  Tensor in = be.upload(hostFrom(dt, {2, 4}, x));
  struct Want {
    int dim;
    bool exclusive, reverse;
    std::vector<double> y;
  };
  const Want wants[] = {
      {1, false, false, {1, 3, 6, 10, -1, -0.5, 1.5, 9.5}},
      {1, true, false, {0, 1, 3, 6, 0, -1, -0.5, 1.5}},
      {1, false, true, {10, 9, 7, 4, 9.5, 10.5, 10, 8}},
      {1, true, true, {9, 7, 4, 0, 10.5, 10, 8, 0}},
      {0, false, false, {1, 2, 3, 4, 0, 2.5, 5, 12}},
      {0, true, false, {0, 0, 0, 0, 1, 2, 3, 4}},
      {0, false, true, {0, 2.5, 5, 12, -1, 0.5, 2, 8}},
      {0, true, true, {-1, 0.5, 2, 8, 0, 0, 0, 0}},
  };
  for (const Want &w : wants) {
    Tensor out = be.empty(dt, {2, 4});
    be.cumsum(in, out, w.dim, w.exclusive, w.reverse);
    EXPECT_EQ(toDoubles(be.download(out)), w.y)
        << "dim " << w.dim << (w.exclusive ? " exclusive" : " inclusive")
        << (w.reverse ? " reverse" : "");
  }
}

// weft.reshape's copy: the same elements in row-major order, any shape of
// the same element count; a count mismatch is an error.
TEST_P(CumsumTest, CopyKeepsRowMajorOrder) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::vector<double> x = {1, 2, 3, 4, -1, 0.5, 2, 8, 16, -2, 0, 3};
  Tensor in = be.upload(hostFrom(dt, {2, 6}, x));
  Tensor out = be.empty(dt, {2, 2, 3});
  be.copy(in, out);
  EXPECT_EQ(toDoubles(be.download(out)), x);
  EXPECT_EQ(be.download(out).shape, (Shape{2, 2, 3}));
  Tensor bad = be.empty(dt, {5, 2});
  EXPECT_THROW(be.copy(in, bad), Error);
  Tensor otherType = be.empty(dt == DType::F64 ? DType::F32 : DType::F64, {12});
  EXPECT_THROW(be.copy(in, otherType), Error);
}

TEST_P(CumsumTest, RejectsBadArguments) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  Tensor in = be.zeros(dt, {4, 3});
  Tensor other = be.empty(dt == DType::F64 ? DType::F32 : DType::F64, {4, 3});
  EXPECT_THROW(be.cumsum(in, other, 0, false, false), Error); // dtype
  Tensor wrong = be.empty(dt, {3, 4});
  EXPECT_THROW(be.cumsum(in, wrong, 0, false, false), Error); // shape
  Tensor out = be.empty(dt, {4, 3});
  EXPECT_THROW(be.cumsum(in, out, 2, false, false), Error);
  EXPECT_THROW(be.cumsum(in, out, -1, true, true), Error);
  Tensor scalar = be.zeros(dt, {}), scalarOut = be.empty(dt, {});
  EXPECT_THROW(be.cumsum(scalar, scalarOut, 0, false, false), Error);
  Tensor ids = be.zeros(DType::I32, {4}), idsOut = be.empty(DType::I32, {4});
  EXPECT_THROW(be.cumsum(ids, idsOut, 0, false, false), Error);
  // Two views of one buffer that overlap without being the same.
  Tensor big = be.zeros(dt, {8});
  Tensor a = big, b = big;
  a.shape = b.shape = {4};
  b.data = static_cast<char *>(big.data) + 2 * dtypeSize(dt);
  EXPECT_THROW(be.cumsum(a, b, 0, false, false), Error);
  // Adjacent views do not overlap.
  b.data = static_cast<char *>(big.data) + 4 * dtypeSize(dt);
  EXPECT_NO_THROW(be.cumsum(a, b, 0, false, false));
}

// top-k on every float dtype against a naive reference that stably sorts
// each line's indices by (NaN first, then descending value), so equal values
// and NaNs keep their index order, and takes the first k. The result is
// compared bit for bit with the operand's (values) or the payload's
// elements at those positions; the payload's elements are distinct bit
// patterns (16 bits wide at least), so it pins down every position.
class TopKTest : public ::testing::TestWithParam<DType> {
protected:
  void SetUp() override {
    if (!testBackend())
      GTEST_SKIP() << testBackendSkipReason();
  }
};

/// For each element of the [outer, k, inner] result (row-major), the flat
/// index in the operand of the element it selects. Written independently
/// of ElementOps.h.
std::vector<int64_t> naiveTopK(const Shape &shape, int dim, int k,
                               const std::vector<double> &x) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d)
    outer *= shape[d];
  for (std::size_t d = dim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  const int64_t n = shape[dim];
  std::vector<int64_t> sel;
  sel.resize(static_cast<std::size_t>(outer * k * inner));
  std::vector<int64_t> idx(static_cast<std::size_t>(n));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
      for (int64_t j = 0; j < n; ++j)
        idx[j] = j;
      std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
        double va = x[at(a)], vb = x[at(b)];
        if (std::isnan(va) || std::isnan(vb))
          return std::isnan(va) && !std::isnan(vb);
        return va > vb;
      });
      for (int64_t j = 0; j < k; ++j)
        sel[(o * k + j) * inner + i] = at(idx[j]);
    }
  return sel;
}

/// Values of five kinds: 0 random in [-1, 1); 1 many ties (-1, 0, -0, 0.5,
/// 2); 2 NaNs of both signs, infinities, zeros of both signs and a few
/// numbers; 3 all equal; 4 all NaN.
std::vector<double> topKValues(int kind, int64_t count, uint64_t seed) {
  std::vector<double> v = testValues(count, seed);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double ties[] = {-1, 0, -0.0, 0.5, 2};
  const double special[] = {
      nan, std::copysign(nan, -1.0), inf, -inf, -0.0, 0, 1, 3};
  for (double &x : v) {
    int64_t r = static_cast<int64_t>((x + 1) * 40); // 0..79
    switch (kind) {
    case 1:
      x = ties[r % 5];
      break;
    case 2:
      x = special[r % 8];
      break;
    case 3:
      x = 0.25;
      break;
    case 4:
      x = nan;
      break;
    default:
      break;
    }
  }
  return v;
}

/// A host tensor whose element e has the bits e * 40503 + 7 (distinct for
/// e < 2^16 in a 16-bit dtype, always in the wider ones; some are NaNs,
/// copied as they are).
Tensor payloadBits(DType dt, const Shape &shape) {
  Tensor t = hostTensor(dt, shape);
  const int64_t count = numElements(shape);
  for (int64_t e = 0; e < count; ++e) {
    const uint64_t bits = static_cast<uint64_t>(e) * 40503u + 7u;
    char *dst = static_cast<char *>(t.data) + e * dtypeSize(dt);
    if (dtypeSize(dt) == 2) {
      uint16_t b = static_cast<uint16_t>(bits);
      std::memcpy(dst, &b, 2);
    } else if (dtypeSize(dt) == 4) {
      uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(dst, &b, 4);
    } else {
      std::memcpy(dst, &bits, 8);
    }
  }
  return t;
}

TEST_P(TopKTest, AgainstNaiveReference) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::size_t es = dtypeSize(dt);
  struct Case {
    Shape shape;
    int dim, k;
  };
  const Case cases[] = {
      {{5}, 0, 2},
      {{1}, 0, 1},             // n = 1
      {{6, 1}, 1, 1},          // n = 1 last
      {{2, 1, 3}, 1, 1},       // n = 1 in the middle
      {{4, 7}, 0, 3},          // first dim
      {{4, 7}, 0, 4},          // k = n
      {{4, 7}, 1, 1},          // last dim
      {{4, 7}, 1, 7},          // k = n
      {{3, 5, 6}, 0, 2},       // first of three
      {{3, 5, 6}, 1, 3},       // middle
      {{3, 5, 6}, 2, 4},       // last
      {{3, 5, 6}, 2, 6},       // last, k = n
      {{1000}, 0, 8},          // one long line
      {{2, 40, 300}, 1, 8},    // 600 lines, strided
      {{3, 130, 2}, 1, 5},     // long lines, small inner
      {{2, 3, 2, 2, 3}, 3, 2}, // rank 5
      {{0, 5}, 1, 2},          // empty outside dim
      {{3, 4, 0}, 1, 4},       // empty outside dim
  };
  uint64_t seed = 77;
  for (const Case &c : cases)
    for (int kind = 0; kind < 5; ++kind)
      for (bool withPayload : {false, true}) {
        const int64_t count = numElements(c.shape);
        Tensor xHost = hostFrom(dt, c.shape, topKValues(kind, count, ++seed));
        const std::vector<double> x = toDoubles(xHost); // what it sees
        Tensor pHost = payloadBits(dt, c.shape);
        Tensor xDev = be.upload(xHost), pDev = be.upload(pHost);
        Shape outShape = c.shape;
        outShape[c.dim] = c.k;
        Tensor out = be.empty(dt, outShape);
        be.topK(xDev, withPayload ? &pDev : nullptr, out, c.dim, c.k);
        Tensor got = be.download(out);
        const std::vector<int64_t> sel = naiveTopK(c.shape, c.dim, c.k, x);
        ASSERT_EQ(got.numElements(), static_cast<int64_t>(sel.size()));
        const Tensor &src = withPayload ? pHost : xHost;
        for (std::size_t e = 0; e < sel.size(); ++e)
          ASSERT_EQ(std::memcmp(
                        static_cast<const char *>(got.data) + e * es,
                        static_cast<const char *>(src.data) + sel[e] * es, es),
                    0)
              << shapeToString(c.shape) << " dim " << c.dim << " k " << c.k
              << " values of kind " << kind
              << (withPayload ? " payload" : " values") << ": element " << e
              << " should be the operand's element " << sel[e] << " ("
              << x[sel[e]] << ")";
      }
}

// Hand-worked lines: NaN first, equal values (and -0 == +0) by index.
TEST_P(TopKTest, WorkedExample) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x =
      be.upload(hostFrom(dt, {2, 5}, {1, 3, nan, 3, -2, 0, -0.0, 5, 5, -inf}));
  Tensor pos = be.upload(hostFrom(dt, {2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  Tensor out = be.empty(dt, {2, 3});
  be.topK(x, &pos, out, 1, 3);
  EXPECT_EQ(toDoubles(be.download(out)),
            (std::vector<double>{2, 1, 3, 7, 8, 5}));
  be.topK(x, nullptr, out, 1, 3);
  std::vector<double> v = toDoubles(be.download(out));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 3);
  EXPECT_EQ(v[2], 3);
  EXPECT_EQ(v[3], 5);
  EXPECT_EQ(v[4], 5);
  EXPECT_EQ(v[5], 0);
  EXPECT_FALSE(std::signbit(v[5])); // +0 (index 5) before -0 (index 6)
  Tensor col = be.empty(dt, {1, 5});
  be.topK(x, &pos, col, 0, 1);
  EXPECT_EQ(toDoubles(be.download(col)), (std::vector<double>{0, 1, 2, 8, 4}));
  // The payload may be the operand itself.
  be.topK(pos, &pos, out, 1, 3);
  EXPECT_EQ(toDoubles(be.download(out)),
            (std::vector<double>{4, 3, 2, 9, 8, 7}));
}

TEST_P(TopKTest, RejectsBadArguments) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const DType otherDt = dt == DType::F64 ? DType::F32 : DType::F64;
  Tensor x = be.zeros(dt, {4, 3}), p = be.zeros(dt, {4, 3});
  Tensor out = be.empty(dt, {4, 2});
  EXPECT_NO_THROW(be.topK(x, &p, out, 1, 2));
  EXPECT_THROW(be.topK(x, nullptr, out, 1, 0), Error); // k < 1
  Tensor out4 = be.empty(dt, {4, 4});
  EXPECT_THROW(be.topK(x, nullptr, out4, 1, 4), Error); // k > n
  EXPECT_THROW(be.topK(x, nullptr, out, 2, 2), Error);  // dim
  EXPECT_THROW(be.topK(x, nullptr, out, -1, 2), Error);
  Tensor scalar = be.zeros(dt, {}), scalarOut = be.empty(dt, {});
  EXPECT_THROW(be.topK(scalar, nullptr, scalarOut, 0, 1), Error);
  Tensor ids = be.zeros(DType::I32, {4, 3}),
         idsOut = be.empty(DType::I32, {4, 2});
  EXPECT_THROW(be.topK(ids, nullptr, idsOut, 1, 2), Error);
  Tensor pShape = be.zeros(dt, {3, 4});
  EXPECT_THROW(be.topK(x, &pShape, out, 1, 2), Error); // payload shape
  Tensor pType = be.zeros(otherDt, {4, 3});
  EXPECT_THROW(be.topK(x, &pType, out, 1, 2), Error); // payload dtype
  Tensor wrong = be.empty(dt, {4, 3});
  EXPECT_THROW(be.topK(x, nullptr, wrong, 1, 2), Error); // result shape
  Tensor wrongType = be.empty(otherDt, {4, 2});
  EXPECT_THROW(be.topK(x, nullptr, wrongType, 1, 2), Error); // result dtype
  // The result may not overlap the operand or the payload.
  Tensor big = be.zeros(dt, {20});
  Tensor a = big, b = big;
  a.shape = {4, 3};
  b.shape = {4, 2};
  b.data = static_cast<char *>(big.data) + 11 * dtypeSize(dt);
  EXPECT_THROW(be.topK(a, nullptr, b, 1, 2), Error);
  EXPECT_THROW(be.topK(x, &a, b, 1, 2), Error);
  b.data = static_cast<char *>(big.data) + 12 * dtypeSize(dt); // adjacent
  EXPECT_NO_THROW(be.topK(a, nullptr, b, 1, 2));
  EXPECT_NO_THROW(be.topK(x, &a, b, 1, 2));
}

/// Per output element of "in->out" (row-major over the result letters), the
/// input offsets of its elements in reduced index order (row-major over the
/// reduced letters in input order): a walk over the input in memory order
/// visits each output's elements in that order.
std::vector<std::vector<int64_t>> reducedOffsets(const std::string &in,
                                                 const std::string &out,
                                                 const Shape &shape) {
  Shape outShape;
  for (char c : out)
    outShape.push_back(shape[in.find(c)]);
  std::vector<std::vector<int64_t>> lists(
      static_cast<std::size_t>(numElements(outShape)));
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t f = 0; f < numElements(shape); ++f) {
    int64_t o = 0;
    for (std::size_t k = 0; k < out.size(); ++k)
      o = o * outShape[k] + idx[in.find(out[k])];
    lists[o].push_back(f);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  return lists;
}

// Every backend gives a row-ordered reduction (reduceRowOrdered) the bits
// of ops::reduceCanonical over each output's elements (accumulated in f64,
// rounded to the dtype), whatever the row length: one segment, several,
// partials of partials (more than 2048^2), reduced dims gathered around a
// kept one, NaN and infinities. The CPU gives the other reductions the
// sequential order's bits (on CUDA those may be split into segments).
TEST_P(ElementTest, ReductionsInTheCanonicalOrder) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::vector<std::pair<std::string, Shape>> cases = {
      {"ij->i", {3, 1}},
      {"ij->i", {3, 2}},
      {"ij->i", {3, 31}},
      {"ij->i", {3, 32}},
      {"ij->i", {3, 33}},
      {"ij->i", {3, 64}},
      {"ij->i", {3, 100}},
      {"ij->i", {2, 2047}},
      {"ij->i", {2, 2048}},
      {"ij->i", {2, 2049}},
      {"ij->i", {2, 5000}},
      {"ij->i", {1, 50257}},
      {"ij->", {1, 2048 * 2048 + 3}}, // three passes on CUDA
      {"bhts->bht", {2, 3, 4, 64}},   // softmax's rows
      {"btd->bt", {2, 3, 256}},       // RMSNorm's
      {"btd->b", {2, 30, 100}},       // t, d merge: 3000
      {"ijk->j", {3, 4, 700}},        // gathered: 2100 each
      {"ijk->kj", {5, 2, 3}},         // k kept: sequential
      {"btd->d", {3, 40, 5}},         // a bias gradient
      {"ij->j", {0, 3}},              // nothing: identities
  };
  for (ReduceKind k : {ReduceKind::Sum, ReduceKind::Max, ReduceKind::Min})
    for (const auto &[specText, shape] : cases)
      for (int special = 0; special < 3; ++special) {
        SCOPED_TRACE(std::string(reduceKindName(k)) + " " + specText + " " +
                     shapeToString(shape) + " special " +
                     std::to_string(special));
        const int64_t count = numElements(shape);
        // Magnitudes 2^-10 .. 2^10 and every 37th element +-2^40: the
        // small ones a partial sum absorbs depend on the order, so even f32
        // sums accumulated in f64 show it.
        std::vector<double> v = testValues(count, 17 + special);
        for (int64_t i = 0; i < count; ++i)
          v[i] = i % 37 == 5
                     ? std::ldexp(i % 2 ? 1.0 : -1.0, 40)
                     : std::ldexp(v[i], static_cast<int>(i * 7 % 21) - 10);
        if (special == 1 && count > 2) {
          v[count / 2] = NAN;
          v[count - 1] = INFINITY;
        }
        if (special == 2 && count > 2) {
          v[0] = INFINITY;
          v[count - 2] = -INFINITY;
        }
        Tensor host = hostFrom(dt, shape, v);
        v = toDoubles(host); // rounded to the dtype
        ReducePlan plan = planReduce(specText, shape);
        EinsumSpec spec = EinsumSpec::parse(specText);
        auto lists = reducedOffsets(spec.inputs[0], spec.output, shape);
        const bool rowOrdered = reduceRowOrdered(plan);
        if (!rowOrdered && be.device() != Device::Host)
          continue; // the CUDA backend may split these
        std::vector<double> want(lists.size());
        for (std::size_t o = 0; o < lists.size(); ++o) {
          const auto &l = lists[o];
          auto load = [&](int64_t r) { return v[l[r]]; };
          const int64_t n = static_cast<int64_t>(l.size());
          ops::dispatchReduce(k, [&]<ReduceKind K>() {
            using R = ops::Reduce<K, double>;
            if (rowOrdered) {
              want[o] = ops::reduceCanonical<K, double>(n, load);
            } else {
              double acc = R::identity();
              for (int64_t r = 0; r < n; ++r)
                acc = R::combine(acc, load(r));
              want[o] = acc;
            }
          });
        }
        Tensor in = be.upload(host);
        Tensor out = be.empty(dt, plan.outShape);
        be.reduce(k, plan, in, out);
        expectSameBits(be.download(out), hostFrom(dt, plan.outShape, want));
      }
}

// Fused maps (planFusedMap, Backend::fusedMap) against the same chain run
// as one unfused map per step: the results must match bit for bit (each
// step rounds to the dtype as the unfused map stores it), on every dtype
// the backend maps (f16 and bf16 on CUDA; skipped where map lacks them).
class FusedMapTest : public ::testing::TestWithParam<DType> {
protected:
  void SetUp() override {
    std::string why = mapSkipReason(GetParam());
    if (!why.empty())
      GTEST_SKIP() << why;
  }
};

struct FusedCase {
  std::string name;
  std::string spec;
  std::vector<Shape> shapes;
  Shape outShape;
  std::vector<FusedStep> steps;
};

/// The chain of `c` as separate Backend::map calls, one tensor per step
/// (a step reading input i maps "<input i's letters>,...-><result>").
Tensor runUnfused(Backend &be, const FusedCase &c,
                  const std::vector<Tensor> &inputs) {
  EinsumSpec spec = EinsumSpec::parse(c.spec, 1, kMaxFusedInputs);
  const int n = static_cast<int>(inputs.size());
  std::vector<Tensor> values = inputs;
  std::vector<std::string> letters = spec.inputs;
  for (const FusedStep &st : c.steps) {
    bool binary = isBinary(st.kind);
    std::string mapSpec = letters[st.a];
    std::vector<Shape> shapes = {values[st.a].shape};
    if (binary) {
      mapSpec += "," + letters[st.b];
      shapes.push_back(values[st.b].shape);
    }
    mapSpec += "->" + spec.output;
    MapPlan plan = planMap(mapSpec, shapes, &c.outShape);
    Tensor out = be.empty(inputs[0].dtype, c.outShape);
    be.map(st.kind, plan, values[st.a], binary ? &values[st.b] : nullptr, out,
           st.scalar);
    values.push_back(out);
    letters.push_back(spec.output);
  }
  EXPECT_EQ(static_cast<int>(values.size()),
            n + static_cast<int>(c.steps.size()));
  return values.back();
}

/// The chains: every MapKind at least once (the unary ones on safe ranges:
/// log, sqrt and rsqrt of a square plus a shift), broadcasts, a transposed
/// operand, rank-0 operands, rows longer than the CPU's 256-element tile
/// (contiguous and strided) and an empty tensor.
std::vector<FusedCase> fusedCases() {
  using K = MapKind;
  return {
      {"bias_relu",
       "btd,d->btd",
       {{2, 3, 1000}, {1000}},
       {2, 3, 1000},
       {{K::Add, 0, 1}, {K::Relu, 2}}},
      {"residual_gelu",
       "btd,btd,d->btd",
       {{3, 4, 8}, {3, 4, 8}, {8}},
       {3, 4, 8},
       {{K::Mul, 1, 2}, {K::Gelu, 3}, {K::Add, 0, 4}, {K::Scale, 5, -1, 0.5}}},
      {"normalize",
       "btd,bt,bt->btd",
       {{2, 5, 40}, {2, 5}, {2, 5}},
       {2, 5, 40},
       {{K::Sub, 0, 1},
        {K::Square, 2},
        {K::Shift, 4, -1, 1e-5},
        {K::Rsqrt, 5},
        {K::Mul, 3, 6}}},
      // The binary kinds (comparisons of x and y, then combined).
      {"binary_kinds",
       "ij,ij->ij",
       {{3, 70}, {3, 70}},
       {3, 70},
       {{K::Gt, 0, 1},
        {K::Ge, 0, 1},
        {K::Lt, 0, 1},
        {K::Le, 0, 1},
        {K::Eq, 0, 0},
        {K::Ne, 0, 1},
        {K::Add, 2, 3},
        {K::Sub, 8, 4},
        {K::Mul, 9, 5},
        {K::Max, 10, 6},
        {K::Min, 11, 7},
        {K::Add, 12, 0},
        {K::Div, 13, 1},
        {K::Max, 14, 1}}},
      // Sixteen steps over a 300-element row and a broadcast vector.
      {"unary_kinds_1",
       "ij,j->ij",
       {{4, 300}, {300}},
       {4, 300},
       {{K::Mul, 0, 1},
        {K::Square, 2},
        {K::Shift, 3, -1, 0.25},
        {K::Log, 4},
        {K::Sqrt, 4},
        {K::Rsqrt, 4},
        {K::Add, 5, 6},
        {K::Mul, 8, 7},
        {K::Tanh, 9},
        {K::Exp, 10},
        {K::Neg, 11},
        {K::Relu, 2},
        {K::Add, 12, 13},
        {K::Gelu, 14},
        {K::Silu, 15},
        {K::Scale, 16, -1, 1.7}}},
      // A rank-0 input broadcast over the result.
      {"unary_kinds_2",
       "ij,->ij",
       {{5, 33}, {}},
       {5, 33},
       {{K::Sub, 0, 1},
        {K::Abs, 2},
        {K::Sign, 2},
        {K::Step, 2},
        {K::Sigmoid, 2},
        {K::Sin, 3},
        {K::Cos, 6},
        {K::Mul, 4, 7},
        {K::Add, 9, 8},
        {K::Add, 10, 5}}},
      // Transposed operands, short and longer than a tile (strided reads).
      {"transposed",
       "ij,ji->ij",
       {{3, 4}, {4, 3}},
       {3, 4},
       {{K::Sub, 0, 1}, {K::Square, 2}, {K::Scale, 3, -1, 0.5}}},
      {"transposed_long",
       "ij,ji->ij",
       {{3, 700}, {700, 3}},
       {3, 700},
       {{K::Mul, 1, 0}, {K::Exp, 2}, {K::Sub, 3, 1}}},
      // A result letter in no operand (sized by the result shape).
      {"outer",
       "i,j->ijk",
       {{3}, {5}},
       {3, 5, 2},
       {{K::Sub, 0, 1}, {K::Sigmoid, 2}}},
      // Products feeding sums: an FMA across steps would round once where
      // the unfused maps round twice.
      {"multiply_add",
       "i,i,i->i",
       {{1000}, {1000}, {1000}},
       {1000},
       {{K::Mul, 0, 1},
        {K::Add, 3, 2},
        {K::Square, 4},
        {K::Sub, 5, 0},
        {K::Scale, 6, -1, 3.0},
        {K::Add, 7, 1}}},
      {"scalar", "->", {{}}, {}, {{K::Exp, 0}, {K::Neg, 1}, {K::Add, 2, 0}}},
      {"empty", "ij,j->ij", {{0, 4}, {4}}, {0, 4}, {{K::Add, 0, 1}}},
  };
}

TEST_P(FusedMapTest, BitIdenticalToUnfusedMaps) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  for (const FusedCase &c : fusedCases()) {
    SCOPED_TRACE(c.name + " " + c.spec);
    std::vector<Tensor> inputs;
    for (std::size_t i = 0; i < c.shapes.size(); ++i) {
      auto v = testValues(numElements(c.shapes[i]), 11 + i);
      for (auto &x : v)
        x *= 2;
      inputs.push_back(be.upload(hostFrom(dt, c.shapes[i], v)));
    }
    FusedMapPlan plan = planFusedMap(c.spec, c.shapes, c.outShape, c.steps);
    std::vector<const Tensor *> ptrs;
    for (const Tensor &t : inputs)
      ptrs.push_back(&t);
    Tensor fused = be.empty(dt, c.outShape);
    be.fusedMap(plan, ptrs, fused);
    expectSameBits(be.download(fused), be.download(runUnfused(be, c, inputs)));
  }
}

// A chain whose inputs hold NaN, infinities and signed zeros: NaNs and the
// sign of zero come through each step as the unfused maps give them.
TEST_P(FusedMapTest, SpecialValuesBitIdentical) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  const std::vector<double> specials = {NAN,  -NAN, INFINITY, -INFINITY, 0.0,
                                        -0.0, 1.0,  -1.0,     0.5,       -2.0};
  const int64_t n = static_cast<int64_t>(specials.size());
  std::vector<double> x, y;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      x.push_back(specials[i]);
      y.push_back(specials[j]);
    }
  using K = MapKind;
  for (K k : {K::Add, K::Sub, K::Mul, K::Div, K::Max, K::Min}) {
    FusedCase c{mapKindName(k),
                "i,i->i",
                {{n * n}, {n * n}},
                {n * n},
                {{k, 0, 1},
                 {K::Relu, 2},
                 {K::Neg, 3},
                 {K::Abs, 2},
                 {K::Mul, 4, 5},
                 {K::Sign, 6},
                 {K::Scale, 7, -1, -0.0}}};
    SCOPED_TRACE(c.name);
    std::vector<Tensor> inputs = {be.upload(hostFrom(dt, {n * n}, x)),
                                  be.upload(hostFrom(dt, {n * n}, y))};
    FusedMapPlan plan = planFusedMap(c.spec, c.shapes, c.outShape, c.steps);
    Tensor fused = be.empty(dt, c.outShape);
    be.fusedMap(plan, {&inputs[0], &inputs[1]}, fused);
    expectSameBits(be.download(fused), be.download(runUnfused(be, c, inputs)));
  }
}

TEST_P(FusedMapTest, RejectsMismatchesAndProfiles) {
  Backend &be = *testBackend();
  DType dt = GetParam();
  FusedMapPlan plan = planFusedMap("ij,j->ij", {{2, 3}, {3}}, {2, 3},
                                   {{MapKind::Add, 0, 1}, {MapKind::Relu, 2}});
  Tensor a = be.zeros(dt, {2, 3}), b = be.zeros(dt, {3});
  Tensor out = be.zeros(dt, {2, 3});
  EXPECT_THROW(be.fusedMap(plan, {&a}, out), Error); // too few inputs
  EXPECT_THROW(be.fusedMap(plan, {&a, &b, &b}, out), Error);
  EXPECT_THROW(be.fusedMap(plan, {&b, &a}, out), Error); // shapes swapped
  Tensor wrongOut = be.zeros(dt, {3, 2});
  EXPECT_THROW(be.fusedMap(plan, {&a, &b}, wrongOut), Error);
  Tensor other = be.zeros(dt == DType::F64 ? DType::F32 : DType::F64, {3});
  EXPECT_THROW(be.fusedMap(plan, {&a, &other}, out), Error); // dtype
  // In place only into an input read element for element (docs/runtime.md,
  // In-place elementwise ops): `b` broadcast from the result's buffer is
  // refused, the first input as the result is allowed.
  Tensor bInOut = out;
  bInOut.shape = {3};
  EXPECT_THROW(be.fusedMap(plan, {&a, &bInOut}, out), Error);
  EXPECT_NO_THROW(be.fusedMap(plan, {&out, &b}, out));
  Tensor ia = be.zeros(DType::I32, {2, 3}), ib = be.zeros(DType::I32, {3});
  Tensor iout = be.zeros(DType::I32, {2, 3});
  EXPECT_THROW(be.fusedMap(plan, {&ia, &ib}, iout), Error); // not a float

  // Profiled as kind "fused", under its label or the step kinds and spec.
  Profiler prof;
  be.setProfiler(&prof);
  be.fusedMap(plan, {&a, &b}, out, "bias_relu");
  be.fusedMap(plan, {&a, &b}, out);
  be.setProfiler(nullptr);
  const OpStats *named = prof.find("bias_relu");
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->kind, "fused");
  const OpStats *unnamed = prof.find("fused add+relu ij,j->ij");
  ASSERT_NE(unnamed, nullptr);
  EXPECT_EQ(unnamed->kind, "fused");
  EXPECT_EQ(unnamed->calls, 1);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FusedMapTest,
                         ::testing::Values(DType::F32, DType::F64, DType::F16,
                                           DType::BF16),
                         [](const auto &info) {
                           return std::string(dtypeName(info.param));
                         });

INSTANTIATE_TEST_SUITE_P(Dtypes, TopKTest,
                         ::testing::Values(DType::F32, DType::F64, DType::F16,
                                           DType::BF16),
                         [](const auto &info) {
                           return std::string(dtypeName(info.param));
                         });

INSTANTIATE_TEST_SUITE_P(Dtypes, CumsumTest,
                         ::testing::Values(DType::F32, DType::F64, DType::F16,
                                           DType::BF16),
                         [](const auto &info) {
                           return std::string(dtypeName(info.param));
                         });

INSTANTIATE_TEST_SUITE_P(Dtypes, PadFillTest,
                         ::testing::Values(DType::F32, DType::F64, DType::F16,
                                           DType::BF16, DType::I32),
                         [](const auto &info) {
                           return std::string(dtypeName(info.param));
                         });

//===--- weft.convert -----------------------------------------------------===//

/// A 16-bit format's value, decoded here with ldexp rather than by
/// ops::widenBits' bit assembly: (-1)^s 2^(e - bias) (1 + m / 2^M), or
/// 2^(1 - bias) m / 2^M for e = 0; NaN for a NaN pattern.
double refDecode(uint16_t h, int E, int M) {
  const int expMax = (1 << E) - 1, bias = (1 << (E - 1)) - 1;
  const int e = (h >> M) & expMax, m = h & ((1 << M) - 1);
  const double sign = (h >> 15) ? -1.0 : 1.0;
  if (e == expMax)
    return m ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(m, 1 - bias - M);
  return sign * std::ldexp(1.0 + std::ldexp(m, -M), e - bias);
}

/// `x` rounded to the format by search: the nearest of its finite
/// non-negative values (ascending with their patterns), ties to the even
/// pattern, infinity at or beyond the largest finite value plus half an
/// ulp of it. Independent of ops::narrowBits.
uint16_t refRound(double x, int E, int M) {
  static std::vector<double> values[2]; // f16 (E=5), bf16 (E=8)
  std::vector<double> &v = values[E == 8];
  const uint16_t maxFinite = static_cast<uint16_t>(((1 << E) - 1) << M) - 1;
  if (v.empty())
    for (uint32_t h = 0; h <= maxFinite; ++h)
      v.push_back(refDecode(static_cast<uint16_t>(h), E, M));
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  const double ulpMax = v[maxFinite] - v[maxFinite - 1];
  if (a >= v[maxFinite] + ulpMax / 2)
    return sign | static_cast<uint16_t>(maxFinite + 1);
  auto hi = std::lower_bound(v.begin(), v.end(), a);
  if (hi == v.end())
    return sign | maxFinite;
  uint16_t h = static_cast<uint16_t>(hi - v.begin());
  if (*hi == a || h == 0)
    return sign | h;
  const double up = *hi - a, down = a - v[h - 1];
  if (down < up || (down == up && ((h - 1) & 1) == 0))
    --h;
  return sign | h;
}

class ConvertTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!testBackend())
      GTEST_SKIP() << testBackendSkipReason();
  }
  /// `in` (host) converted on the backend to `to`, back on the host.
  Tensor convert(const Tensor &in, DType to) {
    Backend &be = *testBackend();
    Tensor dev = be.upload(in);
    Tensor out = be.empty(to, in.shape);
    be.convert(dev, out);
    return be.download(out);
  }
};

TEST_F(ConvertTest, EveryHalfAndBFloat16PatternWidensExactly) {
  for (DType from : {DType::F16, DType::BF16}) {
    const int E = from == DType::F16 ? 5 : 8, M = from == DType::F16 ? 10 : 7;
    Tensor in = hostTensor(from, {65536});
    for (uint32_t h = 0; h < 65536; ++h)
      in.ptr<uint16_t>()[h] = static_cast<uint16_t>(h);
    Tensor d = convert(in, DType::F64), f = convert(in, DType::F32);
    Tensor back = convert(f, from);
    for (uint32_t h = 0; h < 65536; ++h) {
      double want = refDecode(static_cast<uint16_t>(h), E, M);
      double gd = d.ptr<double>()[h], gf = f.ptr<float>()[h];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(gd) && std::isnan(gf)) << dtypeName(from) << h;
        EXPECT_TRUE(back.ptr<uint16_t>()[h] == h ||
                    (back.ptr<uint16_t>()[h] & 0x7fff) >
                        ((((1u << E) - 1) << M)))
            << dtypeName(from) << " NaN pattern " << h;
        continue;
      }
      ASSERT_EQ(std::memcmp(&gd, &want, 8), 0)
          << dtypeName(from) << " pattern " << h << ": " << gd << " vs "
          << want; // -0 included
      ASSERT_EQ(static_cast<double>(gf), want) << dtypeName(from) << h;
      ASSERT_EQ(back.ptr<uint16_t>()[h], h) << dtypeName(from) << h;
    }
  }
}

TEST_F(ConvertTest, NarrowingRoundsOnceToNearestEven) {
  // Ties, a double rounding trap (f64 -> f32 lands on a bf16 tie that the
  // f64 value is above), overflow at the boundary, subnormals of each
  // format, signed zeros, infinities; then values across the exponent
  // range.
  std::vector<double> xs = {0.0,
                            -0.0,
                            1.0,
                            1.0 + 0x1p-8,
                            1.0 + 3 * 0x1p-8,
                            1.0 + 0x1p-8 + 0x1p-40,
                            -(1.0 + 0x1p-8 + 0x1p-40),
                            1.0 + 0x1p-11,
                            1.0 + 3 * 0x1p-11,
                            1.0 + 0x1p-11 + 0x1p-40,
                            65504.0,
                            65519.99,
                            65520.0,
                            1e5,
                            0x1p-24,
                            0x1p-25,
                            0x1p-25 + 0x1p-60,
                            1.5 * 0x1p-24,
                            0x1p-133,
                            0x1p-134,
                            0x1p-134 + 0x1p-160,
                            3.3895313892515355e38,
                            3.3961775292304602e38,
                            3.4e38,
                            1e300,
                            -1e300,
                            1e-300,
                            INFINITY,
                            -INFINITY};
  uint64_t s = 12345;
  for (int i = 0; i < 20000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double m = static_cast<double>(s >> 11) / 9007199254740992.0 + 0.5;
    int e = static_cast<int>((s >> 3) % 300) - 150;
    xs.push_back(std::ldexp((s & 1) ? -m : m, e));
  }
  Tensor d = hostTensor(DType::F64, {static_cast<int64_t>(xs.size())});
  Tensor f = hostTensor(DType::F32, d.shape);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    d.ptr<double>()[i] = xs[i];
    f.ptr<float>()[i] = static_cast<float>(xs[i]);
  }
  for (DType to : {DType::F16, DType::BF16}) {
    const int E = to == DType::F16 ? 5 : 8, M = to == DType::F16 ? 10 : 7;
    Tensor fromD = convert(d, to), fromF = convert(f, to);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      ASSERT_EQ(fromD.ptr<uint16_t>()[i], refRound(xs[i], E, M))
          << "f64 " << xs[i] << " -> " << dtypeName(to);
      ASSERT_EQ(fromF.ptr<uint16_t>()[i], refRound(f.ptr<float>()[i], E, M))
          << "f32 " << f.ptr<float>()[i] << " -> " << dtypeName(to);
    }
  }
  Tensor f32 = convert(d, DType::F32);
  for (std::size_t i = 0; i < xs.size(); ++i)
    ASSERT_EQ(f32.ptr<float>()[i], static_cast<float>(xs[i])) << xs[i];
  // The trap: rounding through f32 would give 1.0.
  EXPECT_EQ(convert(d, DType::BF16).ptr<uint16_t>()[5], 0x3f81);
}

TEST_F(ConvertTest, NanStaysNanAndEqualDtypesCopy) {
  Tensor d = hostTensor(DType::F64, {3});
  d.ptr<double>()[0] = std::numeric_limits<double>::quiet_NaN();
  d.ptr<double>()[1] = -std::numeric_limits<double>::quiet_NaN();
  d.ptr<double>()[2] = 2.5;
  for (DType to : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
    std::vector<double> got = toDoubles(convert(d, to));
    EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1])) << dtypeName(to);
    EXPECT_EQ(got[2], 2.5) << dtypeName(to);
  }
  Backend &be = *testBackend();
  Tensor i32 = be.zeros(DType::I32, {3});
  Tensor out = be.empty(DType::F32, {3});
  EXPECT_THROW(be.convert(i32, out), Error);
  Tensor wrong = be.empty(DType::BF16, {4});
  EXPECT_THROW(be.convert(be.upload(d), wrong), Error);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ElementTest,
                         ::testing::Values(DType::F32, DType::F64),
                         [](const auto &info) {
                           return std::string(dtypeName(info.param));
                         });

} // namespace

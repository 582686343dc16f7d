//===- CpuTests.cpp - Host buffer pool and the float math functions -------===//
//
// The CPU backend's caching allocator (BufferPool) and the vectorizable float
// exp, tanh, log, log1p, sin and cos of ElementOps.h, checked against the
// double functions rounded to float.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/BufferPool.h"
#include "weft/rt/Config.h"
#include "weft/rt/EinsumPlan.h"
#include "weft/rt/ElementOps.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Error.h"
#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include "../backends/cpu/BatchPack.h"
#include "../backends/cpu/OneDnnGemm.h"
#include "../backends/cpu/SmallGemm.h"

#include <cblas.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

using namespace weft::rt;

namespace {

TEST(BufferPool, SizeClasses) {
  std::size_t prev = 0;
  for (std::size_t b = 0; b < (1u << 22); b += 1 + b / 37) {
    std::size_t c = BufferPool::classSize(b);
    EXPECT_GE(c, b);
    EXPECT_EQ(c % 64, 0u) << b;
    EXPECT_LE(c, std::max<std::size_t>(64, b + (b + 3) / 4 + 63)) << b;
    EXPECT_GE(c, prev) << b;
    prev = c;
    EXPECT_EQ(BufferPool::classSize(c), c) << "a class size is its own class";
  }
  EXPECT_EQ(BufferPool::classSize(0), 64u);
  EXPECT_EQ(BufferPool::classSize(1024), 1024u);
  EXPECT_EQ(BufferPool::classSize(1025), 1280u);   // 1024 < b <= 2048: step 256
  EXPECT_EQ(BufferPool::classSize(65537), 81920u); // 2^16 < b: step 2^14
  EXPECT_EQ(BufferPool::classSize(1 << 20), std::size_t(1) << 20);
}

TEST(BufferPool, ReusesReleasedBuffers) {
  auto pool = std::make_shared<BufferPool>();
  void *first;
  {
    auto a = pool->allocate(1000);
    first = a.get();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
    std::memset(first, 1, 1000);
    EXPECT_EQ(pool->stats().liveBytes, BufferPool::classSize(1000));
  }
  EXPECT_EQ(pool->stats().cachedBytes, BufferPool::classSize(1000));
  EXPECT_EQ(pool->stats().liveBytes, 0u);
  auto b = pool->allocate(990); // same class
  EXPECT_EQ(b.get(), first);
  EXPECT_EQ(pool->stats().systemAllocs, 1);
  EXPECT_EQ(pool->stats().reuses, 1);
  auto c = pool->allocate(990); // the cached one is in use: a new buffer
  EXPECT_NE(c.get(), first);
  EXPECT_EQ(pool->stats().systemAllocs, 2);
  b.reset();
  c.reset();
  EXPECT_EQ(pool->stats().cachedBytes, 2 * BufferPool::classSize(1000));
  pool->trim();
  EXPECT_EQ(pool->stats().cachedBytes, 0u);
}

TEST(BufferPool, BuffersOutliveAClosedPool) {
  std::shared_ptr<void> keep;
  {
    auto pool = std::make_shared<BufferPool>();
    auto a = pool->allocate(4096);
    keep = pool->allocate(100);
    pool->close(); // what ~CpuBackend does
    a.reset();     // freed for real, not cached
    EXPECT_EQ(pool->stats().cachedBytes, 0u);
  }
  std::memset(keep.get(), 0, 100); // still valid
  keep.reset();                    // frees it and the pool
}

/// A step that allocates the same sizes every iteration reaches a steady
/// state after the first one: no more system allocations.
TEST(CpuBackend, StepsReuseBuffers) {
  CpuBackend be(Mesh({{"x", 1}}), 0);
  Shape shapes[] = {{4, 64, 256}, {4, 64, 1024}, {4, 8, 64, 64}, {4, 64}, {7}};
  int64_t afterFirst = 0;
  for (int step = 0; step < 4; ++step) {
    std::vector<Tensor> live;
    for (int rep = 0; rep < 3; ++rep)
      for (const Shape &s : shapes) {
        live.push_back(be.empty(DType::F32, s));
        EXPECT_EQ(reinterpret_cast<uintptr_t>(live.back().data) % 64, 0u);
        if (live.size() > 4)
          live.erase(live.begin()); // release at "last use"
      }
    live.clear();
    if (step == 0)
      afterFirst = be.poolStats().systemAllocs;
  }
  EXPECT_GT(afterFirst, 0);
  EXPECT_EQ(be.poolStats().systemAllocs, afterFirst);
  EXPECT_EQ(be.poolStats().liveBytes, 0u);
}

TEST(CpuBackend, TensorsOutliveTheBackend) {
  Tensor t;
  {
    CpuBackend be(Mesh({{"x", 1}}), 0);
    t = be.empty(DType::F64, {3, 5});
    Tensor scratchLike = be.empty(DType::F32, {100});
  }
  for (int i = 0; i < 15; ++i)
    t.ptr<double>()[i] = i;
  EXPECT_EQ(t.ptr<double>()[14], 14.0);
}

/// Sets an environment variable for a scope, restoring what was there.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      saved_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (saved_)
      setenv(name_, saved_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> saved_;
};

// Which fused row chains the one-pass softmax kernel takes (CpuKernels.cpp,
// "Softmax rows in one pass"): attention's contiguous rows of 64 and a row
// of one whole segment, in f32; not f64 or bf16, not a row longer than a
// segment, not a row read at a stride, not another chain. Its bits are
// FusedRowsTests' (run here on the widest ISA and at WEFT_RT_ISA=base).
TEST(CpuBackend, SoftmaxKernelTakesContiguousF32SoftmaxRows) {
  if (!__builtin_cpu_supports("avx512f") || std::getenv("WEFT_RT_ISA"))
    GTEST_SKIP() << "the kernel runs on AVX-512 only";
  const std::vector<FusedRowStep> softmax = fusedSoftmaxSteps();
  const FusedRowsPlan p9 =
      planFusedRows("bhts->bhts", "s", {{16, 8, 64, 64}}, softmax);
  EXPECT_TRUE(CpuBackend::runsSoftmaxKernel(p9, DType::F32));
  EXPECT_FALSE(CpuBackend::runsSoftmaxKernel(p9, DType::F64));
  EXPECT_FALSE(CpuBackend::runsSoftmaxKernel(p9, DType::BF16));
  EXPECT_TRUE(CpuBackend::runsSoftmaxKernel(
      planFusedRows("bs->bs", "s", {{3, 2048}}, softmax), DType::F32));
  EXPECT_FALSE(CpuBackend::runsSoftmaxKernel(
      planFusedRows("bs->bs", "s", {{3, 2049}}, softmax), DType::F32));
  EXPECT_FALSE(CpuBackend::runsSoftmaxKernel(
      planFusedRows("sb->bs", "s", {{64, 3}}, softmax), DType::F32));
  // Attention's additive mask, broadcast over b and h: taken; read at a
  // stride (transposed): not.
  EXPECT_TRUE(CpuBackend::runsSoftmaxKernel(
      planFusedRows("bhts,ts->bhts", "s", {{16, 8, 64, 64}, {64, 64}},
                    fusedMaskedSoftmaxSteps()),
      DType::F32));
  EXPECT_FALSE(CpuBackend::runsSoftmaxKernel(
      planFusedRows("bhts,st->bhts", "s", {{16, 8, 64, 64}, {64, 64}},
                    fusedMaskedSoftmaxSteps()),
      DType::F32));
  std::vector<FusedRowStep> logSoftmaxLike = softmax;
  logSoftmaxLike[4] = fusedRowMap(MapKind::Sub, 3, 4);
  EXPECT_FALSE(CpuBackend::runsSoftmaxKernel(
      planFusedRows("bs->bs", "s", {{3, 64}}, logSoftmaxLike), DType::F32));
}

TEST(CpuBackend, PoisonFillsNewBuffersWithNaN) {
  ScopedEnv poison("WEFT_RT_POISON", "1");
  CpuBackend be(Mesh({{"x", 1}}), 0);
  Tensor a = be.empty(DType::F32, {3});
  std::memset(a.data, 0, a.bytes());
  a = Tensor();
  Tensor b = be.empty(DType::F32, {3}); // the same buffer, poisoned again
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(std::isnan(b.ptr<float>()[i]));
  EXPECT_EQ(be.zeros(DType::F32, {3}).ptr<float>()[2], 0.0f);
}

/// Distance in units in the last place between two floats of one sign
/// (denormals and zero included: the bit patterns are consecutive).
int64_t ulps(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::abs(static_cast<int64_t>(ia) - ib);
}

/// Calls f(x) for every n-th float (bit pattern) from +0 up to `hi` and
/// from -0 down to `lo` (lo <= 0 <= hi).
template <typename F> void everyNthFloat(int32_t n, float lo, float hi, F f) {
  for (float start : {0.0f, -0.0f}) {
    int32_t bits;
    std::memcpy(&bits, &start, 4);
    const float limit = std::signbit(start) ? lo : hi;
    for (;; bits += n) {
      float x;
      std::memcpy(&x, &bits, 4);
      if (std::fabs(x) > std::fabs(limit))
        break;
      f(x);
    }
  }
}

TEST(FloatExp, WithinTwoUlpOverTheWholeRange) {
  // Every 61st float (bit pattern) of [-104, 89], both signs: about 35
  // million values including denormal results, the overflow edge and
  // values near 0. The reference is the double exp rounded to float.
  int64_t worst = 0;
  float worstAt = 0;
  auto checkOne = [&](float x) {
    float want = static_cast<float>(std::exp(static_cast<double>(x)));
    float got = ops::fexp(x);
    int64_t u = ulps(got, want);
    if (u > worst) {
      worst = u;
      worstAt = x;
    }
  };
  everyNthFloat(61, -104.0f, 89.0f, checkOne);
  for (float x : {88.72283f, 88.722839f, 88.72283935546875f, -87.33654f,
                  -103.27893f, -103.97207f, -103.972084f, 1e-30f, -1e-30f})
    checkOne(x);
  EXPECT_LE(worst, 2) << "at x = " << worstAt;
}

/// ops::fexpNormal, the form the CPU's exp loops run on spans whose every
/// element is in ops::fexpNormalRange, gives ops::fexp's bits there: every
/// 61st float of [-86, 88] and the range's edges; the range ends where it
/// says.
TEST(FloatExp, NormalFormIsFexpInItsRange) {
  int64_t checked = 0, mismatches = 0;
  float firstBad = 0;
  auto checkOne = [&](float x) {
    ASSERT_TRUE(ops::fexpNormalRange(x)) << x;
    float a = ops::fexp(x), b = ops::fexpNormal(x);
    ++checked;
    if (std::memcmp(&a, &b, 4) != 0 && mismatches++ == 0)
      firstBad = x;
  };
  everyNthFloat(61, -86.0f, 88.0f, checkOne);
  checkOne(-86.0f);
  checkOne(88.0f);
  EXPECT_GT(checked, 30000000);
  EXPECT_EQ(mismatches, 0) << "first at x = " << firstBad;
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {std::nextafter(88.0f, inf), std::nextafter(-86.0f, -inf), inf,
                  -inf, std::numeric_limits<float>::quiet_NaN(),
                  -std::numeric_limits<float>::quiet_NaN(), 100.0f, -100.0f})
    EXPECT_FALSE(ops::fexpNormalRange(x)) << x;
}

/// The backend's exp loop (which takes the normal form on spans in range)
/// gives ops::fexp's bits element for element: a span in range, the same
/// span with one element out of range (-inf, a denormal result, NaN,
/// overflow), under every ISA variant the test runs with.
TEST(FloatExp, MapLoopGivesFexpBits) {
  CpuBackend be(Mesh({{"x", 1}}), 0);
  const int64_t n = 1000;
  for (float odd : {0.0f, -std::numeric_limits<float>::infinity(), -103.0f,
                    std::numeric_limits<float>::quiet_NaN(), 89.0f}) {
    Tensor x = be.empty(DType::F32, {n}), y = be.empty(DType::F32, {n});
    for (int64_t i = 0; i < n; ++i)
      x.ptr<float>()[i] = static_cast<float>(i % 97) * -0.7f + 20.0f;
    if (odd != 0.0f)
      x.ptr<float>()[n / 2] = odd;
    be.map(MapKind::Exp, planMap("i->i", {{n}}), x, nullptr, y);
    for (int64_t i = 0; i < n; ++i) {
      float want = ops::fexp(x.ptr<float>()[i]), got = y.ptr<float>()[i];
      ASSERT_EQ(std::memcmp(&want, &got, 4), 0)
          << "x[" << i << "] = " << x.ptr<float>()[i] << " with " << odd;
    }
  }
}

TEST(FloatTanh, WithinTwoUlpOverTheWholeRange) {
  // Every 61st float of [-12, 12], both signs (about 34 million values:
  // the polynomial, the exp form, the switch at 0.625 and the saturation),
  // against the double tanh rounded to float.
  int64_t worst = 0;
  float worstAt = 0;
  auto checkOne = [&](float x) {
    float want = static_cast<float>(std::tanh(static_cast<double>(x)));
    float got = ops::ftanh(x);
    int64_t u = ulps(got, want);
    if (u > worst) {
      worst = u;
      worstAt = x;
    }
  };
  everyNthFloat(61, -12.0f, 12.0f, checkOne);
  for (float x : {0.625f, std::nextafter(0.625f, 0.0f), -0.625f, 9.0f, 8.9999f,
                  1e-30f, -1e-30f, 1e-45f})
    checkOne(x);
  EXPECT_LE(worst, 2) << "at x = " << worstAt;
}

TEST(FloatTanh, SpecialValuesAndTheMapLoop) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(ops::ftanh(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(ops::ftanh(-0.0f)));
  EXPECT_EQ(ops::ftanh(inf), 1.0f);
  EXPECT_EQ(ops::ftanh(-inf), -1.0f);
  EXPECT_EQ(ops::ftanh(1e30f), 1.0f);
  EXPECT_EQ(ops::ftanh(-100.0f), -1.0f);
  EXPECT_TRUE(std::isnan(ops::ftanh(nan)));
  EXPECT_TRUE(std::isnan(ops::ftanh(-nan)));
  // The backend's tanh and gelu loops compute ops::ftanh's bits, special
  // values among ordinary ones included.
  CpuBackend be(Mesh({{"x", 1}}), 0);
  const int64_t n = 1000;
  Tensor x = be.empty(DType::F32, {n}), y = be.empty(DType::F32, {n});
  for (int64_t i = 0; i < n; ++i)
    x.ptr<float>()[i] = static_cast<float>(i % 97) * 0.13f - 6.0f;
  x.ptr<float>()[10] = nan;
  x.ptr<float>()[20] = -inf;
  x.ptr<float>()[30] = -0.0f;
  be.map(MapKind::Tanh, planMap("i->i", {{n}}), x, nullptr, y);
  for (int64_t i = 0; i < n; ++i) {
    float want = ops::ftanh(x.ptr<float>()[i]), got = y.ptr<float>()[i];
    ASSERT_EQ(std::memcmp(&want, &got, 4), 0) << "x[" << i << "]";
  }
  be.map(MapKind::Gelu, planMap("i->i", {{n}}), x, nullptr, y);
  for (int64_t i = 0; i < n; ++i) {
    float want = ops::Map<MapKind::Gelu, float>::apply(x.ptr<float>()[i], 0, 0);
    float got = y.ptr<float>()[i];
    ASSERT_EQ(std::memcmp(&want, &got, 4), 0) << "x[" << i << "]";
  }
}

/// Distance in units in the last place between any two floats, across
/// zero (-0 and +0 are 0 apart): positions on the line of ordered bit
/// patterns.
int64_t orderedUlps(float a, float b) {
  auto pos = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : int64_t(i);
  };
  return std::abs(pos(a) - pos(b));
}

/// The worst ulp distance of `got(x)` from the double function `want`
/// rounded to float over every n-th float of [lo, hi] plus `extra`; NaN
/// results must be NaN in both. `where` gets the worst argument.
template <typename Got, typename Want>
int64_t worstUlps(int32_t n, float lo, float hi,
                  std::initializer_list<float> extra, Got got, Want want,
                  float &where) {
  int64_t worst = 0;
  where = 0;
  auto one = [&](float x) {
    float w = static_cast<float>(want(static_cast<double>(x)));
    float g = got(x);
    int64_t u = (std::isnan(w) || std::isnan(g))
                    ? (std::isnan(w) && std::isnan(g) ? 0 : 1000000)
                    : orderedUlps(g, w);
    if (u > worst) {
      worst = u;
      where = x;
    }
  };
  // Every n-th bit pattern of [lo, hi] (both may be infinite): the
  // patterns of each sign walked from zero outwards.
  for (uint32_t sign : {0u, 0x80000000u}) {
    float limit = sign ? lo : hi;
    if (sign ? limit > 0 : limit < 0)
      continue;
    for (uint64_t m = 0; m <= 0x7f800000u; m += n) {
      uint32_t bits = sign | static_cast<uint32_t>(m);
      float x;
      std::memcpy(&x, &bits, 4);
      if (std::fabs(x) > std::fabs(limit))
        break;
      one(x);
    }
  }
  for (float x : extra)
    one(x);
  return worst;
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(FloatLog, WithinOneUlpOverTheWholeRange) {
  // Every 61st float of the whole line, both signs (about 70 million:
  // subnormals, the switch at sqrt(2) in every binade, huge values,
  // negatives), against the double log rounded to float.
  float at;
  int64_t worst = worstUlps(
      61, -kInf, kInf,
      {1.0f, std::nextafter(1.0f, 0.0f), std::nextafter(1.0f, 2.0f),
       0.70710677f, 0.70710683f, 1.4142135f, 1e-45f, 1.17549435e-38f,
       1.1754942e-38f, 3.4028235e38f},
      [](float x) { return ops::flog(x); },
      [](double x) { return std::log(x); }, at);
  EXPECT_LE(worst, 1) << "at x = " << at;
}

TEST(FloatLog, SpecialValues) {
  EXPECT_EQ(ops::flog(0.0f), -kInf);
  EXPECT_EQ(ops::flog(-0.0f), -kInf);
  EXPECT_EQ(ops::flog(kInf), kInf);
  EXPECT_EQ(ops::flog(1.0f), 0.0f);
  EXPECT_FALSE(std::signbit(ops::flog(1.0f)));
  EXPECT_TRUE(std::isnan(ops::flog(-kInf)));
  EXPECT_TRUE(std::isnan(ops::flog(-1.0f)));
  EXPECT_TRUE(std::isnan(ops::flog(-1e-45f)));
  EXPECT_TRUE(std::isnan(ops::flog(kNaN)));
  EXPECT_TRUE(std::isnan(ops::flog(-kNaN)));
  // The smallest subnormal: log(2^-149).
  EXPECT_EQ(ops::flog(1e-45f), static_cast<float>(-149 * std::log(2.0)));
}

TEST(FloatLog1p, WithinOneUlpOverTheWholeRange) {
  float at;
  int64_t worst = worstUlps(
      61, -1.0f, kInf,
      {-1.0f, std::nextafter(-1.0f, 0.0f), 1e-8f, -1e-8f, 5.9604645e-8f,
       -2.9802322e-8f, 1e-45f, -1e-45f, 0.41421354f, -0.29289323f, 16777216.0f,
       3.4028235e38f},
      [](float x) { return ops::flog1p(x); },
      [](double x) { return std::log1p(x); }, at);
  EXPECT_LE(worst, 1) << "at x = " << at;
}

TEST(FloatLog1p, SpecialValues) {
  EXPECT_EQ(ops::flog1p(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(ops::flog1p(-0.0f)));
  EXPECT_EQ(ops::flog1p(-1.0f), -kInf);
  EXPECT_EQ(ops::flog1p(kInf), kInf);
  EXPECT_EQ(ops::flog1p(1e-30f), 1e-30f);
  EXPECT_EQ(ops::flog1p(-1e-30f), -1e-30f);
  EXPECT_TRUE(std::isnan(ops::flog1p(-1.5f)));
  EXPECT_TRUE(std::isnan(ops::flog1p(-kInf)));
  EXPECT_TRUE(std::isnan(ops::flog1p(kNaN)));
}

/// sigmoid 1 / (1 + exp(-x)) and silu x / (1 + exp(-x)) in f32 (MapKinds.def,
/// the CPU's sigmoidSpan), against the double formula rounded to float:
/// every 61st float of the whole line, both signs. Below x = -88.72 exp(-x)
/// overflows to inf and both flush (sigmoid to +0, silu to -0) where the
/// exact value is still a denormal (sigmoid, |error| < 2^-126) or a tiny
/// normal (silu, |error| < 2^-121): the ulp bound holds from -88.7 up, and
/// the flush region is checked by absolute error.
TEST(FloatSigmoidSilu, WithinTwoUlpOverTheWholeRange) {
  for (bool silu : {false, true}) {
    auto got = [&](float x) {
      return silu ? ops::Map<MapKind::Silu, float>::apply(x, 0, 0)
                  : ops::Map<MapKind::Sigmoid, float>::apply(x, 0, 0);
    };
    auto want = [&](double x) {
      return (silu ? x : 1.0) / (1.0 + std::exp(-x));
    };
    float at;
    int64_t worst = worstUlps(
        61, -88.7f, kInf,
        {-88.7f, -87.33654f, -87.3f, -86.0f, std::nextafter(-86.0f, 0.0f),
         88.0f, 17.0f, 16.6f, 1e-45f, -1e-45f, 1e-30f, -1e-30f, 3.4028235e38f},
        got, want, at);
    std::printf("%s f32: worst %lld ulp at x = %.9g (x >= -88.7)\n",
                silu ? "silu" : "sigmoid", static_cast<long long>(worst), at);
    EXPECT_LE(worst, 2) << (silu ? "silu" : "sigmoid") << " at x = " << at;
    // The flush region and beyond: 0 of the right sign, off by less than
    // the smallest normal float (sigmoid) or 2^-122 (silu).
    double worstAbs = 0;
    const float from = -88.8f;
    uint32_t bits;
    std::memcpy(&bits, &from, 4);
    int64_t flushed = 0;
    for (; bits < 0xff800000u; bits += 61) {
      float x;
      std::memcpy(&x, &bits, 4);
      float g = got(x);
      flushed += g == 0.0f && std::signbit(g) == silu;
      worstAbs = std::max(worstAbs, std::fabs(want(x) - g));
    }
    for (float x : {-88.8f, -90.0f, -103.97f, -104.0f, -1e30f, -kInf}) {
      float g = got(x);
      if (!(silu && x == -kInf)) { // silu(-inf) = -inf / inf: NaN
        EXPECT_TRUE(g == 0.0f && std::signbit(g) == silu) << x << " " << g;
      }
    }
    EXPECT_GT(flushed, 8000000);
    EXPECT_LT(worstAbs, silu ? 0x1p-121 : 0x1p-126);
  }
}

TEST(FloatSigmoidSilu, SpecialValues) {
  using Sig = ops::Map<MapKind::Sigmoid, float>;
  using Silu = ops::Map<MapKind::Silu, float>;
  EXPECT_EQ(Sig::apply(0.0f, 0, 0), 0.5f);
  EXPECT_EQ(Sig::apply(-0.0f, 0, 0), 0.5f);
  EXPECT_EQ(Sig::apply(kInf, 0, 0), 1.0f);
  EXPECT_EQ(Sig::apply(-kInf, 0, 0), 0.0f);
  EXPECT_EQ(Sig::apply(100.0f, 0, 0), 1.0f);
  EXPECT_EQ(Sig::apply(-100.0f, 0, 0), 0.0f);
  EXPECT_EQ(Sig::apply(3e38f, 0, 0), 1.0f);
  EXPECT_EQ(Sig::apply(-3e38f, 0, 0), 0.0f);
  EXPECT_TRUE(std::isnan(Sig::apply(kNaN, 0, 0)));
  EXPECT_EQ(Silu::apply(0.0f, 0, 0), 0.0f);
  EXPECT_TRUE(std::signbit(Silu::apply(-0.0f, 0, 0)));
  EXPECT_EQ(Silu::apply(kInf, 0, 0), kInf);
  EXPECT_EQ(Silu::apply(100.0f, 0, 0), 100.0f);
  EXPECT_EQ(Silu::apply(3e38f, 0, 0), 3e38f);
  EXPECT_EQ(Silu::apply(-100.0f, 0, 0), 0.0f);
  EXPECT_TRUE(std::signbit(Silu::apply(-100.0f, 0, 0)));
  EXPECT_TRUE(std::isnan(Silu::apply(kNaN, 0, 0)));
  EXPECT_TRUE(std::isnan(Silu::apply(-kInf, 0, 0))); // -inf / inf
}

TEST(FloatSinCos, WithinOneUlpOverTheWholeRange) {
  // Every 127th float of the whole line: the fast path up to 2^19 (the
  // reduction near multiples of pi/2 included) and libm beyond.
  for (bool isSin : {true, false}) {
    float at;
    int64_t worst = worstUlps(
        127, -kInf, kInf,
        {1.5707964f, 3.1415927f, 4.712389f, 6.2831855f, 1e-45f, 1e-30f,
         524288.0f, std::nextafter(524288.0f, 0.0f), 524288.06f, 1e30f, -1e30f,
         3.4028235e38f, 102940.4f, 205880.8f},
        [&](float x) { return isSin ? ops::fsin(x) : ops::fcos(x); },
        [&](double x) { return isSin ? std::sin(x) : std::cos(x); }, at);
    EXPECT_LE(worst, 1) << (isSin ? "sin" : "cos") << " at x = " << at;
  }
}

TEST(FloatSinCos, SpecialValues) {
  EXPECT_EQ(ops::fsin(0.0f), 0.0f);
  EXPECT_FALSE(std::signbit(ops::fsin(0.0f)));
  EXPECT_TRUE(std::signbit(ops::fsin(-0.0f)));
  EXPECT_EQ(ops::fcos(0.0f), 1.0f);
  EXPECT_EQ(ops::fcos(-0.0f), 1.0f);
  for (float x : {kInf, -kInf, kNaN, -kNaN}) {
    EXPECT_TRUE(std::isnan(ops::fsin(x))) << x;
    EXPECT_TRUE(std::isnan(ops::fcos(x))) << x;
  }
  // In range, the map's function is the fast one (the span loops rely on
  // it); beyond, libm's.
  for (float x : {1.0f, -3.0f, 524288.0f, -1000.5f})
    EXPECT_EQ(ops::fsin(x), ops::fsinFast(x)) << x;
  EXPECT_TRUE(ops::trigFastRange(524288.0f));
  EXPECT_FALSE(ops::trigFastRange(524288.06f));
  EXPECT_FALSE(ops::trigFastRange(kNaN));
  EXPECT_EQ(ops::fsin(1e30f), std::sin(1e30f));
}

/// The backend's map loop of `kind` over f32 values gives Map<K>'s bits,
/// element by element, for contiguous and strided operands, with values
/// that send some blocks of 256 down the slow path (huge, NaN, inf).
void expectMapLoopBits(MapKind kind) {
  CpuBackend be(Mesh({{"x", 1}}), 0);
  const int64_t n = 2000;
  Tensor x = be.empty(DType::F32, {n}), y = be.empty(DType::F32, {n});
  float *xs = x.ptr<float>();
  for (int64_t i = 0; i < n; ++i)
    xs[i] = static_cast<float>(i % 97) * 0.37f - 12.0f + 1e-3f * i;
  xs[10] = kNaN;
  xs[20] = -kInf;
  xs[30] = -0.0f;
  xs[40] = 0.0f;
  xs[700] = 1e30f;   // the third block of 256 takes the slow path
  xs[1500] = 1e-40f; // a subnormal
  xs[1501] = 3e38f;
  be.map(kind, planMap("i->i", {{n}}), x, nullptr, y);
  ops::dispatchMap(kind, [&]<MapKind K>() {
    for (int64_t i = 0; i < n; ++i) {
      float want = ops::Map<K, float>::apply(xs[i], 0, 0);
      float got = y.ptr<float>()[i];
      ASSERT_EQ(std::memcmp(&want, &got, 4), 0)
          << mapKindName(kind) << " x[" << i << "] = " << xs[i];
    }
  });
  // Strided (every other element, as a transposed view would be read).
  Tensor y2 = be.empty(DType::F32, {n / 2});
  MapPlan strided = planMap("i->i", {{n / 2}});
  strided.inStrides[0] = {2};
  be.mapKernel(kind, strided, DType::F32, x.data, nullptr, y2.data, 0.0);
  ops::dispatchMap(kind, [&]<MapKind K>() {
    for (int64_t i = 0; i < n / 2; ++i) {
      float want = ops::Map<K, float>::apply(xs[2 * i], 0, 0);
      float got = y2.ptr<float>()[i];
      ASSERT_EQ(std::memcmp(&want, &got, 4), 0)
          << mapKindName(kind) << " strided x[" << 2 * i << "]";
    }
  });
}

TEST(FloatMaps, MapLoopsGiveTheFunctionsBits) {
  for (MapKind k :
       {MapKind::Log, MapKind::Sin, MapKind::Cos, MapKind::Rsqrt, MapKind::Sqrt,
        MapKind::Sigmoid, MapKind::Silu, MapKind::Gelu, MapKind::Softplus})
    expectMapLoopBits(k);
}

TEST(FloatMaps, RsqrtIsOneOverTheCorrectlyRoundedSqrt) {
  // -fno-math-errno (CpuKernels.cpp) only lets the loop vectorize: the
  // result is still 1 / sqrt rounded twice, as the GPU computes it.
  for (float x : {2.0f, 3.0f, 1e-40f, 1e30f, 0.0f, -0.0f, kInf}) {
    float want = 1.0f / std::sqrt(x);
    float got = ops::Map<MapKind::Rsqrt, float>::apply(x, 0, 0);
    EXPECT_EQ(std::memcmp(&want, &got, 4), 0) << x;
  }
  EXPECT_TRUE(std::isnan(ops::Map<MapKind::Rsqrt, float>::apply(-1, 0, 0)));
}

TEST(FloatExp, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ops::fexp(0.0f), 1.0f);
  EXPECT_EQ(ops::fexp(-0.0f), 1.0f);
  EXPECT_EQ(ops::fexp(1.0f), static_cast<float>(std::exp(1.0)));
  EXPECT_EQ(ops::fexp(inf), inf);
  EXPECT_EQ(ops::fexp(-inf), 0.0f);
  EXPECT_EQ(ops::fexp(89.0f), inf);
  EXPECT_EQ(ops::fexp(88.72284f), inf);
  EXPECT_TRUE(std::isfinite(ops::fexp(88.72283f)));
  EXPECT_EQ(ops::fexp(-104.0f), 0.0f);
  EXPECT_EQ(ops::fexp(-1000.0f), 0.0f);
  EXPECT_GT(ops::fexp(-103.0f), 0.0f); // denormal, not flushed
  EXPECT_TRUE(std::isnan(ops::fexp(std::numeric_limits<float>::quiet_NaN())));
}

} // namespace

namespace {

TEST(CpuGemm, OpenblasCoreLevels) {
  using cpu::SimdLevel;
  EXPECT_EQ(cpu::openblasCoreLevel("Prescott"), SimdLevel::Sse3);
  EXPECT_EQ(cpu::openblasCoreLevel("Core2"), SimdLevel::Sse3);
  EXPECT_EQ(cpu::openblasCoreLevel("Sandybridge"), SimdLevel::Avx);
  EXPECT_EQ(cpu::openblasCoreLevel("Haswell"), SimdLevel::Avx2);
  EXPECT_EQ(cpu::openblasCoreLevel("Zen"), SimdLevel::Avx2);
  EXPECT_EQ(cpu::openblasCoreLevel("SkylakeX"), SimdLevel::Avx512);
  EXPECT_EQ(cpu::openblasCoreLevel("COOPERLAKE"), SimdLevel::Avx512);
  EXPECT_EQ(cpu::openblasCoreLevel("SapphireRapids"), SimdLevel::Avx512);
  EXPECT_EQ(cpu::openblasCoreLevel("armv8"), SimdLevel::Unknown);
  EXPECT_LT(SimdLevel::Sse3, SimdLevel::Avx512);
}

TEST(CpuGemm, NoCopyStallRule) {
  // The plans measured on a Zen 3 (docs/runtime.md, "AVX2 CPUs"): the rule
  // names the slow ones, in the program's m x n x k: B's rows ldb apart,
  // or a transposed A's rows lda apart.
  auto stalls = [](int64_t m, int64_t n, bool transA, int64_t lda, bool transB,
                   int64_t ldb) {
    return cpu::oneDnnNoCopyStalls(m, n, transA, lda, transB, ldb);
  };
  EXPECT_TRUE(stalls(256, 1024, false, 256, false, 1024)); // P1 b=4
  EXPECT_TRUE(stalls(512, 512, false, 128, false, 512));   // T2's FFN
  EXPECT_TRUE(stalls(128, 512, true, 128, false, 512));    // T2, tA
  EXPECT_TRUE(stalls(128, 2048, false, 1024, false, 2048));
  // op(A) transposed, its rows a multiple of 2 KiB apart: T1's decoder
  // gradient on 2 ranks (2048 x 256 x 1024), T2's `btd,btf->fd`.
  EXPECT_TRUE(stalls(2048, 256, true, 2048, false, 256));
  EXPECT_TRUE(stalls(1024, 256, true, 1024, false, 256));
  EXPECT_TRUE(stalls(512, 128, true, 512, false, 128));
  // oneDNN copies its operands (1/m + 1/n < 0.0038): 1024 x 1024, 512 x
  // 1024.
  EXPECT_FALSE(stalls(1024, 1024, false, 256, false, 1024));
  EXPECT_FALSE(stalls(512, 1024, false, 256, false, 1024));
  EXPECT_FALSE(stalls(1024, 1024, true, 1024, false, 1024));
  // Rows not a multiple of 2 KiB apart, or B transposed and A not: no
  // stall (A's rows not transposed may be 2 KiB apart: 1024 x 256 x 1024
  // ran at OpenBLAS's rate).
  EXPECT_FALSE(stalls(256, 256, false, 1024, false, 256));
  EXPECT_FALSE(stalls(256, 256, true, 256, false, 256));
  EXPECT_FALSE(stalls(256, 768, false, 256, false, 768));
  EXPECT_FALSE(stalls(512, 128, false, 512, true, 512));
  EXPECT_FALSE(stalls(1024, 256, false, 1024, false, 256));
  EXPECT_FALSE(stalls(0, 1024, false, 256, false, 1024));
  auto plan = [](int64_t m, int64_t n, int64_t k, bool transA, int64_t lda,
                 int64_t ldb) {
    GemmPlan p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.transA = transA;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = n;
    return p;
  };
  // On a CPU where oneDNN has its AVX-512 kernels, nothing leaves it.
  if (onednn::available() && onednn::isa().rfind("avx512", 0) == 0) {
    EXPECT_FALSE(
        cpu::f32GemmAvoidsOneDnn(plan(256, 1024, 256, false, 256, 1024)));
    EXPECT_FALSE(
        cpu::f32GemmAvoidsOneDnn(plan(2048, 256, 1024, true, 2048, 256)));
  }
  // Only plans the rule names leave it.
  EXPECT_FALSE(
      cpu::f32GemmAvoidsOneDnn(plan(1024, 1024, 256, false, 256, 1024)));
}

TEST(CpuGemm, BannerNamesTheLibraryAndAKernelBelowTheCpu) {
  std::string b = cpu::gemmBanner();
  EXPECT_EQ(b.find('\n'), std::string::npos) << b;
  EXPECT_NE(b.find(cpu::openblasCoreName()), std::string::npos) << b;
  EXPECT_NE(b.find(cpu::gemmLibraryName(cpu::f32GemmLibrary())),
            std::string::npos)
      << b;
  // The OpenBLAS core's level against cpuid's: said when below.
  cpu::SimdLevel core = cpu::openblasCoreLevel(cpu::openblasCoreName());
  bool below = core != cpu::SimdLevel::Unknown && core < cpu::cpuSimdLevel();
  // Unless neither f32 nor f64 GEMMs run on it (oneDNN and the blocked
  // f64 kernel).
  bool runsBelow =
      below &&
      !(cpu::f32GemmLibrary() == cpu::GemmLibrary::OneDnn && cpu::f64Blocked());
  EXPECT_EQ(b.find("BELOW") != std::string::npos, runsBelow) << b;
  EXPECT_EQ(b.find("blocked AVX-512") != std::string::npos, cpu::f64Blocked())
      << b;
  if (onednn::available() && !std::getenv("WEFT_CPU_GEMM")) {
    EXPECT_EQ(cpu::f32GemmLibrary(), cpu::GemmLibrary::OneDnn);
  }
  // The element math's FMA setting (WEFT_RT_FMA) is named too.
  EXPECT_NE(b.find(WEFT_RT_FMA ? "element math with FMA"
                               : "element math without FMA"),
            std::string::npos)
      << b;
  // Both GEMM kinds are named, whichever library runs the f32 ones.
  EXPECT_NE(b.find("f32 on "), std::string::npos) << b;
  EXPECT_NE(b.find("f64 on "), std::string::npos) << b;
  if (cpu::f32GemmLibrary() == cpu::GemmLibrary::OpenBlas) {
    EXPECT_NE(b.find("f32 on OpenBLAS"), std::string::npos) << b;
  }
}

TEST(CpuGemm, ProgramLayoutsRunOnOneDnnKernels) {
  if (!onednn::available() || cpu::f32GemmLibrary() != cpu::GemmLibrary::OneDnn)
    GTEST_SKIP() << "f32 GEMMs on OpenBLAS in this build or environment";
  // The layouts of P1, P6, P9 and T2 (forward and the transposed operands
  // of their backward passes): none may fall to oneDNN's reference kernel
  // or to OpenBLAS.
  struct Case {
    const char *spec;
    Shape a, b;
  };
  const Case cases[] = {
      {"btd,df->btf", {8, 64, 128}, {128, 512}},
      {"btf,btd->df", {8, 64, 512}, {8, 64, 128}},
      {"btf,df->btd", {8, 64, 512}, {128, 512}},
      {"btd,dhk->bhtk", {8, 64, 128}, {128, 4, 32}},
      {"bhtk,bhsk->bhts", {8, 4, 64, 32}, {8, 4, 64, 32}},
      {"bhts,bhsk->bhtk", {8, 4, 64, 64}, {8, 4, 64, 32}},
      {"bhtk,hkd->btd", {8, 4, 64, 32}, {4, 32, 128}},
      {"bd,df->bf", {256, 1024}, {1024, 256}},
      {"bf,bd->df", {256, 256}, {256, 1024}},
  };
  for (const Case &c : cases) {
    EinsumPlan p = planEinsum(c.spec, c.a, c.b, DType::F32);
    std::string impl = CpuBackend::gemmImpl(p.gemm);
    if (cpu::smallGemmTakes(p.gemm)) {
      // Attention's batches run on weft's small-matrix kernel here, for
      // the CPU's instruction set.
      EXPECT_EQ(impl,
                std::string("weft small-matrix ") +
                    (__builtin_cpu_supports("avx512f") ? "avx512" : "avx2"))
          << c.spec;
      std::string why;
      auto mm = onednn::Matmul::create(p.gemm, why);
      ASSERT_TRUE(mm) << c.spec << ": " << why;
      impl = "onednn " + mm->impl();
    } else if (cpu::f32GemmAvoidsOneDnn(p.gemm)) {
      // A plan that stalls oneDNN's AVX2 no-copy kernel runs on OpenBLAS
      // (at the CPU's level); oneDNN still has a kernel for it.
      EXPECT_EQ(impl.rfind("openblas (", 0), 0u) << c.spec << ": " << impl;
      std::string why;
      auto mm = onednn::Matmul::create(p.gemm, why);
      ASSERT_TRUE(mm) << c.spec << ": " << why;
      impl = "onednn " + mm->impl();
    }
    EXPECT_EQ(impl.rfind("onednn ", 0), 0u) << c.spec << ": " << impl;
    EXPECT_EQ(impl.find("ref"), std::string::npos) << c.spec << ": " << impl;
  }
}

/// Whether oneDNN has only its reference kernel for epilogue `e` on this
/// CPU: its GEMM without AVX-512 (matmul "gemm:jit", oneDNN 2.6) takes a
/// sum post-op only first, so an activation or a scale and then the sum
/// (a residual) is refused there (docs/runtime.md, "AVX2 CPUs").
bool oneDnnRefusesEpilogue(const GemmEpilogue &e) {
  const std::string isa = onednn::isa();
  const bool avx512 = isa.rfind("avx512", 0) == 0 || isa.rfind("amx", 0) == 0;
  return !avx512 && e.accumulate &&
         (e.act != GemmEpilogue::Act::None || e.scale != 1.0f);
}

/// The operands the GEMM agreement tests use: small integers over 8.
void fillGemmOperands(std::vector<float> &a, std::vector<float> &b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>((i * 37) % 19) / 8.0f - 1.0f;
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>((i * 53) % 23) / 8.0f - 1.2f;
}

/// C = alpha op(A) op(B) + beta C for every matrix of plan `g`, on cblas
/// matrix by matrix: the reference of the oneDNN tests.
void cblasPlan(const GemmPlan &g, const float *A, const float *B, float *C,
               float alpha, float beta) {
  for (int64_t o = 0; o < g.outerBatch; ++o)
    for (int64_t i = 0; i < g.batch; ++i)
      cblas_sgemm(CblasRowMajor, g.transA ? CblasTrans : CblasNoTrans,
                  g.transB ? CblasTrans : CblasNoTrans, g.m, g.n, g.k, alpha,
                  A + o * g.outerStrideA + i * g.strideA, g.lda,
                  B + o * g.outerStrideB + i * g.strideB, g.ldb, beta,
                  C + o * g.outerStrideC + i * g.strideC, g.ldc);
}

TEST(CpuGemm, OneDnnAndOpenblasAgreeOnEveryPlanForm) {
  if (!onednn::available())
    GTEST_SKIP() << "no oneDNN in this build";
  // Outer batch, strided inner batch, a broadcast operand (batch stride
  // 0), transposes and a swap: oneDNN's result against OpenBLAS's, within
  // float rounding of a k-term dot product (the einsum tests check both
  // against a naive loop; this checks the primitive's strides directly).
  const char *specs[][3] = {
      {"bthk,bshk->bhts", "2x16x3x8", "2x16x3x8"},
      {"bhts,bshk->bthk", "2x3x16x16", "2x16x3x8"},
      {"ik,bkj->bij", "5x7", "3x7x6"},
      {"ki,kj->ji", "9x5", "9x6"},
      {"btd,df->btf", "2x8x12", "12x20"},
  };
  auto parse = [](const std::string &t) {
    Shape s;
    std::size_t pos = 0;
    while (pos <= t.size()) {
      std::size_t x = t.find('x', pos);
      s.push_back(std::stoll(t.substr(pos, x - pos)));
      if (x == std::string::npos)
        break;
      pos = x + 1;
    }
    return s;
  };
  int compared = 0;
  for (auto &sp : specs) {
    EinsumPlan p = planEinsum(sp[0], parse(sp[1]), parse(sp[2]), DType::F32);
    if (p.permuteA || p.permuteB || p.permuteOut || p.reduceA || p.reduceB)
      continue; // only the GEMM's own layout is of interest here
    ++compared;
    const GemmPlan &g = p.gemm;
    std::string why;
    auto mm = onednn::Matmul::create(g, why);
    ASSERT_TRUE(mm) << sp[0] << ": " << why;
    int64_t na = numElements(p.aShape), nb = numElements(p.bShape),
            nc = numElements(p.outShape);
    std::vector<float> a(na), b(nb), c1(nc, -7.0f), c2(nc, -7.0f);
    fillGemmOperands(a, b);
    const float *A = a.data(), *B = b.data();
    if (p.swapOperands)
      std::swap(A, B);
    mm->run(A, B, c1.data());
    // The same plan on cblas, matrix by matrix.
    cblasPlan(g, A, B, c2.data(), 1.0f, 0.0f);
    for (int64_t i = 0; i < nc; ++i)
      ASSERT_NEAR(c1[i], c2[i], 1e-4f * g.k) << sp[0] << " element " << i;
  }
  EXPECT_GE(compared, 3);
}

TEST(CpuGemm, PackBatchesSetting) {
  {
    ScopedEnv e("WEFT_CPU_PACK_BATCHES", "always");
    EXPECT_EQ(cpu::packL2Bytes(), 0);
  }
  {
    ScopedEnv e("WEFT_CPU_PACK_BATCHES", "never");
    EXPECT_EQ(cpu::packL2Bytes(), std::numeric_limits<int64_t>::max());
  }
  {
    ScopedEnv e("WEFT_CPU_PACK_BATCHES", "auto");
    EXPECT_GT(cpu::packL2Bytes(), 0);
  }
  {
    ScopedEnv e("WEFT_CPU_PACK_BATCHES", "sometimes");
    try {
      cpu::packL2Bytes();
      ADD_FAILURE() << "no error for WEFT_CPU_PACK_BATCHES=sometimes";
    } catch (const Error &err) {
      EXPECT_NE(std::string(err.what()).find("auto, always or never"),
                std::string::npos)
          << err.what();
    }
  }
}

TEST(CpuGemm, BatchPackPlans) {
  // Attention's scores at P9's b=16 layout: both operands interleaved
  // (rows 256 apart, 32 long), 8 heads x 16 batches.
  EinsumPlan scores = planEinsum("bthk,bshk->bhts", {16, 64, 8, 32},
                                 {16, 64, 8, 32}, DType::F32);
  const int64_t l2 = int64_t(1) << 20;
  std::optional<cpu::BatchPackPlan> pk = cpu::planBatchPack(scores.gemm, l2);
  ASSERT_TRUE(pk);
  EXPECT_TRUE(pk->a.pack);
  EXPECT_TRUE(pk->b.pack);
  EXPECT_EQ(pk->a.rows, 64);
  EXPECT_EQ(pk->a.cols, 32);
  EXPECT_EQ(pk->chunkInner, 8);
  EXPECT_EQ(pk->chunkOuter, 2);
  EXPECT_EQ(pk->chunk.lda, 32);
  EXPECT_EQ(pk->chunk.strideA, 64 * 32);
  EXPECT_EQ(pk->chunk.outerStrideA, 8 * 64 * 32);
  EXPECT_EQ(pk->chunk.ldc, scores.gemm.ldc);
  EXPECT_EQ(pk->chunk.outerStrideC, scores.gemm.outerStrideC);
  // The probabilities times v: only v is interleaved.
  EinsumPlan values = planEinsum("bhts,bshk->bthk", {16, 8, 64, 64},
                                 {16, 64, 8, 32}, DType::F32);
  pk = cpu::planBatchPack(values.gemm, l2);
  ASSERT_TRUE(pk);
  EXPECT_FALSE(pk->a.pack);
  EXPECT_TRUE(pk->b.pack);
  // Heads already contiguous (T2's bhtk), too few matrices: nothing to
  // pack.
  EXPECT_FALSE(cpu::planBatchPack(planEinsum("bhtk,bhsk->bhts", {16, 8, 64, 32},
                                             {16, 8, 64, 32}, DType::F32)
                                      .gemm,
                                  l2));
  EXPECT_FALSE(cpu::planBatchPack(
      planEinsum("bthk,bshk->bhts", {2, 64, 8, 32}, {2, 64, 8, 32}, DType::F32)
          .gemm,
      l2));
  // P9 at b=4: 1 MiB of operands and scores fits a 1 MiB L2, not a 512 KiB
  // one.
  EinsumPlan b4 =
      planEinsum("bthk,bshk->bhts", {4, 64, 8, 32}, {4, 64, 8, 32}, DType::F32);
  EXPECT_FALSE(cpu::planBatchPack(b4.gemm, l2));
  EXPECT_TRUE(cpu::planBatchPack(b4.gemm, l2 / 2));
  // 5 x 8 matrices: chunks of one outer index (5 has no divisor <= 2).
  pk = cpu::planBatchPack(
      planEinsum("bthk,bshk->bhts", {5, 16, 8, 8}, {5, 16, 8, 8}, DType::F32)
          .gemm,
      0);
  ASSERT_TRUE(pk);
  EXPECT_EQ(pk->chunkOuter, 1);
  EXPECT_EQ(pk->chunkInner, 8);
}

TEST(CpuGemm, PackedBatchesAgreeWithOpenblas) {
  if (!onednn::available())
    GTEST_SKIP() << "no oneDNN in this build";
  // Plans whose interleaved operands oneDNN runs packed (BatchPack.h):
  // both operands, one (the other contiguous),
  // a transposed one, inner batches of 48 and 16 (chunks of 16) and an outer
  // batch of 5 (chunks of one); each plain, and with a scaled sum into C.
  struct Case {
    const char *spec;
    Shape a, b;
  };
  const Case cases[] = {
      {"bthk,bshk->bhts", {4, 16, 8, 8}, {4, 16, 8, 8}},
      {"bhts,bshk->bthk", {4, 8, 16, 16}, {4, 16, 8, 8}},
      {"bthk,bths->bhks", {4, 16, 8, 8}, {4, 16, 8, 16}},
      {"thk,shk->hts", {16, 48, 8}, {16, 48, 8}},
      {"bthk,bshk->bhts", {2, 16, 16, 8}, {2, 16, 16, 8}},
      {"bthk,bshk->bhts", {5, 16, 8, 8}, {5, 16, 8, 8}},
  };
  // These fit in any L2: packed only because the test says always.
  ScopedEnv always("WEFT_CPU_PACK_BATCHES", "always");
  int packed = 0, refused = 0;
  for (const Case &c : cases)
    for (bool sum : {false, true}) {
      SCOPED_TRACE(std::string(c.spec) + (sum ? " with a scaled sum" : ""));
      EinsumPlan p = planEinsum(c.spec, c.a, c.b, DType::F32);
      ASSERT_FALSE(p.permuteA || p.permuteB || p.permuteOut || p.reduceA ||
                   p.reduceB);
      const GemmPlan &g = p.gemm;
      ASSERT_TRUE(cpu::planBatchPack(g, 0));
      GemmEpilogue epi;
      epi.accumulate = sum;
      epi.scale = sum ? 0.5f : 1.0f;
      std::string why;
      auto mm = onednn::Matmul::create(g, epi, why);
      if (oneDnnRefusesEpilogue(epi)) {
        EXPECT_FALSE(mm) << mm->impl();
        ++refused;
        continue;
      }
      ASSERT_TRUE(mm) << why;
      packed += mm->impl().rfind("packed ", 0) == 0;
      int64_t na = numElements(p.aShape), nb = numElements(p.bShape),
              nc = numElements(p.outShape);
      std::vector<float> a(na), b(nb), c1(nc), c2(nc);
      fillGemmOperands(a, b);
      for (int64_t i = 0; i < nc; ++i)
        c1[i] = c2[i] = static_cast<float>(i % 7) - 3.0f;
      const float *A = a.data(), *B = b.data();
      if (p.swapOperands)
        std::swap(A, B);
      mm->run(A, B, c1.data());
      cblasPlan(g, A, B, c2.data(), epi.scale, sum ? 1.0f : 0.0f);
      for (int64_t i = 0; i < nc; ++i)
        ASSERT_NEAR(c1[i], c2[i], 1e-4f * g.k) << "element " << i;
    }
  // Every case runs packed unless oneDNN refused a chunk's layout.
  EXPECT_EQ(packed + refused, 12);
  EXPECT_GE(packed, 6);
}

} // namespace

namespace {

/// gelu (tanh form), silu, sigmoid, tanh, relu in double: the reference of
/// the epilogue test.
double actRef(GemmEpilogue::Act a, double x) {
  switch (a) {
  case GemmEpilogue::Act::Relu:
    return x > 0 ? x : 0;
  case GemmEpilogue::Act::Gelu:
    return 0.5 * x *
           (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  case GemmEpilogue::Act::Silu:
    return x / (1 + std::exp(-x));
  case GemmEpilogue::Act::Sigmoid:
    return 1 / (1 + std::exp(-x));
  case GemmEpilogue::Act::Tanh:
    return std::tanh(x);
  case GemmEpilogue::Act::None:
    break;
  }
  return x;
}

TEST(CpuGemm, EpilogueBiasActivationAndSum) {
  if (!onednn::available())
    GTEST_SKIP() << "no oneDNN in this build";
  // A batched plan with an outer batch (P6's scores layout, small) and a
  // plain one; every activation, with and without the bias and the sum,
  // against a double loop.
  CpuBackend be(Mesh({{"x", 1}}), 0);
  const char *specs[][3] = {{"btd,df->btf", "2x5x6", "6x7"},
                            {"bthk,bshk->bhts", "2x4x3x5", "2x4x3x5"}};
  auto parse = [](const std::string &t) {
    Shape s;
    std::size_t pos = 0;
    for (;;) {
      std::size_t x = t.find('x', pos);
      s.push_back(std::stoll(t.substr(pos, x - pos)));
      if (x == std::string::npos)
        return s;
      pos = x + 1;
    }
  };
  using E = GemmEpilogue;
  int checked = 0;
  for (auto &sp : specs) {
    EinsumPlan p = planEinsum(sp[0], parse(sp[1]), parse(sp[2]), DType::F32);
    ASSERT_FALSE(p.permuteA || p.permuteB || p.permuteOut || p.swapOperands)
        << sp[0];
    const GemmPlan &g = p.gemm;
    int64_t na = numElements(p.aShape), nb = numElements(p.bShape),
            nc = numElements(p.outShape);
    std::vector<float> a(na), b(nb), bias(std::max(g.m, g.n));
    for (int64_t i = 0; i < na; ++i)
      a[i] = static_cast<float>((i * 37) % 19) / 10.0f - 0.9f;
    for (int64_t i = 0; i < nb; ++i)
      b[i] = static_cast<float>((i * 53) % 23) / 12.0f - 0.9f;
    for (std::size_t i = 0; i < bias.size(); ++i)
      bias[i] = 0.25f * static_cast<float>(i) - 0.8f;
    for (E::Act act : {E::Act::None, E::Act::Relu, E::Act::Gelu, E::Act::Silu,
                       E::Act::Sigmoid, E::Act::Tanh})
      for (E::Bias bk : {E::Bias::None, E::Bias::PerColumn})
        for (bool acc : {false, true}) {
          E epi{bk, act, acc};
          std::vector<float> c(nc);
          for (int64_t i = 0; i < nc; ++i)
            c[i] = static_cast<float>(i % 7) - 3.0f;
          std::vector<float> before = c;
          if (oneDnnRefusesEpilogue(epi)) {
            EXPECT_THROW(be.gemmWithEpilogue(
                             g, epi, a.data(), b.data(), c.data(),
                             bk == E::Bias::None ? nullptr : bias.data()),
                         Error);
            continue;
          }
          be.gemmWithEpilogue(g, epi, a.data(), b.data(), c.data(),
                              bk == E::Bias::None ? nullptr : bias.data());
          // Reference: every (outer, batch, i, j) of the plan.
          for (int64_t o = 0; o < g.outerBatch; ++o)
            for (int64_t t = 0; t < g.batch; ++t)
              for (int64_t i = 0; i < g.m; ++i)
                for (int64_t j = 0; j < g.n; ++j) {
                  double s = 0;
                  for (int64_t k = 0; k < g.k; ++k) {
                    int64_t ia = o * g.outerStrideA + t * g.strideA +
                                 (g.transA ? k * g.lda + i : i * g.lda + k);
                    int64_t ib = o * g.outerStrideB + t * g.strideB +
                                 (g.transB ? j * g.ldb + k : k * g.ldb + j);
                    s += static_cast<double>(a[ia]) * b[ib];
                  }
                  if (bk == E::Bias::PerColumn)
                    s += bias[j];
                  s = actRef(act, s);
                  int64_t ic =
                      o * g.outerStrideC + t * g.strideC + i * g.ldc + j;
                  if (acc)
                    s += before[ic];
                  ASSERT_NEAR(c[ic], s, 1e-4 * (1 + std::fabs(s)))
                      << sp[0] << " act " << static_cast<int>(act) << " bias "
                      << static_cast<int>(bk) << " acc " << acc << " at " << ic;
                  ++checked;
                }
        }
  }
  EXPECT_GT(checked, 1000);
  // A bias the epilogue asks for must be given.
  EinsumPlan p = planEinsum("ik,kj->ij", {2, 3}, {3, 4}, DType::F32);
  std::vector<float> x(12, 1.0f), y(12);
  EXPECT_THROW(be.gemmWithEpilogue(p.gemm, E{E::Bias::PerColumn}, x.data(),
                                   x.data(), y.data()),
               Error);
}

} // namespace

//===- CpuTests.cpp - Host buffer pool and the float exp ------------------===//
//
// The CPU backend's caching allocator (BufferPool) and the vectorizable float
// exp of ElementOps.h, checked against the correctly rounded double exp.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/BufferPool.h"
#include "weft/rt/ElementOps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

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

TEST(CpuBackend, PoisonFillsNewBuffersWithNaN) {
  const char *old = std::getenv("WEFT_RT_POISON");
  std::string saved = old ? old : "";
  setenv("WEFT_RT_POISON", "1", 1);
  {
    CpuBackend be(Mesh({{"x", 1}}), 0);
    Tensor a = be.empty(DType::F32, {3});
    std::memset(a.data, 0, a.bytes());
    a = Tensor();
    Tensor b = be.empty(DType::F32, {3}); // the same buffer, poisoned again
    for (int i = 0; i < 3; ++i)
      EXPECT_TRUE(std::isnan(b.ptr<float>()[i]));
    EXPECT_EQ(be.zeros(DType::F32, {3}).ptr<float>()[2], 0.0f);
  }
  if (old)
    setenv("WEFT_RT_POISON", saved.c_str(), 1);
  else
    unsetenv("WEFT_RT_POISON");
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
  for (float x : {0.625f, std::nextafter(0.625f, 0.0f), -0.625f, 9.0f,
                  8.9999f, 1e-30f, -1e-30f, 1e-45f})
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

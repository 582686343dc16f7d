//===- DoubleMathTests.cpp - f64 exp, log and tanh (DoubleMath.h) ---------===//
//
// The branch-free f64 exp, log and tanh the CPU's map loops vectorize,
// against the long double functions rounded to double (a reference more
// precise than the result), over the whole range; their special values;
// and the backend's f64 map loops giving their bits element for element.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/ElementOps.h"
#include "weft/rt/cpu/CpuBackend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

using namespace weft::rt;

namespace {

/// Position of a double on the line of ordered bit patterns (-0 and +0
/// are both 0).
int64_t position(double d) {
  int64_t i;
  std::memcpy(&i, &d, 8);
  return i < 0 ? -(i & 0x7fffffffffffffffll) : i;
}

/// The worst ulp distance of got(x) from want(x) (long double, rounded to
/// double) over `samples` random bit patterns in [lo, hi] (uniform over
/// their ordered positions), as many values
/// uniform in [lo, hi], and `extra`; a NaN must be a NaN in both.
template <typename Got, typename Want>
int64_t worstUlps(int samples, double lo, double hi,
                  std::initializer_list<double> extra, Got got, Want want,
                  double &where) {
  std::mt19937_64 rng(32);
  std::uniform_real_distribution<double> uniform(lo, hi);
  int64_t worst = 0;
  where = 0;
  auto one = [&](double x) {
    double w = static_cast<double>(want(static_cast<long double>(x)));
    double g = got(x);
    int64_t u = (std::isnan(w) || std::isnan(g))
                    ? (std::isnan(w) && std::isnan(g) ? 0 : 1ll << 40)
                    : std::llabs(position(g) - position(w));
    if (u > worst) {
      worst = u;
      where = x;
    }
  };
  // Bit patterns uniform over the ordered positions of [lo, hi] (every
  // binade equally likely).
  std::uniform_int_distribution<int64_t> pick(position(lo), position(hi));
  for (int i = 0; i < samples; ++i) {
    int64_t q = pick(rng);
    uint64_t bits = q >= 0 ? static_cast<uint64_t>(q)
                           : (static_cast<uint64_t>(-q) | (1ull << 63));
    double x;
    std::memcpy(&x, &bits, 8);
    one(x);
  }
  for (int i = 0; i < samples; ++i)
    one(uniform(rng));
  for (double x : extra)
    one(x);
  return worst;
}

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const int kSamples = 1000000;

TEST(DoubleExp, WithinOneUlpOverTheWholeRange) {
  double at;
  int64_t worst = worstUlps(
      kSamples, -746.0, 710.0,
      {709.782712893384, 709.78, -708.3964185322641, -708.4, -745.13321910194,
       -744.44007192138, 1e-300, -1e-300, 0.34657359027997264,
       -0.34657359027997264},
      [](double x) { return ops::fexp(x); },
      [](long double x) { return std::exp(x); }, at);
  EXPECT_LE(worst, 1) << "at x = " << at;
}

TEST(DoubleExp, SpecialValues) {
  EXPECT_EQ(ops::fexp(0.0), 1.0);
  EXPECT_EQ(ops::fexp(-0.0), 1.0);
  EXPECT_EQ(ops::fexp(kInf), kInf);
  EXPECT_EQ(ops::fexp(-kInf), 0.0);
  EXPECT_EQ(ops::fexp(710.0), kInf);
  EXPECT_EQ(ops::fexp(-746.0), 0.0);
  EXPECT_EQ(ops::fexp(-745.0), std::exp(-745.0)); // the smallest subnormal
  EXPECT_TRUE(std::isnan(ops::fexp(kNaN)));
  EXPECT_TRUE(std::isnan(ops::fexp(-kNaN)));
}

TEST(DoubleLog, WithinOneUlpOverTheWholeRange) {
  double at;
  int64_t worst = worstUlps(
      kSamples, 0.0, std::numeric_limits<double>::max(),
      {1.0, std::nextafter(1.0, 0.0), std::nextafter(1.0, 2.0),
       0.7071067811865476, 0.7071067811865475, 1.4142135623730951,
       4.9406564584124654e-324, 2.2250738585072014e-308,
       2.2250738585072009e-308, std::numeric_limits<double>::max()},
      [](double x) { return ops::flog(x); },
      [](long double x) { return std::log(x); }, at);
  EXPECT_LE(worst, 1) << "at x = " << at;
  // Near 1, where log is smallest relative to its argument's spacing.
  worst = worstUlps(
      kSamples, 0.5, 2.0, {}, [](double x) { return ops::flog(x); },
      [](long double x) { return std::log(x); }, at);
  EXPECT_LE(worst, 1) << "at x = " << at;
}

TEST(DoubleLog, SpecialValues) {
  EXPECT_EQ(ops::flog(0.0), -kInf);
  EXPECT_EQ(ops::flog(-0.0), -kInf);
  EXPECT_EQ(ops::flog(kInf), kInf);
  EXPECT_EQ(ops::flog(1.0), 0.0);
  EXPECT_FALSE(std::signbit(ops::flog(1.0)));
  EXPECT_TRUE(std::isnan(ops::flog(-kInf)));
  EXPECT_TRUE(std::isnan(ops::flog(-1.0)));
  EXPECT_TRUE(std::isnan(ops::flog(-4.9406564584124654e-324)));
  EXPECT_TRUE(std::isnan(ops::flog(kNaN)));
  EXPECT_TRUE(std::isnan(ops::flog(-kNaN)));
  EXPECT_EQ(ops::flog(4.9406564584124654e-324),
            static_cast<double>(-1074 * std::log(2.0L)));
}

TEST(DoubleTanh, WithinOneUlpOverTheWholeRange) {
  double at;
  int64_t worst = worstUlps(
      kSamples, -30.0, 30.0,
      {0.625, std::nextafter(0.625, 0.0), -0.625, 19.0625, 20.0, 1e-300,
       -1e-300, 4.9406564584124654e-324},
      [](double x) { return ops::ftanh(x); },
      [](long double x) { return std::tanh(x); }, at);
  EXPECT_LE(worst, 1) << "at x = " << at;
  worst = worstUlps(
      kSamples, -1.0, 1.0, {}, [](double x) { return ops::ftanh(x); },
      [](long double x) { return std::tanh(x); }, at);
  EXPECT_LE(worst, 1) << "at x = " << at;
}

TEST(DoubleTanh, SpecialValues) {
  EXPECT_EQ(ops::ftanh(0.0), 0.0);
  EXPECT_TRUE(std::signbit(ops::ftanh(-0.0)));
  EXPECT_EQ(ops::ftanh(kInf), 1.0);
  EXPECT_EQ(ops::ftanh(-kInf), -1.0);
  EXPECT_EQ(ops::ftanh(1e300), 1.0);
  EXPECT_EQ(ops::ftanh(-100.0), -1.0);
  EXPECT_TRUE(std::isnan(ops::ftanh(kNaN)));
  EXPECT_TRUE(std::isnan(ops::ftanh(-kNaN)));
}

/// The backend's f64 exp, log, tanh and gelu loops (vectorized per ISA,
/// CpuKernels.cpp) give the scalar functions' bits, special values among
/// ordinary ones included.
TEST(DoubleMath, MapLoopsGiveTheScalarBits) {
  CpuBackend be(Mesh({{"x", 1}}), 0);
  const int64_t n = 1000;
  Tensor x = be.empty(DType::F64, {n}), y = be.empty(DType::F64, {n});
  double *px = x.ptr<double>();
  for (int64_t i = 0; i < n; ++i)
    px[i] = static_cast<double>(i % 97) * 0.37 - 12.0;
  px[10] = kNaN;
  px[20] = -kInf;
  px[30] = -0.0;
  px[40] = kInf;
  px[50] = 4.9406564584124654e-324;
  px[60] = -745.0;
  px[70] = 709.7;
  for (MapKind k : {MapKind::Exp, MapKind::Log, MapKind::Tanh, MapKind::Gelu}) {
    be.map(k, planMap("i->i", {{n}}), x, nullptr, y);
    for (int64_t i = 0; i < n; ++i) {
      double want = ops::dispatchMap(k, [&]<MapKind K>() {
        return ops::Map<K, double>::apply(px[i], 0, 0);
      });
      double got = y.ptr<double>()[i];
      ASSERT_EQ(std::memcmp(&want, &got, 8), 0)
          << mapKindName(k) << " x[" << i << "] = " << px[i];
    }
  }
}

} // namespace

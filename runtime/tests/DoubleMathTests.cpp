//===- DoubleMathTests.cpp - f64 exp, log, log1p, tanh, sin, cos ---------===//
//
// The branch-free f64 exp, log, log1p, tanh, sin and cos the CPU's map loops
// vectorize (and sigmoid and silu built on exp),
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
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

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

TEST(DoubleSinCos, WithinOneUlpInTheFastRange) {
  // Random bit patterns and uniform values over [-2^20, 2^20] (every
  // binade, subnormals included), uniform over [-10, 10], and the doubles
  // nearest multiples of pi/2 with their neighbours (where the reduction
  // cancels), against sinl and cosl rounded to double.
  const long double pio2 = 1.57079632679489661923132169163975144L;
  std::vector<double> nearMultiples;
  for (int64_t k = 1; k <= 667000; k += 37) {
    double x = static_cast<double>(static_cast<long double>(k) * pio2);
    for (double y : {x, std::nextafter(x, 0.0), std::nextafter(x, 1e9)}) {
      nearMultiples.push_back(y);
      nearMultiples.push_back(-y);
    }
  }
  for (bool sine : {true, false}) {
    SCOPED_TRACE(sine ? "sin" : "cos");
    auto got = [&](double x) {
      return sine ? ops::dsinFast(x) : ops::dcosFast(x);
    };
    auto want = [&](long double x) { return sine ? std::sin(x) : std::cos(x); };
    double at;
    int64_t worst =
        worstUlps(kSamples, -ops::kDTrigFastLimit, ops::kDTrigFastLimit,
                  {0.0, -0.0, 4.9406564584124654e-324, 1e-300, 0.3, 0.78125,
                   ops::kDTrigFastLimit},
                  got, want, at);
    EXPECT_LE(worst, 1) << "at x = " << at;
    worst = worstUlps(kSamples, -10.0, 10.0, {}, got, want, at);
    EXPECT_LE(worst, 1) << "at x = " << at;
    worst = 0;
    for (double x : nearMultiples) {
      double w = static_cast<double>(want(static_cast<long double>(x)));
      int64_t u = std::llabs(position(got(x)) - position(w));
      if (u > worst) {
        worst = u;
        at = x;
      }
    }
    EXPECT_LE(worst, 1) << "near a multiple of pi/2, at x = " << at;
  }
}

TEST(DoubleSinCos, SpecialValuesAndLibmBeyondTheRange) {
  EXPECT_TRUE(std::signbit(ops::fsin(-0.0)));
  EXPECT_EQ(ops::fsin(0.0), 0.0);
  EXPECT_EQ(ops::fcos(-0.0), 1.0);
  EXPECT_TRUE(std::isnan(ops::fsin(kNaN)));
  EXPECT_TRUE(std::isnan(ops::fcos(kInf)));
  EXPECT_TRUE(std::isnan(ops::fsin(-kInf)));
  EXPECT_TRUE(ops::dtrigFastRange(ops::kDTrigFastLimit));
  EXPECT_FALSE(ops::dtrigFastRange(std::nextafter(ops::kDTrigFastLimit, kInf)));
  EXPECT_FALSE(ops::dtrigFastRange(kNaN));
  for (double x : {1e300, -3e7, std::nextafter(ops::kDTrigFastLimit, kInf)}) {
    EXPECT_EQ(ops::fsin(x), std::sin(x)) << x;
    EXPECT_EQ(ops::fcos(x), std::cos(x)) << x;
  }
}

/// dexpNormal, the form the CPU's f64 exp, sigmoid and silu loops run on
/// blocks in dexpNormalRange, gives dexp's bits there; the range ends at
/// |x| = 708.
TEST(DoubleExp, NormalFormIsDexpInItsRange) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-708.0, 708.0);
  std::uniform_int_distribution<uint64_t> pattern(0, 0x4086200000000000ull);
  for (int i = 0; i < kSamples; ++i) {
    double x = uniform(rng);
    uint64_t b = pattern(rng) | (i % 2 ? 1ull << 63 : 0);
    double y;
    std::memcpy(&y, &b, 8);
    for (double v : {x, y}) {
      ASSERT_TRUE(ops::dexpNormalRange(v)) << v;
      double a = ops::dexp(v), n = ops::dexpNormal(v);
      ASSERT_EQ(std::memcmp(&a, &n, 8), 0) << "x = " << v;
    }
  }
  for (double x : {708.0, -708.0, 0.0, -0.0})
    EXPECT_TRUE(ops::dexpNormalRange(x)) << x;
  for (double x :
       {std::nextafter(708.0, 709.0), -708.5, 709.0, kInf, -kInf, kNaN, -kNaN})
    EXPECT_FALSE(ops::dexpNormalRange(x)) << x;
}

TEST(DoubleLog1p, WithinOneUlpOverTheWholeRange) {
  const double dmax = std::numeric_limits<double>::max();
  const std::initializer_list<double> edges = {-1.0,
                                               std::nextafter(-1.0, 0.0),
                                               -0.5,
                                               std::nextafter(-0.5, 0.0),
                                               -0.2928932188134524,
                                               0.41421356237309503,
                                               0.4142135623730951,
                                               1.0,
                                               1.1102230246251565e-16,
                                               -1.1102230246251565e-16,
                                               5.551115123125783e-17,
                                               -5.551115123125783e-17,
                                               2.220446049250313e-16,
                                               4.9406564584124654e-324,
                                               -4.9406564584124654e-324,
                                               2.2250738585072014e-308,
                                               9007199254740992.0,
                                               9007199254740993.0,
                                               1e300,
                                               dmax};
  double at;
  // Bit patterns over [-1, DBL_MAX]: every binade of (-1, 0) and (0, max].
  int64_t worst = worstUlps(
      kSamples, -1.0, dmax, edges, [](double x) { return ops::flog1p(x); },
      [](long double x) { return std::log1p(x); }, at);
  std::printf("log1p f64: worst %lld ulp at x = %.17g (whole range)\n",
              static_cast<long long>(worst), at);
  EXPECT_LE(worst, 1) << "at x = " << at;
  // Where log1p is most used (softplus: log1p(e^-|x|), x in (0, 1]) and
  // the switch of the reduction at sqrt(2) - 1 and sqrt(1/2) - 1.
  worst = worstUlps(
      kSamples, -0.5, 2.0, {}, [](double x) { return ops::flog1p(x); },
      [](long double x) { return std::log1p(x); }, at);
  std::printf("log1p f64: worst %lld ulp at x = %.17g ([-0.5, 2])\n",
              static_cast<long long>(worst), at);
  EXPECT_LE(worst, 1) << "at x = " << at;
}

TEST(DoubleLog1p, SpecialValues) {
  EXPECT_EQ(ops::flog1p(0.0), 0.0);
  EXPECT_FALSE(std::signbit(ops::flog1p(0.0)));
  EXPECT_EQ(ops::flog1p(-0.0), 0.0);
  EXPECT_TRUE(std::signbit(ops::flog1p(-0.0)));
  EXPECT_EQ(ops::flog1p(-1.0), -kInf);
  EXPECT_EQ(ops::flog1p(kInf), kInf);
  EXPECT_EQ(ops::flog1p(1e-30), 1e-30);
  EXPECT_EQ(ops::flog1p(-1e-30), -1e-30);
  EXPECT_EQ(ops::flog1p(4.9406564584124654e-324), 4.9406564584124654e-324);
  EXPECT_EQ(ops::flog1p(std::numeric_limits<double>::max()),
            std::log1p(std::numeric_limits<double>::max()));
  EXPECT_EQ(ops::flog1p(std::nextafter(-1.0, 0.0)),
            std::log1p(std::nextafter(-1.0, 0.0)));
  EXPECT_TRUE(std::isnan(ops::flog1p(-1.5)));
  EXPECT_TRUE(std::isnan(ops::flog1p(std::nextafter(-1.0, -2.0))));
  EXPECT_TRUE(std::isnan(ops::flog1p(-kInf)));
  EXPECT_TRUE(std::isnan(ops::flog1p(kNaN)));
  EXPECT_TRUE(std::isnan(ops::flog1p(-kNaN)));
}

/// f64 sigmoid 1 / (1 + exp(-x)) and silu x / (1 + exp(-x)) (MapKinds.def,
/// with dexp) against the long double formula rounded to double, from
/// -709 up (below, exp(-x) overflows and both flush to 0 / -0 where the
/// exact value is below 2^-1022 (sigmoid) or 2^-1012 (silu)), and their
/// special values.
TEST(DoubleSigmoidSilu, WithinThreeUlpAndSpecialValues) {
  for (bool silu : {false, true}) {
    auto got = [&](double x) {
      return silu ? ops::Map<MapKind::Silu, double>::apply(x, 0, 0)
                  : ops::Map<MapKind::Sigmoid, double>::apply(x, 0, 0);
    };
    auto want = [&](long double x) {
      return (silu ? x : 1.0L) / (1.0L + std::exp(-x));
    };
    double at;
    int64_t worst =
        worstUlps(kSamples, -709.0, std::numeric_limits<double>::max(),
                  {-709.0, -708.0, 708.0, 37.0, 36.7, 1e-300, -1e-300,
                   4.9406564584124654e-324},
                  got, want, at);
    std::printf("%s f64: worst %lld ulp at x = %.17g (x >= -709)\n",
                silu ? "silu" : "sigmoid", static_cast<long long>(worst), at);
    EXPECT_LE(worst, 3) << (silu ? "silu" : "sigmoid") << " at x = " << at;
    worst = worstUlps(kSamples, -40.0, 40.0, {}, got, want, at);
    std::printf("%s f64: worst %lld ulp at x = %.17g ([-40, 40])\n",
                silu ? "silu" : "sigmoid", static_cast<long long>(worst), at);
    EXPECT_LE(worst, 3) << (silu ? "silu" : "sigmoid") << " at x = " << at;
    for (double x : {-709.8, -745.2, -1e300}) {
      double g = got(x);
      EXPECT_TRUE(g == 0.0 && std::signbit(g) == silu) << x << " " << g;
      EXPECT_LT(std::fabs(static_cast<double>(want(x)) - g),
                silu ? 0x1p-1012 : 0x1p-1022)
          << x;
    }
    EXPECT_TRUE(std::isnan(got(kNaN)));
  }
  using Sig = ops::Map<MapKind::Sigmoid, double>;
  using Silu = ops::Map<MapKind::Silu, double>;
  EXPECT_EQ(Sig::apply(0.0, 0, 0), 0.5);
  EXPECT_EQ(Sig::apply(-0.0, 0, 0), 0.5);
  EXPECT_EQ(Sig::apply(kInf, 0, 0), 1.0);
  EXPECT_EQ(Sig::apply(-kInf, 0, 0), 0.0);
  EXPECT_EQ(Sig::apply(1e300, 0, 0), 1.0);
  EXPECT_EQ(Silu::apply(0.0, 0, 0), 0.0);
  EXPECT_TRUE(std::signbit(Silu::apply(-0.0, 0, 0)));
  EXPECT_EQ(Silu::apply(kInf, 0, 0), kInf);
  EXPECT_EQ(Silu::apply(1e300, 0, 0), 1e300);
  EXPECT_TRUE(std::isnan(Silu::apply(-kInf, 0, 0))); // -inf / inf
}

/// The backend's f64 exp, log, tanh, gelu, sigmoid, silu, softplus, sin
/// and cos loops (vectorized per ISA, CpuKernels.cpp; exp, sigmoid and silu
/// with dexpNormal on blocks of 256 in its range, sin and cos with
/// dsinFast / dcosFast on blocks within 2^20) give the scalar functions'
/// bits, special values among ordinary ones included.
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
  px[80] = 3e7; // sin and cos beyond 2^20: libm, a block of its own
  for (MapKind k : {MapKind::Exp, MapKind::Log, MapKind::Tanh, MapKind::Gelu,
                    MapKind::Sigmoid, MapKind::Silu, MapKind::Softplus,
                    MapKind::Sin, MapKind::Cos}) {
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

//===- DoubleMath.h - Branch-free f64 math functions ------------*- C++ -*-===//
//
// The f64 counterparts of ElementOps.h's float exp, log, log1p, tanh, sin
// and cos: written without branches (every special case a bit blend) so
// that the CPU's map and fused loops vectorize them under each ISA variant
// they are compiled for (CpuKernels.cpp: AVX-512, AVX2, baseline), where
// libm's are one call per element. Host only: the CUDA kernels keep
// CUDA's functions. Accuracy against the long double function rounded to
// double, over the whole range (sin and cos: over |x| <= 2^20, libm
// beyond): DoubleMathTests DoubleExp, DoubleLog, DoubleLog1p, DoubleTanh,
// DoubleSinCos (docs/runtime.md, "Element kinds").
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_DOUBLEMATH_H
#define WEFT_RT_DOUBLEMATH_H

#include "weft/rt/Config.h"

#include <cmath>
#include <cstdint>

/// The per-element math functions (here and in ElementOps.h) are forced
/// inline on the host: the CPU's map and fused loops (CpuKernels.cpp) are
/// compiled per ISA with target attributes, and they vectorize only when
/// the function's body is inlined into them. Left to GCC's heuristics, the
/// grown CpuKernels.cpp stopped inlining them (ftanh, fexp, flogHost, dexp,
/// Map::apply, ... became one call per element: f32 tanh and GELU maps at
/// ~15 ns per element instead of ~1.3, docs/performance.md section 16).
/// CUDA keeps its own inlining (nvcc inlines device functions).
#if defined(__CUDACC__) || !defined(__GNUC__)
#define WEFT_INLINE
#else
#define WEFT_INLINE __attribute__((always_inline))
#endif

namespace weft::rt::ops {

WEFT_INLINE inline double hostBits(uint64_t i) {
  double d;
  __builtin_memcpy(&d, &i, sizeof d);
  return d;
}
WEFT_INLINE inline uint64_t hostBitsOf(double d) {
  uint64_t i;
  __builtin_memcpy(&i, &d, sizeof i);
  return i;
}
/// c ? a : b, as a bit blend.
WEFT_INLINE inline double hostBlend(bool c, double a, double b) {
  uint64_t m = 0ull - static_cast<uint64_t>(c);
  return hostBits((hostBitsOf(a) & m) | (hostBitsOf(b) & ~m));
}

/// a * b + c (ElementOps.h's ffma for doubles): with WEFT_RT_FMA rounded
/// once, one vfmadd in CpuKernels.cpp's FMA loops, libm's fma (the same
/// bits) where compiled without FMA; without it a multiply and an add.
WEFT_INLINE inline double hostFma(double a, double b, double c) {
#if WEFT_RT_FMA
  return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}

/// exp(r) for |r| <= ln2/2 + a little: the Taylor series to r^13 (the
/// first omitted term is below 5e-18, 0.04 ulp of 1), in Horner form.
WEFT_INLINE inline double dexpPoly(double r) {
  double p = 1.0 / 6227020800.0;        // 1/13!
  p = hostFma(p, r, 1.0 / 479001600.0); // 1/12!
  p = hostFma(p, r, 1.0 / 39916800.0);  // 1/11!
  p = hostFma(p, r, 1.0 / 3628800.0);   // 1/10!
  p = hostFma(p, r, 1.0 / 362880.0);    // 1/9!
  p = hostFma(p, r, 1.0 / 40320.0);     // 1/8!
  p = hostFma(p, r, 1.0 / 5040.0);      // 1/7!
  p = hostFma(p, r, 1.0 / 720.0);       // 1/6!
  p = hostFma(p, r, 1.0 / 120.0);       // 1/5!
  p = hostFma(p, r, 1.0 / 24.0);        // 1/4!
  p = hostFma(p, r, 1.0 / 6.0);         // 1/3!
  p = hostFma(p, r, 0.5);               // 1/2!
  return 1.0 + r + r * r * p;
}

/// dexp's reduction and polynomial of xc (finite, in [-745.14, 709.79]):
/// k = round(x / ln2), r = x - k ln2 (ln2 in two parts, the first with 32
/// bits so that k times it is exact), exp(r) by dexpPoly. Returns exp(r)
/// and sets kb = k + 2048 (in [973, 3072]).
WEFT_INLINE inline double dexpReduce(double xc, uint64_t &kb) {
  // k = round(x / ln2) by the 1.5 * 2^52 trick; its bits hold k too
  // (every integer step below stays in unsigned 64-bit arithmetic with
  // logical shifts, which AVX2 has, unlike 64-bit conversions and
  // arithmetic shifts).
  const double shifter = 6755399441055744.0; // 1.5 * 2^52
  double t = xc * 1.4426950408889634 + shifter;
  double kd = t - shifter;
  double r = hostFma(kd, -0x1.62e42feep-1, xc); // 32 bits: kd times it exact
  r = hostFma(kd, -0x1.a39ef35793c76p-33, r);   // ln2 - the first part
  kb = hostBitsOf(t) - 0x4338000000000000ull + 2048u;
  return dexpPoly(r);
}

/// dexpReduce, times 2^k as two factors 2^(k/2) 2^(k - k/2) (each a normal
/// power of two, so a subnormal result is rounded once, by the last
/// multiplication).
WEFT_INLINE inline double dexpCore(double xc) {
  uint64_t kb;
  double p = dexpReduce(xc, kb);
  // 2^k = 2^k1 2^k2 with k1 = floor(kb / 2) - 1024 and k2 = k - k1, each
  // in [-538, 512] (normal powers of two, exponent fields k1b - 1 and k2b
  // - 1).
  uint64_t k1b = kb >> 1, k2b = kb - k1b;
  return p * hostBits((k1b - 1u) << 52) * hostBits((k2b - 1u) << 52);
}

/// exp of a double: dexpCore on the argument, with the special cases
/// blended in. exp(x > 709.78...) = +inf, exp(x < -745.13...) = 0,
/// exp(+-inf) = +inf / 0, NaN stays NaN.
WEFT_INLINE inline double dexp(double x) {
  const double hi = 709.782712893384, lo = -745.1332191019412;
  bool nan = x != x;
  bool over = x > hi, under = x < lo;
  double xc = hostBlend(over | under | nan, 0.0, x);
  double y = dexpCore(xc);
  y = hostBlend(over, INFINITY, y);
  y = hostBlend(under, 0.0, y);
  return hostBlend(nan, x, y);
}

/// Whether dexpNormal(x) is dexp(x): |x| <= 708 (bit patterns compared as
/// integers, NaN excluded), inside dexp's [lo, hi] so that none of its
/// special cases applies. Branch-free, so that a loop over it vectorizes.
WEFT_INLINE inline bool dexpNormalRange(double x) {
  return (hostBitsOf(x) & 0x7fffffffffffffffull) <= 0x4086200000000000ull;
}
/// dexp for x where dexpNormalRange(x) holds: the same operations on the
/// same values without the special cases' blends (identities there), so
/// the same bits. The CPU's f64 exp, sigmoid and silu loops run it on
/// blocks whose every argument is in range (CpuKernels.cpp, expSpan).
WEFT_INLINE inline double dexpNormal(double x) {
  uint64_t kb;
  double p = dexpReduce(x, kb);
  // k in [-1022, 1022]: 2^k is one normal factor (exponent field k + 1023
  // = kb - 1025), and p 2^k the bits dexpCore's two exact scalings give.
  return p * hostBits((kb - 1025u) << 52);
}

/// fdlibm's polynomial R(s) of log(1 + f) = f - (f^2/2 - s (f^2/2 + R)),
/// s = f / (2 + f): shared by dlog and dlog1p (the same operations in the
/// same order as each had, so the same bits).
WEFT_INLINE inline double dlogPoly(double s) {
  double z2 = s * s, w = z2 * z2;
  double t1 =
      w * (3.999999999940941908e-01 +
           w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
  double t2 =
      z2 *
      (6.666666666666735130e-01 +
       w * (2.857142874366239149e-01 +
            w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  return t2 + t1;
}

/// log of a double (fdlibm's e_log.c, branch-free): x = 2^k (1 + f) with
/// 1 + f in [sqrt(1/2), sqrt(2)) taken from the bit pattern (a subnormal
/// first scaled by 2^54, exactly), s = f / (2 + f), log(1 + f) = f - (f^2/2
/// - s (f^2/2 + R(s^2))) with fdlibm's degree-14 minimax R, plus k ln2 in
/// two parts. log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN
/// stays NaN.
WEFT_INLINE inline double dlog(double x) {
  uint64_t ux = hostBitsOf(x);
  bool sub = ux < 0x0010000000000000ull;                  // subnormal or +0
  double xs = hostBlend(sub, x * 18014398509481984.0, x); // 2^54
  uint64_t un = hostBitsOf(xs);
  uint64_t kadj = sub ? 54u : 0u;
  // un - bits(sqrt(1/2)) + 2^63: its exponent field is k + 2048 (in
  // [1026, 3072]), so 1 + f = un - (k << 52) lies in [sqrt(1/2), sqrt(2)).
  uint64_t kb = (un - 0x3fe6a09e667f3bcdull + 0x8000000000000000ull) >> 52;
  double z = hostBits(un - ((kb - 2048u) << 52));
  // k - kadj as a double, through the 1.5 * 2^52 trick (no conversion).
  double dk = hostBits(0x4338000000000000ull + (kb - 2048u - kadj)) -
              6755399441055744.0;
  double f = z - 1.0;
  double s = f / (2.0 + f);
  double R = dlogPoly(s);
  double hfsq = 0.5 * f * f;
  double r = dk * 6.93147180369123816490e-01 -
             ((hfsq - (s * (hfsq + R) + dk * 1.90821492927058770002e-10)) - f);
  bool zero = (ux & 0x7fffffffffffffffull) == 0;
  bool bad = (ux > 0x8000000000000000ull) |
             (static_cast<int64_t>(ux) > 0x7ff0000000000000ll);
  bool inf = ux == 0x7ff0000000000000ull;
  r = hostBlend(inf, INFINITY, r);
  r = hostBlend(zero, -INFINITY, r);
  return hostBlend(bad, hostBits(0x7ff8000000000000ull), r);
}

/// log1p of a double (fdlibm's s_log1p.c, branch-free): u = 1 + x
/// rounded, c = (x - (u - 1)) / u the part of x that rounding lost (exact
/// numerator: Sterbenz), then dlog's reduction and polynomial on u with c
/// added to the low part: log1p(x) = k ln2 + log(1 + f) + c. u is never
/// subnormal (u = 0 or u >= 2^-53), so no scaling. Within 1 ulp of the
/// long double log1p rounded to double over [-1, DBL_MAX] (CpuTests
/// DoubleLog1p). |x| so small that u = 1: log1p(x) = x (keeps -0 too);
/// log1p(-1) = -inf, log1p(x < -1) = NaN, log1p(+inf) = +inf, NaN stays
/// NaN.
WEFT_INLINE inline double dlog1p(double x) {
  double u = 1.0 + x;
  uint64_t uu = hostBitsOf(u);
  // As dlog: the exponent field of uu - bits(sqrt(1/2)) + 2^63 is k +
  // 2048, and 1 + f = uu - (k << 52) lies in [sqrt(1/2), sqrt(2)).
  uint64_t kb = (uu - 0x3fe6a09e667f3bcdull + 0x8000000000000000ull) >> 52;
  double z = hostBits(uu - ((kb - 2048u) << 52));
  double dk =
      hostBits(0x4338000000000000ull + (kb - 2048u)) - 6755399441055744.0;
  // u inf or NaN, negative or -0 (as unsigned: from +inf's pattern up),
  // or +0: blended below, and the divisor kept at 1 there.
  bool big = (uu >= 0x7ff0000000000000ull) | (uu == 0u);
  bool one = uu == 0x3ff0000000000000ull;
  double c = (x - (u - 1.0)) / hostBlend(big, 1.0, u);
  double f = z - 1.0;
  double s = f / (2.0 + f);
  double R = dlogPoly(s);
  double hfsq = 0.5 * f * f;
  double r =
      dk * 6.93147180369123816490e-01 -
      ((hfsq - (s * (hfsq + R) + (dk * 1.90821492927058770002e-10 + c))) - f);
  // Specials, by u's bit pattern: +0 (x = -1) -> -inf; +inf -> +inf;
  // negative (x < -1, -inf) or NaN -> NaN; u = 1 -> x.
  bool zero = uu == 0u;
  bool inf = uu == 0x7ff0000000000000ull;
  bool bad = big & !zero & !inf;
  r = hostBlend(inf, INFINITY, r);
  r = hostBlend(zero, -INFINITY, r);
  r = hostBlend(bad, hostBits(0x7ff8000000000000ull), r);
  return hostBlend(one, x, r);
}

/// tanh of a double: |x| < 0.625, Cephes' rational x + x^3 P(x^2) /
/// Q(x^2); beyond, 1 - 2 / (exp(2|x|) + 1) with dexpNormal on 2 min(|x|, 20)
/// (tanh(20) rounds to 1), the sign put back. tanh(+-0) = +-0, tanh(+-inf)
/// = +-1, NaN stays NaN.
WEFT_INLINE inline double dtanh(double x) {
  uint64_t ux = hostBitsOf(x);
  uint64_t sign = ux & 0x8000000000000000ull;
  double ax = hostBits(ux & 0x7fffffffffffffffull);
  bool nan = ax != ax;
  double z = ax * ax;
  double p = -9.64399179425052238628e-1;
  p = hostFma(p, z, -9.92877231001918586564e1);
  p = hostFma(p, z, -1.61468768441708447952e3);
  double q = z + 1.12811678491632931402e2;
  q = hostFma(q, z, 2.23548839060100448583e3);
  q = hostFma(q, z, 4.84406305325125486048e3);
  double ac = hostBlend(ax < 20.0, ax, 20.0);
  double e = dexpNormal(ac + ac); // 2 ac in [0, 40]: dexp's bits
  // One division for both forms, y = a + b (n / d): small |x|, ax + ax z
  // (p / q); large, 1 - 2 (1 / (e + 1)), the bits of 1 - 2 / (e + 1)
  // (2 times a quotient rounds as the quotient of 2 does, and 2 times it
  // is exact inside the fma).
  bool lo = ax < 0.625;
  double a = hostBlend(lo, ax, 1.0), b = hostBlend(lo, ax * z, -2.0);
  double n = hostBlend(lo, p, 1.0), d = hostBlend(lo, q, e + 1.0);
  double y = hostFma(b, n / d, a);
  y = hostBits(hostBitsOf(y) | sign);
  return hostBlend(nan, x, y);
}

/// sin and cos of a double for |x| <= kDTrigFastLimit (2^20), branch-free
/// (fdlibm's k_sin.c and k_cos.c on the reduced argument). x = k pi/2 + r
/// with k = round(x 2/pi) < 2^20, and r = rh + rl from pi/2 in fdlibm's
/// parts: three of 33 bits (k times each is exact) and a 53-bit tail,
/// about 150 bits in all, subtracted with exact two-sums. So r keeps its
/// relative accuracy even where x is close to a multiple of pi/2 (the
/// cancellation e_rem_pio2.c's medium case checks for). The quadrant k
/// mod 4 picks the kernel and the sign as bit blends. Within 1 ulp of the
/// long double function rounded to double (DoubleMathTests DoubleSinCos);
/// fsin and fcos (ElementOps.h) call libm beyond the limit (huge arguments
/// need Payne-Hanek reduction), and the CPU's span loops check a block of
/// 256 is in range to run these vectorized (CpuKernels.cpp, trigSpan).
constexpr double kDTrigFastLimit = 1048576.0; // 2^20

/// Whether dsinFast and dcosFast apply: |x| <= 2^20 (NaN and inf: no).
WEFT_INLINE inline bool dtrigFastRange(double x) {
  return (hostBitsOf(x) & 0x7fffffffffffffffull) <= 0x4130000000000000ull;
}

/// a + b = s + e exactly (Knuth's two-sum, any magnitudes).
WEFT_INLINE inline double twoSum(double a, double b, double &e) {
  double s = a + b;
  double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
  return s;
}

/// x = k pi/2 + (rh + rl), |rh + rl| <= pi/4 + a little, |rl| <= ulp(rh)/2.
/// The quadrant k mod 4 comes from the low bits of k + 1.5 * 2^52's
/// pattern (k < 2^20 in two's complement there), not from a conversion to
/// an integer: AVX-512F and AVX2 have no double-to-int64 conversion, and
/// one would keep the loops scalar (as DoubleMath.h's other functions,
/// unsigned 64-bit integer steps only).
WEFT_INLINE inline double dtrigReduce(double x, uint64_t &k, double &rl) {
  const double shifter = 6755399441055744.0; // 1.5 * 2^52
  double shifted = x * 6.36619772367581382433e-01 + shifter;
  k = hostBitsOf(shifted);
  double kd = shifted - shifter;
  const double pio2_1 = 1.57079632673412561417e+00;  // 33 bits
  const double pio2_2 = 6.07710050630396597660e-11;  // 33 bits
  const double pio2_3 = 2.02226624871116645580e-21;  // 33 bits
  const double pio2_3t = 8.47842766036889956997e-32; // the rest
  double a = x - kd * pio2_1; // exact: k pio2_1 is exact and close to x
  double e1, e2;
  double t = twoSum(a, -(kd * pio2_2), e1);
  double u = twoSum(t, -(kd * pio2_3), e2);
  double tail = (e1 + e2) - kd * pio2_3t;
  double rh = u + tail;
  rl = (u - rh) + tail;
  return rh;
}

/// fdlibm's __kernel_sin(x, y, 1): sin(x + y) for |x| <= pi/4, |y| tiny.
WEFT_INLINE inline double dsinKernel(double x, double y) {
  const double S1 = -1.66666666666666324348e-01,
               S2 = 8.33333333332248946124e-03,
               S3 = -1.98412698298579493134e-04,
               S4 = 2.75573137070700676789e-06,
               S5 = -2.50507602534068634195e-08,
               S6 = 1.58969099521155010221e-10;
  double z = x * x;
  double v = z * x;
  double r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

/// fdlibm's __kernel_cos(x, y): cos(x + y) for |x| <= pi/4, |y| tiny. Its
/// branch on |x| < 0.3 is qx = 0 (the other form with qx = 0 is the same
/// operations).
WEFT_INLINE inline double dcosKernel(double x, double y) {
  const double C1 = 4.16666666666666019037e-02,
               C2 = -1.38888888888741095749e-03,
               C3 = 2.48015872894767294178e-05,
               C4 = -2.75573143513906633035e-07,
               C5 = 2.08757232129817482790e-09,
               C6 = -1.13596475577881948265e-11;
  uint64_t ix = hostBitsOf(x) & 0x7fffffff00000000ull;
  double z = x * x;
  double r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  // qx = x/4 rounded down to its leading bits (x in [0.3, 0.78125]),
  // 0.28125 above, 0 below 0.3.
  double qx = hostBits(ix - 0x0020000000000000ull);
  qx = hostBlend(ix > 0x3fe9000000000000ull, 0.28125, qx);
  qx = hostBlend(ix < 0x3fd3333300000000ull, 0.0, qx);
  double hz = 0.5 * z - qx;
  double a = 1.0 - qx;
  return a - (hz - (z * r - x * y));
}

/// Picks +-s or +-c by quadrant (0: s, 1: c, 2: -s, 3: -c) as bit blends.
WEFT_INLINE inline double dtrigPick(uint64_t q, double s, double c) {
  uint64_t odd = 0ull - (q & 1);
  uint64_t neg = (q & 2) << 62;
  return hostBits(((hostBitsOf(c) & odd) | (hostBitsOf(s) & ~odd)) ^ neg);
}

WEFT_INLINE inline double dsinFast(double x) {
  uint64_t k;
  double rl;
  double rh = dtrigReduce(x, k, rl);
  double y = dtrigPick(k, dsinKernel(rh, rl), dcosKernel(rh, rl));
  return hostBlend(x == 0.0, x, y); // sin(-0) = -0
}
WEFT_INLINE inline double dcosFast(double x) {
  uint64_t k;
  double rl;
  double rh = dtrigReduce(x, k, rl);
  return dtrigPick(k + 1, dsinKernel(rh, rl), dcosKernel(rh, rl));
}

} // namespace weft::rt::ops

#endif // WEFT_RT_DOUBLEMATH_H

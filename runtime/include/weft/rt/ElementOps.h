//===-  ElementOps.h - Per-element arithmetic for host and dev --*- C++ -*-===//
//-*-===//
//
// The single definition of every map and reduce kind's arithmetic. The CPU
// loops and the CUDA kernels both instantiate these, so the CPU tests check
// the same formulas the GPU runs. Values are computed in the compute type
// (float for f32/f16/bf16, double for f64).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_ELEMENTOPS_H
#define WEFT_RT_ELEMENTOPS_H

#include "weft/rt/Config.h"
#include "weft/rt/DType.h"
#include "weft/rt/DoubleMath.h"
#include "weft/rt/Kinds.h"

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define WEFT_HD __host__ __device__
#else
#define WEFT_HD
#endif

namespace weft::rt::ops {

/// The position of `id` in the block [offset, offset + size) of a letter
/// split over ranks (embed, scatter_add and one_hot), or -1 outside it.
WEFT_HD inline int64_t blockIndex(int32_t id, int64_t offset, int64_t size) {
  int64_t r = static_cast<int64_t>(id) - offset;
  return (r >= 0 && r < size) ? r : -1;
}

/// pad_fill (uneven shards): whether the element at local indices
/// idx[0..rank) of a block lies inside the logical (unpadded) tensor, where
/// keep[d] is the count of leading positions of dim d that do (PadFillPlan:
/// keep[d] = clamp(valid[d] - first[d], 0, extent), so idx[d] < keep[d] is
/// first[d] + idx[d] < valid[d]).
WEFT_HD inline bool padInside(int rank, const int64_t *idx,
                              const int64_t *keep) {
  bool inside = true;
  for (int d = 0; d < rank; ++d)
    inside = inside && idx[d] < keep[d];
  return inside;
}
/// pad_fill's element: the input where `inside`, else the fill. U is an
/// unsigned integer of the element's width, so values (NaN payloads
/// included) are copied bit for bit and the fill is the bit pattern
/// planPadFill rounded once for every backend.
template <typename U> WEFT_HD inline U padFillValue(bool inside, U in, U fill) {
  return inside ? in : fill;
}

/// cumsum (CumsumPlan): the position in its line of the k-th element a
/// line's walk visits, k = 0, 1, ..., n-1 (from the end for `reverse`).
WEFT_HD inline int64_t cumsumPosition(int64_t k, int64_t n, bool reverse) {
  return reverse ? n - 1 - k : k;
}
/// cumsum's step at the next element `x` of a line's walk, in the
/// accumulation type A (float for f32, f16 and bf16; double for f64): adds x
/// into the running sum `acc` and returns the result there, the sum with x
/// (inclusive) or before it (exclusive, so the first is 0). The CPU loop
/// and the CUDA kernel walk every line in the same order with this step, so
/// they add in the same sequence and round identically.
template <typename A> WEFT_HD inline A cumsumStep(A &acc, A x, bool exclusive) {
  A before = acc;
  acc = acc + x;
  return exclusive ? before : acc;
}

/// top-k (TopKPlan): whether the element `a` at index `ia` of its line
/// comes before `b` at index `ib` in the selection order, in the compute
/// type C (float for f32, f16 and bf16; double for f64): descending value,
/// NaN above every number (as torch.topk), equal values (-0 == +0 included)
/// and NaNs among themselves by ascending index. With distinct indices this
/// is a strict total order, so the top k of a line are unique: the CPU's
/// partial sort and the CUDA kernel's k passes select the same
/// positions. `x != x` is the NaN test on host and device alike.
template <typename C>
WEFT_HD inline bool topKBefore(C a, int64_t ia, C b, int64_t ib) {
  const bool aNan = a != a, bNan = b != b;
  if (aNan || bNan)
    return aNan && (!bNan || ia < ib);
  return a > b || (a == b && ia < ib);
}

/// exp in float without a libm call, so the CPU loops vectorize (glibc
/// declares its vector expf only under -ffast-math) and the GPU runs the
/// same arithmetic. x = k ln2 + r with |r| <= ln2/2 (Cody-Waite, ln2 split in
/// two so k*C1 is exact), e^r by Cephes' degree-6 minimax polynomial, then
/// the scaling by 2^k. At most 1 ulp from the correctly rounded result for
/// every float (checked exhaustively once; runtime/tests/CpuTests.cpp checks
/// every 61st float for <= 2 ulp); exp(NaN) = NaN, exp(+inf) = +inf,
/// exp(-inf) = 0, +inf above log(FLT_MAX), 0 below log(2^-150).
///
/// Written for throughput on wide vectors:
/// - branch-free: the range tests compare bit patterns as integers and
///   special values are blended in with bit masks. Under GCC's default
///   -ftrapping-math a float comparison, or a select whose operand it may
///   sink into a branch (the polynomial), keeps the loop from being
///   if-converted, hence from being vectorized;
/// - no arithmetic on denormals (each costs a microcode assist of ~100
///   cycles on x86, paid by every lane since all lanes compute everything):
///   out-of-range lanes compute exp(0), and a denormal result (k <= -126) is
///   built as an integer bit pattern, round(p * 2^(k+149)), which rounds
///   exactly like the multiplication p * 2^k would.
WEFT_HD WEFT_INLINE inline float fbits(uint32_t i) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(i);
#else
  float f;
  __builtin_memcpy(&f, &i, sizeof f);
  return f;
#endif
}
WEFT_HD WEFT_INLINE inline uint32_t fbitsOf(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t i;
  __builtin_memcpy(&i, &f, sizeof i);
  return i;
#endif
}
/// c ? a : b, as a bit blend (see fexp).
WEFT_HD WEFT_INLINE inline float fblend(bool c, float a, float b) {
  uint32_t m = 0u - static_cast<uint32_t>(c);
  return fbits((fbitsOf(a) & m) | (fbitsOf(b) & ~m));
}
/// a * b + c for the shared polynomials' Horner steps. With WEFT_RT_FMA
/// (Config.h: the build's CPU has FMA, WEFT_RUNTIME_FMA) rounded once:
/// CpuKernels.cpp compiles its AVX-512 and AVX2 loops with FMA (the AVX2
/// variant runs only where the CPU has FMA), so each step is one vfmadd
/// instead of a multiply and an add; a loop compiled without FMA (the
/// baseline variant, a test file) calls libm's fmaf, which gives the same
/// bits, one call per step. Without it (a build on a CPU without FMA) a
/// multiply and an add, so that the baseline loops stay vectorized there;
/// every variant rounds alike either way. The device always uses its FMA
/// (nvcc contracted these steps before they were written out). Measured in
/// docs/performance.md section 36; docs/runtime.md, "Fused multiply-adds in
/// the shared functions".
WEFT_HD WEFT_INLINE inline float ffma(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#elif WEFT_RT_FMA
  return __builtin_fmaf(a, b, c);
#else
  return a * b + c;
#endif
}
/// fexp's reduction and polynomial of xc (in range): 2^k * p = exp(xc),
/// p in [0.7, 1.42], k in [-150, 128].
struct ExpParts {
  float p;
  int32_t k;
};
WEFT_HD WEFT_INLINE inline ExpParts fexpParts(float xc) {
  // k = round(x / ln2) (round to nearest via the 1.5 * 2^23 trick).
  const float shifter = 12582912.0f;
  float t = xc * 1.44269504088896341f + shifter;
  float kf = t - shifter;
  float r = ffma(kf, -0.693359375f, xc); // kf times it is exact
  r = ffma(kf, 2.12194440e-4f, r);
  float z = r * r;
  float p = 1.9875691500e-4f;
  p = ffma(p, r, 1.3981999507e-3f);
  p = ffma(p, r, 8.3334519073e-3f);
  p = ffma(p, r, 4.1665795894e-2f);
  p = ffma(p, r, 1.6666665459e-1f);
  p = ffma(p, r, 5.0000001201e-1f);
  p = ffma(p, z, r) + 1.0f; // in [0.7, 1.42]
  // t = 1.5 * 2^23 + k exactly (|k| < 2^22), so its low bits hold k: an
  // integer subtraction instead of a float-to-int conversion.
  return {p, static_cast<int32_t>(fbitsOf(t) - 0x4b400000u)};
}
/// The normal result p * 2^k for k in [-125, 128]: two factors so that
/// k = 128 works.
WEFT_HD WEFT_INLINE inline float fexpScaleNormal(float p, int32_t k) {
  int32_t k1 = k >> 1, k2 = k - k1; // each in [-63, 64]
  return p * fbits(static_cast<uint32_t>(k1 + 127) << 23) *
         fbits(static_cast<uint32_t>(k2 + 127) << 23);
}
WEFT_HD WEFT_INLINE inline float fexp(float x) {
  // hi = 88.72283935546875f (0x42b17218): exp(x) rounds to +inf for x > hi
  // (and at hi, which the scaling below gets right); lo =
  // -103.97208404541015625f (0xc2cff1b5): exp(x) rounds to 0 for x < lo.
  uint32_t ux = fbitsOf(x);
  bool over = static_cast<int32_t>(ux) > 0x42b17218; // x > hi, or +NaN
  bool under = ux > 0xc2cff1b5u;                     // x < lo, or -NaN
  bool nan = (ux & 0x7fffffffu) > 0x7f800000u;
  float xc = fblend(over | under, 0.0f, x);
  ExpParts e = fexpParts(xc);
  const float p = e.p;
  const int32_t k = e.k;
  // Normal result: p * 2^k1 * 2^k2.
  float y = fexpScaleNormal(p, k > -125 ? k : -125);
  // Denormal (or smallest binade) result, k <= -126: the bits are
  // n = round(m), m = p * 2^(k+149) in [0.35, 1.42 * 2^23]. Below 2^23 adding
  // 2^23 rounds m to an integer in the low mantissa bits; above, m already
  // is one.
  int32_t kd = k < -126 ? k : -126;
  float m = p * fbits(static_cast<uint32_t>(kd + 149 + 127) << 23);
  float t = m + 8388608.0f;
  uint32_t big = 0u - static_cast<uint32_t>(fbitsOf(m) >= 0x4b000000u);
  uint32_t n = (static_cast<uint32_t>(static_cast<int32_t>(m)) & big) |
               ((fbitsOf(t) - 0x4b000000u) & ~big);
  y = fblend(k <= -126, fbits(n), y);
  y = fblend(over, INFINITY, y);
  y = fblend(under, 0.0f, y);
  return fblend(nan, x, y);
}
/// Whether fexpNormal(x) is fexp(x): x in [-86, 88] (then k = round(x /
/// ln2) is in [-124, 127], the result normal, no special case applies).
/// Compares bit patterns as integers, as fexp does, branch-free so that a
/// loop over it vectorizes: non-negative x up to 88 (0x42b00000), negative
/// x down to -86 (0xc2ac0000).
WEFT_HD WEFT_INLINE inline bool fexpNormalRange(float x) {
  uint32_t ux = fbitsOf(x);
  uint32_t neg = 0u - (ux >> 31);
  uint32_t limit = 0x42b00000u ^ ((0x42b00000u ^ 0xc2ac0000u) & neg);
  return ux <= limit;
}
/// Whether fexp(x) is +0 by its underflow rule: x below
/// -103.97208404541015625f (0xc2cff1b5, see fexp), -inf included, a NaN
/// not (fexp's `under` without its negative NaNs).
WEFT_HD WEFT_INLINE inline bool fexpUnderflows(float x) {
  uint32_t ux = fbitsOf(x);
  return ux > 0xc2cff1b5u && ux <= 0xff800000u;
}
/// fexp for x where fexpNormalRange(x) holds: the same operations on the
/// same values without the special cases' blends, so the same bits at
/// about half the operations. The CPU's exp loops run it on blocks whose
/// every element is in range (CpuKernels.cpp, expSpan).
WEFT_HD WEFT_INLINE inline float fexpNormal(float x) {
  ExpParts e = fexpParts(x);
  // k in [-124, 127]: 2^k is one normal factor, and p 2^k the bits
  // fexpScaleNormal's two exact scalings give.
  return e.p * fbits(static_cast<uint32_t>(e.k + 127) << 23);
}
// f64: DoubleMath.h's branch-free forms on the host (the CPU's loops
// vectorize them), CUDA's on the device.
#if defined(__CUDA_ARCH__)
WEFT_HD WEFT_INLINE inline double fexp(double x) { return exp(x); }
#else
WEFT_HD WEFT_INLINE inline double fexp(double x) { return dexp(x); }
#endif

/// log of a float, branch-free like fexp so the CPU's map loops vectorize
/// it (logf is a call per element). x = 2^k z with z in [sqrt(1/2),
/// sqrt(2)) taken from the bit pattern (subnormals first converted
/// exactly to float(bits) = x 2^149, an integer conversion: no arithmetic
/// on denormals), then Cephes' logf: f = z - 1, log z = f - f^2/2 + f^3
/// P(f) (degree 8), plus k ln2 with ln2 split in two. Within 1 ulp of the
/// correctly rounded log for every float (checked exhaustively once; CpuTests
/// FloatLog walks every 61st);
/// log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN stays NaN.
/// The GPU keeps CUDA's logf (see fsin).
WEFT_HD WEFT_INLINE inline float flogHost(float x) {
  uint32_t ux = fbitsOf(x);
  // Subnormal (and zero): float(bits) is x 2^149 exactly.
  uint32_t sub = 0u - static_cast<uint32_t>(ux < 0x00800000u);
  uint32_t us = fbitsOf(static_cast<float>(static_cast<int32_t>(ux)));
  uint32_t un = (us & sub) | (ux & ~sub);
  int32_t kadj = static_cast<int32_t>(sub & 149u);
  // un - bits(sqrt(1/2)): its exponent field is k, so z = un - (k << 23)
  // lies in [sqrt(1/2), sqrt(2)).
  uint32_t t = un - 0x3f3504f3u;
  int32_t k = static_cast<int32_t>(t) >> 23;
  float z = fbits(un - (static_cast<uint32_t>(k) << 23));
  float e = static_cast<float>(k - kadj);
  float f = z - 1.0f;
  float f2 = f * f;
  float p = 7.0376836292e-2f;
  p = ffma(p, f, -1.1514610310e-1f);
  p = ffma(p, f, 1.1676998740e-1f);
  p = ffma(p, f, -1.2420140846e-1f);
  p = ffma(p, f, 1.4249322787e-1f);
  p = ffma(p, f, -1.6668057665e-1f);
  p = ffma(p, f, 2.0000714765e-1f);
  p = ffma(p, f, -2.4999993993e-1f);
  p = ffma(p, f, 3.3333331174e-1f);
  float y = f * f2 * p;
  y = y + e * -2.12194440e-4f;
  y = y - 0.5f * f2;
  float r = f + y;
  r = r + e * 0.693359375f;
  // Specials, by bit pattern: +0/-0 -> -inf; negative (sign set, not -0)
  // or NaN -> NaN; +inf -> +inf.
  bool zero = (ux & 0x7fffffffu) == 0;
  // Sign set and not -0 (negative, -inf, -NaN), or +NaN: as signed
  // integers, +NaN is above +inf's pattern, the others below 0 bar -0.
  bool bad = (ux > 0x80000000u) | (static_cast<int32_t>(ux) > 0x7f800000);
  bool inf = ux == 0x7f800000u;
  r = fblend(inf, INFINITY, r);
  r = fblend(zero, -INFINITY, r);
  return fblend(bad, fbits(0x7fc00000u), r);
}
/// log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: the
/// correction restores what the rounding of u lost (Goldberg's trick), so
/// tiny x give x. Within 2 ulp of the correctly rounded log1p (CpuTests
/// FloatLog1p); log1p(-1) = -inf, log1p(x < -1) = NaN, log1p(+inf) =
/// +inf, log1p(-0) = -0, NaN stays NaN. softplus uses it (MapKinds.def);
/// f64 has DoubleMath.h's dlog1p on the host.
WEFT_HD WEFT_INLINE inline float flog1pHost(float x) {
  float u = 1.0f + x;
  float l = flogHost(u);
  // u == 1: x below half an ulp of 1, log1p(x) = x (keeps -0 too); u
  // inf: x inf or huge, log u is right (and the correction would be NaN).
  uint32_t uu = fbitsOf(u);
  bool one = uu == 0x3f800000u;
  // u inf or NaN, negative or -0 (as unsigned: from +inf's pattern up),
  // or +0.
  bool big = (uu >= 0x7f800000u) | (uu == 0u);
  float c = (x - (u - 1.0f)) / fblend(one | big, 1.0f, u);
  float r = fblend(big, l, l + c);
  return fblend(one, x, r);
}

/// sin and cos of a float for |x| <= kTrigFastLimit, branch-free: x = k
/// pi/2 + r in double (k = round(x 2/pi); pi/2 in two parts, the first of
/// 33 bits so that k times it is exact for k < 2^20), sin r and cos r by
/// their Taylor series in double (|r| <= pi/4; the first omitted terms
/// are below 1e-11 relative), the quadrant k mod 4 picking sign and
/// function, rounded once to float. Within 1 ulp of the correctly rounded
/// result (CpuTests FloatSinCos). fsin and fcos below call these in range
/// and libm beyond (huge arguments need Payne-Hanek reduction); the CPU's
/// span loops (CpuKernels.cpp, trigSpan) check a block is in range and
/// run these vectorized.
///
/// The GPU keeps CUDA's sinf, cosf and logf: they already differed from
/// glibc's in the last ulp, so host and device never agreed bit for bit
/// on these, and the CUDA backend's results stay what they were.
constexpr float kTrigFastLimit = 524288.0f; // 2^19
WEFT_HD WEFT_INLINE inline double trigReduce(float x, int32_t &q) {
  const double xd = static_cast<double>(x);
  const double shifter = 6755399441055744.0; // 1.5 * 2^52
  double kd = (xd * 0.63661977236758134308 + shifter) - shifter;
  q = static_cast<int32_t>(kd);
  const double pio2Hi = 0x1.921fb544p+0; // 33 bits
  const double pio2Lo = 0x1.0b4611a626331p-34;
  return (xd - kd * pio2Hi) - kd * pio2Lo;
}
WEFT_HD WEFT_INLINE inline double trigSinPoly(double r) {
  double z = r * r;
  double p = -2.5052108385441718775e-8; // -1/11!
  p = p * z + 2.7557319223985890653e-6; // 1/9!
  p = p * z - 1.9841269841269841270e-4; // -1/7!
  p = p * z + 8.3333333333333333333e-3; // 1/5!
  p = p * z - 1.6666666666666666667e-1; // -1/3!
  // r (1 + z p), not r + r z p: that would turn sin(-0) into +0.
  return r * (1.0 + z * p);
}
WEFT_HD WEFT_INLINE inline double trigCosPoly(double r) {
  double z = r * r;
  double p = 2.0876756987868098979e-9;  // 1/12!
  p = p * z - 2.7557319223985890653e-7; // -1/10!
  p = p * z + 2.4801587301587301587e-5; // 1/8!
  p = p * z - 1.3888888888888888889e-3; // -1/6!
  p = p * z + 4.1666666666666666667e-2; // 1/4!
  p = p * z - 0.5;
  return 1.0 + z * p;
}
/// Picks +-s or +-c by quadrant (0: s, 1: c, 2: -s, 3: -c) as bit blends.
WEFT_HD WEFT_INLINE inline float trigPick(int32_t q, double s, double c) {
  float sf = static_cast<float>(s), cf = static_cast<float>(c);
  uint32_t odd = 0u - static_cast<uint32_t>(q & 1);
  uint32_t neg = static_cast<uint32_t>(q & 2) << 30;
  return fbits(((fbitsOf(cf) & odd) | (fbitsOf(sf) & ~odd)) ^ neg);
}
WEFT_HD WEFT_INLINE inline float fsinFast(float x) {
  int32_t q;
  double r = trigReduce(x, q);
  return trigPick(q, trigSinPoly(r), trigCosPoly(r));
}
WEFT_HD WEFT_INLINE inline float fcosFast(float x) {
  int32_t q;
  double r = trigReduce(x, q);
  return trigPick(q + 1, trigSinPoly(r), trigCosPoly(r));
}
/// Whether fsinFast and fcosFast apply: |x| <= kTrigFastLimit (NaN: no).
WEFT_HD WEFT_INLINE inline bool trigFastRange(float x) {
  return (fbitsOf(x) & 0x7fffffffu) <= 0x49000000u; // 2^19
}

#if defined(__CUDA_ARCH__)
WEFT_HD WEFT_INLINE inline float flog(float x) { return logf(x); }
WEFT_HD WEFT_INLINE inline float flog1p(float x) { return log1pf(x); }
WEFT_HD WEFT_INLINE inline float fsin(float x) { return sinf(x); }
WEFT_HD WEFT_INLINE inline float fcos(float x) { return cosf(x); }
#else
WEFT_HD WEFT_INLINE inline float flog(float x) { return flogHost(x); }
WEFT_HD WEFT_INLINE inline float flog1p(float x) { return flog1pHost(x); }
WEFT_HD WEFT_INLINE inline float fsin(float x) {
  return trigFastRange(x) ? fsinFast(x) : sinf(x);
}
WEFT_HD WEFT_INLINE inline float fcos(float x) {
  return trigFastRange(x) ? fcosFast(x) : cosf(x);
}
#endif
#if defined(__CUDA_ARCH__)
WEFT_HD WEFT_INLINE inline double fsin(double x) { return sin(x); }
WEFT_HD WEFT_INLINE inline double fcos(double x) { return cos(x); }
#else
/// The f64 forms of trigFastRange, fsinFast and fcosFast (DoubleMath.h),
/// so that the CPU's span loop is one template (CpuKernels.cpp, trigSpan).
WEFT_INLINE inline bool trigFastRange(double x) { return dtrigFastRange(x); }
WEFT_INLINE inline double fsinFast(double x) { return dsinFast(x); }
WEFT_INLINE inline double fcosFast(double x) { return dcosFast(x); }
WEFT_HD WEFT_INLINE inline double fsin(double x) {
  return dtrigFastRange(x) ? dsinFast(x) : sin(x);
}
WEFT_HD WEFT_INLINE inline double fcos(double x) {
  return dtrigFastRange(x) ? dcosFast(x) : cos(x);
}
#endif
#if defined(__CUDA_ARCH__)
WEFT_HD WEFT_INLINE inline double flog(double x) { return log(x); }
#else
WEFT_HD WEFT_INLINE inline double flog(double x) { return dlog(x); }
#endif
#if defined(__CUDA_ARCH__)
WEFT_HD WEFT_INLINE inline double flog1p(double x) { return log1p(x); }
#else
WEFT_HD WEFT_INLINE inline double flog1p(double x) { return dlog1p(x); }
#endif
WEFT_HD WEFT_INLINE inline float fsqrt(float x) { return sqrtf(x); }
WEFT_HD WEFT_INLINE inline double fsqrt(double x) { return sqrt(x); }
/// tanh of a float, branch-free like fexp so that the CPU's map loops
/// vectorize it (tanhf is a call per element: T2's GELU maps and their
/// backward chains took 22 of its step's 37 ms, issue 32). |x| < 0.625: an
/// odd minimax polynomial x + x^3 P(x^2) (Cephes' tanhf coefficients);
/// beyond: 1 - 2 / (exp(2|x|) + 1) with fexpNormal on 2 min(|x|, 10)
/// (tanh(10) rounds to 1), the sign put back. Within 2 ulp of the correctly
/// rounded tanh over every float (CpuTests FloatTanh); tanh(+-0) = +-0,
/// tanh(+-inf) = +-1, NaN stays NaN.
WEFT_HD WEFT_INLINE inline float ftanh(float x) {
  uint32_t ux = fbitsOf(x);
  uint32_t sign = ux & 0x80000000u;
  float ax = fbits(ux & 0x7fffffffu);
  bool nan = (ux & 0x7fffffffu) > 0x7f800000u;
  // Small |x|: x + x z P(z), z = x^2.
  float z = ax * ax;
  float p = -5.70498872745e-3f;
  p = ffma(p, z, 2.06390887954e-2f);
  p = ffma(p, z, -5.37397155531e-2f);
  p = ffma(p, z, 1.33314422036e-1f);
  p = ffma(p, z, -3.33332819422e-1f);
  float small = ffma(ax * z, p, ax);
  // Large |x|: 1 - 2 / (e^(2|x|) + 1); the argument clamped so that NaN
  // and huge values stay in fexpNormal's range (blended away below).
  float ac = fblend(ax < 10.0f, ax, 10.0f);
  float e = fexpNormal(ac + ac);
  float large = 1.0f - 2.0f / (e + 1.0f);
  float y = fblend(ax < 0.625f, small, large);
  y = fbits(fbitsOf(y) | sign);
  return fblend(nan, x, y);
}
#if defined(__CUDA_ARCH__)
WEFT_HD WEFT_INLINE inline double ftanh(double x) { return tanh(x); }
#else
WEFT_HD WEFT_INLINE inline double ftanh(double x) { return dtanh(x); }
#endif

/// Applies a map kind to one or two compute-type values. `s` is the
/// constant of Scale and Shift; `b` is ignored by unary kinds.
template <MapKind K, typename T> struct Map;

// One specialization per row of MapKinds.def, its expression as the body.
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr)          \
  template <typename T> struct Map<MapKind::Enum, T> {                         \
    WEFT_HD WEFT_INLINE static T apply(T a, T b, double s) {                   \
      (void)a;                                                                 \
      (void)b;                                                                 \
      (void)s;                                                                 \
      return expr;                                                             \
    }                                                                          \
  };
#include "weft/rt/MapKinds.def"

/// Identity and combine of a reduce kind, in the compute type.
template <ReduceKind K, typename T> struct Reduce;
template <typename T> struct Reduce<ReduceKind::Sum, T> {
  WEFT_HD WEFT_INLINE static T identity() { return T(0); }
  WEFT_HD WEFT_INLINE static T combine(T a, T b) { return a + b; }
};
template <typename T> struct Reduce<ReduceKind::Max, T> {
  WEFT_HD WEFT_INLINE static T identity() { return -T(INFINITY); }
  WEFT_HD WEFT_INLINE static T combine(T a, T b) {
    return (b > a || b != b) ? b : a;
  }
};
template <typename T> struct Reduce<ReduceKind::Min, T> {
  WEFT_HD WEFT_INLINE static T identity() { return T(INFINITY); }
  WEFT_HD WEFT_INLINE static T combine(T a, T b) {
    return (b < a || b != b) ? b : a;
  }
};

/// The type a reduction accumulates in: f32 sums in f64, so the mean of a
/// large tensor (a loss over 10^6 elements) does not drift with the order
/// of summation (and the runs on 1 and 8 ranks agree to f32 rounding).
template <typename T> struct AccumType {
  using type = T;
};
template <> struct AccumType<float> {
  using type = double;
};

//===--- The canonical reduction order ------------------------------------===//
//
// Row-ordered reductions (reduceRowOrdered in ElementPlans.h) and the row
// reductions of weft.fused_rows combine their n elements x[0..n), taken in
// reduced index order, in one order that depends on n only, so the CPU
// (vectorized) and the CUDA kernels (a warp per segment) agree bit for bit:
//
//   n <= kReduceSegment: 32 lane accumulators start at the identity; lane j
//     combines x[j], x[j+32], x[j+64], ... in that order (acc = combine(acc,
//     x)); then the tree: for d = 16, 8, 4, 2, 1, for i < d: acc[i] =
//     combine(acc[i], acc[i+d]); the result is acc[0]. This is lane 0 of a
//     warp after __shfl_down_sync(..., d) for d = 16 down to 1.
//   n > kReduceSegment: p[s] = the above over segment s, x[s*2048 ..
//     min(n, (s+1)*2048)), for each segment; the result is the canonical
//     reduction of p (recursively, by the same rule).
//
// Since kReduceSegment is a multiple of kReduceLanes, element r always
// lands in lane r % 32 of segment r / 2048.

constexpr int kReduceLanes = 32;
constexpr int64_t kReduceSegment = 2048;
/// Levels of the recursion for any n < 2^63 (2048^6 = 2^66).
constexpr int kReduceMaxLevels = 6;

/// The tree of the canonical order over kReduceLanes accumulators, in place;
/// returns acc[0].
template <ReduceKind K, typename A> WEFT_HD inline A reduceLaneTree(A *acc) {
  for (int d = kReduceLanes / 2; d > 0; d /= 2)
    for (int i = 0; i < d; ++i)
      acc[i] = Reduce<K, A>::combine(acc[i], acc[i + d]);
  return acc[0];
}

/// The number of segments of kReduceSegment (the last may be shorter) that
/// n values fill: the values the next level of the canonical order combines.
WEFT_HD inline int64_t reduceSegments(int64_t n) {
  return (n + kReduceSegment - 1) / kReduceSegment;
}

/// The scalar reference of the canonical order: combines load(0), ...,
/// load(n-1) (each already in the accumulation type A) and returns the
/// result in A. One pass, no allocation: each level of the recursion keeps
/// its 32 lanes, and a level's finished segment is pushed to the level
/// above as the next partial. Usable on host and device; the backends run
/// faster forms of it (CpuKernels.cpp, CudaKernels.cu) that the tests check
/// against this one.
template <ReduceKind K, typename A, typename Load>
WEFT_HD A reduceCanonical(int64_t n, Load load) {
  using R = Reduce<K, A>;
  // count[l]: values level l combines; the top level has one segment.
  int64_t count[kReduceMaxLevels];
  int top = 0;
  count[0] = n < 0 ? 0 : n;
  while (count[top] > kReduceSegment && top + 1 < kReduceMaxLevels) {
    count[top + 1] = reduceSegments(count[top]);
    ++top;
  }
  A acc[kReduceMaxLevels][kReduceLanes];
  int64_t seen[kReduceMaxLevels]; // values combined so far, per level
  for (int l = 0; l <= top; ++l) {
    seen[l] = 0;
    for (int j = 0; j < kReduceLanes; ++j)
      acc[l][j] = R::identity();
  }
  for (int64_t r = 0; r < count[0]; ++r) {
    A v = load(r);
    for (int l = 0;; ++l) {
      const int lane = static_cast<int>(seen[l] % kReduceLanes);
      acc[l][lane] = R::combine(acc[l][lane], v);
      ++seen[l];
      // A level below the top passes its segment up when it is full or
      // holds the level's last value.
      if (l == top || (seen[l] % kReduceSegment != 0 && seen[l] != count[l]))
        break;
      v = reduceLaneTree<K, A>(acc[l]);
      for (int j = 0; j < kReduceLanes; ++j)
        acc[l][j] = R::identity();
    }
  }
  return reduceLaneTree<K, A>(acc[top]);
}

/// reduceCanonical over x[0], x[stride], ..., x[(n-1) * stride], each
/// converted to A.
template <ReduceKind K, typename A, typename T>
WEFT_HD A reduceCanonical(const T *x, int64_t n, int64_t stride = 1) {
  return reduceCanonical<K, A>(
      n, [=](int64_t r) { return static_cast<A>(x[r * stride]); });
}

/// Compute type of a storage type (half types compute in float).
template <typename T> struct ComputeType {
  using type = T;
};

/// Calls `f.template operator()<K>()` with the MapKind `k` as a template
/// argument, so kernels are instantiated once per kind (every row of
/// MapKinds.def).
template <typename F> auto dispatchMap(MapKind k, F &&f) {
  switch (k) {
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr)          \
  case MapKind::Enum:                                                          \
    return f.template operator()<MapKind::Enum>();
#include "weft/rt/MapKinds.def"
  }
  return f.template operator()<MapKind::Add>(); // unreachable
}

template <typename F> auto dispatchReduce(ReduceKind k, F &&f) {
  switch (k) {
  case ReduceKind::Sum:
    return f.template operator()<ReduceKind::Sum>();
  case ReduceKind::Max:
    return f.template operator()<ReduceKind::Max>();
  case ReduceKind::Min:
    break;
  }
  return f.template operator()<ReduceKind::Min>();
}

//===--- Element type conversion (weft.convert) ---------------------------===//
//
// Every conversion goes through double, which holds every f32, f16 and bf16
// value exactly, so each one rounds once (round to nearest, ties to even),
// as the interpreter's APFloat does: converting f64 -> f32 -> bf16 would
// round twice and can differ in the last bit. The narrowing to f16 and
// bf16 works on the double's bits, with integer operations only, so the
// CPU and the GPU compute the same bits.

WEFT_HD inline double dbits(uint64_t i) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(i));
#else
  double d;
  __builtin_memcpy(&d, &i, sizeof d);
  return d;
#endif
}
WEFT_HD inline uint64_t dbitsOf(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(d));
#else
  uint64_t i;
  __builtin_memcpy(&i, &d, sizeof i);
  return i;
#endif
}

/// `x` rounded to the 16-bit IEEE-style format of E exponent and M
/// mantissa bits (f16: 5, 10; bf16: 8, 7), as its bit pattern: nearest,
/// ties to even; beyond the largest finite value, infinity of x's sign;
/// subnormal results rounded at the subnormal quantum; NaN stays a quiet
/// NaN with the top of its payload.
template <int E, int M> WEFT_HD inline uint16_t narrowBits(double x) {
  static_assert(1 + E + M == 16, "a 16-bit format");
  const uint64_t u = dbitsOf(x);
  const uint64_t sign = (u >> 63) << 15;
  const int64_t exp = static_cast<int64_t>((u >> 52) & 0x7ff);
  const uint64_t mant = u & ((uint64_t(1) << 52) - 1);
  const uint64_t expMax = (uint64_t(1) << E) - 1;
  const uint64_t inf = sign | (expMax << M);
  if (exp == 0x7ff) // inf or NaN
    return static_cast<uint16_t>(
        mant == 0 ? inf : inf | (uint64_t(1) << (M - 1)) | (mant >> (52 - M)));
  if (exp == 0) // zero, or a double subnormal: far below any subnormal here
    return static_cast<uint16_t>(sign);
  const int64_t bias = (int64_t(1) << (E - 1)) - 1;
  int64_t e = exp - 1023 + bias; // the biased exponent in the target
  if (e >= static_cast<int64_t>(expMax))
    return static_cast<uint16_t>(inf);
  const uint64_t sig = mant | (uint64_t(1) << 52); // 53 bits
  // Bits of sig dropped: the target keeps M + 1 (normal) or fewer
  // (subnormal, at e <= 0).
  int64_t shift = 52 - M;
  if (e < 1) {
    shift += 1 - e;
    e = 0;
  }
  if (shift > 53) // below half the smallest subnormal: +-0
    return static_cast<uint16_t>(sign);
  uint64_t kept = sig >> shift;
  const uint64_t rem = sig & ((uint64_t(1) << shift) - 1);
  const uint64_t half = uint64_t(1) << (shift - 1);
  if (rem > half || (rem == half && (kept & 1)))
    ++kept;
  // A normal's kept significand has its implicit bit (2^M), which adds one
  // to the exponent field: hence e - 1. A carry out of the significand
  // moves to the next binade (or to infinity) by the same addition.
  uint64_t bits = e == 0 ? kept : (static_cast<uint64_t>(e - 1) << M) + kept;
  if (bits > (expMax << M))
    bits = expMax << M;
  return static_cast<uint16_t>(sign | bits);
}

/// The value of a 16-bit pattern of narrowBits' format, exactly.
template <int E, int M> WEFT_HD inline double widenBits(uint16_t h) {
  const uint64_t sign = static_cast<uint64_t>(h >> 15) << 63;
  const uint64_t expMax = (uint64_t(1) << E) - 1;
  const uint64_t exp = (h >> M) & expMax;
  const uint64_t mant = h & ((uint64_t(1) << M) - 1);
  const int64_t bias = (int64_t(1) << (E - 1)) - 1;
  if (exp == expMax) // inf or NaN (payload kept at the top)
    return dbits(sign | (uint64_t(0x7ff) << 52) | (mant << (52 - M)));
  if (exp == 0) { // zero or subnormal: mant * 2^(1 - bias - M), exact
    const double quantum =
        dbits(static_cast<uint64_t>(1023 + 1 - bias - M) << 52);
    const double v = static_cast<double>(mant) * quantum;
    return sign ? -v : v;
  }
  return dbits(
      sign |
      (static_cast<uint64_t>(static_cast<int64_t>(exp) - bias + 1023) << 52) |
      (mant << (52 - M)));
}

/// The storage formats of the float dtypes: the element type a buffer
/// holds (f16 and bf16 as their bit patterns), its exact value as a
/// double, and a double rounded once to it.
struct F32Format {
  using Storage = float;
  WEFT_HD static double load(float x) { return x; }
  WEFT_HD static float store(double x) { return static_cast<float>(x); }
};
struct F64Format {
  using Storage = double;
  WEFT_HD static double load(double x) { return x; }
  WEFT_HD static double store(double x) { return x; }
};
struct F16Format {
  using Storage = uint16_t;
  WEFT_HD static double load(uint16_t h) { return widenBits<5, 10>(h); }
  WEFT_HD static uint16_t store(double x) { return narrowBits<5, 10>(x); }
};
struct BF16Format {
  using Storage = uint16_t;
  WEFT_HD static double load(uint16_t h) {
    return static_cast<double>(fbits(static_cast<uint32_t>(h) << 16));
  }
  WEFT_HD static uint16_t store(double x) { return narrowBits<8, 7>(x); }
};

/// One element of weft.convert from format From to format To.
template <typename From, typename To>
WEFT_HD inline typename To::Storage convertValue(typename From::Storage x) {
  return To::store(From::load(x));
}
/// f32 -> bf16 without the double: the same bits (bf16 has f32's exponent
/// range, so rounding the low 16 bits away is the whole rounding), cheaper
/// where a loop converts every element it stores.
template <>
WEFT_HD inline uint16_t convertValue<F32Format, BF16Format>(float x) {
  const uint32_t u = fbitsOf(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, top of the payload
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/// Calls `f(From{}, To{})` with the formats of dtypes `from` and `to`;
/// false when either is not a float dtype. Host side: the backends'
/// convert kernels dispatch through it.
template <typename F> bool dispatchConvert(DType from, DType to, F &&f) {
  auto with = [&](DType t, auto &&g) {
    switch (t) {
    case DType::F32:
      g(F32Format{});
      return true;
    case DType::F64:
      g(F64Format{});
      return true;
    case DType::F16:
      g(F16Format{});
      return true;
    case DType::BF16:
      g(BF16Format{});
      return true;
    default:
      return false;
    }
  };
  bool toFloat = false;
  bool fromFloat =
      with(from, [&](auto a) { toFloat = with(to, [&](auto b) { f(a, b); }); });
  return fromFloat && toFloat;
}

} // namespace weft::rt::ops

#endif // WEFT_RT_ELEMENTOPS_H

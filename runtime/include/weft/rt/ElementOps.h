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

#include "weft/rt/Kinds.h"

#include <cmath>

#if defined(__CUDACC__)
#define WEFT_HD __host__ __device__
#else
#define WEFT_HD
#endif

namespace weft::rt::ops {

WEFT_HD inline float fexp(float x) { return expf(x); }
WEFT_HD inline double fexp(double x) { return exp(x); }
WEFT_HD inline float flog(float x) { return logf(x); }
WEFT_HD inline double flog(double x) { return log(x); }
WEFT_HD inline float fsqrt(float x) { return sqrtf(x); }
WEFT_HD inline double fsqrt(double x) { return sqrt(x); }
WEFT_HD inline float ftanh(float x) { return tanhf(x); }
WEFT_HD inline double ftanh(double x) { return tanh(x); }

/// Applies a map kind to one or two compute-type values. `s` is the
/// constant of Scale and Shift; `b` is ignored by unary kinds.
template <MapKind K, typename T> struct Map;

#define WEFT_BINARY_MAP(KIND, EXPR)                                            \
  template <typename T> struct Map<MapKind::KIND, T> {                         \
    WEFT_HD static T apply(T a, T b, double s) {                               \
      (void)s;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };
#define WEFT_UNARY_MAP(KIND, EXPR)                                             \
  template <typename T> struct Map<MapKind::KIND, T> {                         \
    WEFT_HD static T apply(T a, T b, double s) {                               \
      (void)b;                                                                 \
      (void)s;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };

WEFT_BINARY_MAP(Add, a + b)
WEFT_BINARY_MAP(Sub, a - b)
WEFT_BINARY_MAP(Mul, a *b)
WEFT_BINARY_MAP(Div, a / b)
WEFT_BINARY_MAP(Max, a > b ? a : b)
WEFT_BINARY_MAP(Min, a < b ? a : b)
WEFT_UNARY_MAP(Neg, -a)
WEFT_UNARY_MAP(Exp, fexp(a))
WEFT_UNARY_MAP(Log, flog(a))
WEFT_UNARY_MAP(Sqrt, fsqrt(a))
WEFT_UNARY_MAP(Rsqrt, T(1) / fsqrt(a))
WEFT_UNARY_MAP(Square, a *a)
WEFT_UNARY_MAP(Tanh, ftanh(a))
WEFT_UNARY_MAP(Relu, a > T(0) ? a : T(0))
// tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
WEFT_UNARY_MAP(Gelu, T(0.5) * a *
                         (T(1) + ftanh(T(0.7978845608028654) *
                                       (a + T(0.044715) * a * a * a))))
// x * sigmoid(x).
WEFT_UNARY_MAP(Silu, a / (T(1) + fexp(-a)))
WEFT_UNARY_MAP(Scale, a *T(s))
WEFT_UNARY_MAP(Shift, a + T(s))

#undef WEFT_BINARY_MAP
#undef WEFT_UNARY_MAP

/// Identity and combine of a reduce kind, in the compute type.
template <ReduceKind K, typename T> struct Reduce;
template <typename T> struct Reduce<ReduceKind::Sum, T> {
  WEFT_HD static T identity() { return T(0); }
  WEFT_HD static T combine(T a, T b) { return a + b; }
};
template <typename T> struct Reduce<ReduceKind::Max, T> {
  WEFT_HD static T identity() { return -T(INFINITY); }
  WEFT_HD static T combine(T a, T b) { return b > a ? b : a; }
};
template <typename T> struct Reduce<ReduceKind::Min, T> {
  WEFT_HD static T identity() { return T(INFINITY); }
  WEFT_HD static T combine(T a, T b) { return b < a ? b : a; }
};

/// Compute type of a storage type (half types compute in float).
template <typename T> struct ComputeType { using type = T; };

/// Calls `f.template operator()<K>()` with the MapKind `k` as a template
/// argument, so kernels are instantiated once per kind.
template <typename F> auto dispatchMap(MapKind k, F &&f) {
  switch (k) {
#define WEFT_CASE(KIND)                                                        \
  case MapKind::KIND:                                                          \
    return f.template operator()<MapKind::KIND>();
    WEFT_CASE(Add)
    WEFT_CASE(Sub)
    WEFT_CASE(Mul)
    WEFT_CASE(Div)
    WEFT_CASE(Max)
    WEFT_CASE(Min)
    WEFT_CASE(Neg)
    WEFT_CASE(Exp)
    WEFT_CASE(Log)
    WEFT_CASE(Sqrt)
    WEFT_CASE(Rsqrt)
    WEFT_CASE(Square)
    WEFT_CASE(Tanh)
    WEFT_CASE(Relu)
    WEFT_CASE(Gelu)
    WEFT_CASE(Silu)
    WEFT_CASE(Scale)
  case MapKind::Shift:
    break;
#undef WEFT_CASE
  }
  return f.template operator()<MapKind::Shift>();
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

} // namespace weft::rt::ops

#endif // WEFT_RT_ELEMENTOPS_H

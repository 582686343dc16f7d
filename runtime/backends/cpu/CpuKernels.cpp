//===- CpuKernels.cpp - Maps, reductions and embedding lookups ------------===//
//
// Plain loops over the plans' iteration spaces, instantiated per kind from
// ElementOps.h. The innermost loop is specialized on unit/zero strides so
// the compiler can vectorize it; the map loops also per ISA (see mapLoop).
//
//===----------------------------------------------------------------------===//

#include "CpuHalf.h"
#include "weft/rt/ElementOps.h"
#include "weft/rt/Error.h"
#include "weft/rt/Philox.h"
#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define WEFT_CPU_MULTIVERSION 1
#define WEFT_ALWAYS_INLINE __attribute__((always_inline))
#include <immintrin.h>
#else
#define WEFT_CPU_MULTIVERSION 0
#define WEFT_ALWAYS_INLINE
#endif

namespace weft::rt {

namespace {

/// Odometer over all but the innermost dim of `shape`, advancing offsets in
/// several stride arrays at once.
template <int N> struct Odometer {
  const Shape &shape;
  std::vector<int64_t> idx;
  int64_t off[N] = {};
  const std::vector<int64_t> *strides[N];

  Odometer(const Shape &s,
           std::initializer_list<const std::vector<int64_t> *> st)
      : shape(s), idx(s.size(), 0) {
    int i = 0;
    for (auto *p : st)
      strides[i++] = p;
  }
  void next() {
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
      for (int k = 0; k < N; ++k)
        off[k] += (*strides[k])[d];
      if (++idx[d] < shape[d])
        return;
      for (int k = 0; k < N; ++k)
        off[k] -= (*strides[k])[d] * shape[d];
      idx[d] = 0;
    }
  }
};

/// f over a contiguous span of floats or doubles, in chunks of 256: a
/// chunk whose every element satisfies `fastRange` runs `fast`, other
/// chunks run `slow`; both give the same bits for in-range elements. The
/// check is one vectorized pass over the chunk (an or-reduction), and both
/// loops vectorize; a chunk is long enough to pipeline, short enough that
/// one out-of-range entry costs little.
template <typename T, typename InRange, typename Fast, typename Slow>
WEFT_ALWAYS_INLINE inline void chunkedSpan(int64_t n, const T *a, T *o,
                                           InRange fastRange, Fast fast,
                                           Slow slow) {
  constexpr int64_t kChunk = 256;
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t len = std::min(kChunk, n - c);
    const T *x = a + c;
    T *y = o + c;
    uint32_t outside = 0;
    for (int64_t i = 0; i < len; ++i)
      outside |= static_cast<uint32_t>(!fastRange(x[i]));
    if (outside == 0)
      for (int64_t i = 0; i < len; ++i)
        y[i] = fast(x[i]);
    else
      for (int64_t i = 0; i < len; ++i)
        y[i] = slow(x[i]);
  }
}

/// Exp: a chunk in ops::fexpNormalRange (softmax's x - max away from masked
/// entries, any moderate argument) runs ops::fexpNormal, the same
/// operations as ops::fexp without its special cases' blends (about half
/// the work); other chunks run ops::fexp. f64 likewise with
/// ops::dexpNormalRange and ops::dexpNormal.
/// exp's normal form and its range per element type: ops::fexpNormal for
/// float, ops::dexpNormal for double.
WEFT_ALWAYS_INLINE inline bool expNormalRange(float x) {
  return ops::fexpNormalRange(x);
}
WEFT_ALWAYS_INLINE inline bool expNormalRange(double x) {
  return ops::dexpNormalRange(x);
}
WEFT_ALWAYS_INLINE inline float expNormal(float x) {
  return ops::fexpNormal(x);
}
WEFT_ALWAYS_INLINE inline double expNormal(double x) {
  return ops::dexpNormal(x);
}

template <typename T>
WEFT_ALWAYS_INLINE inline void expSpan(int64_t n, const T *a, T *o) {
  chunkedSpan(
      n, a, o, [](T x) { return expNormalRange(x); },
      [](T x) { return expNormal(x); }, [](T x) { return ops::fexp(x); });
}

/// Sigmoid, 1 / (1 + exp(-x)), and silu, x / (1 + exp(-x)), the same way:
/// a chunk whose every -x is in the normal range runs the normal exp and
/// the division in one vectorized loop (the same operations on the same
/// values as Map<K, T>::apply there, so the same bits); other chunks run
/// Map<K, T>::apply, whose full exp saturates huge arguments (sigmoid to 0
/// or 1, silu to 0 or x), keeps NaN, +-inf and -0.
template <MapKind K, typename T>
WEFT_ALWAYS_INLINE inline void sigmoidSpan(int64_t n, const T *a, T *o) {
  constexpr bool silu = K == MapKind::Silu;
  chunkedSpan(
      n, a, o, [](T x) { return expNormalRange(-x); },
      [](T x) { return (silu ? x : T(1)) / (T(1) + expNormal(-x)); },
      [](T x) { return ops::Map<K, T>::apply(x, T(0), 0.0); });
}

/// Softplus, max(x, 0) + log1p(exp(-|x|)), the same way: a chunk whose
/// every -|x| is in the normal exp's range (f32: |x| <= 86, f64: 708)
/// runs the normal exp; other chunks Map<Softplus, T>::apply.
template <typename T>
WEFT_ALWAYS_INLINE inline void softplusSpan(int64_t n, const T *a, T *o) {
  chunkedSpan(
      n, a, o, [](T x) { return expNormalRange(x > T(0) ? -x : x); },
      [](T x) {
        return (x > T(0) ? x : T(0)) +
               ops::flog1p(expNormal(x > T(0) ? -x : x));
      },
      [](T x) { return ops::Map<MapKind::Softplus, T>::apply(x, T(0), 0.0); });
}

/// sin or cos: a chunk in ops::trigFastRange (f32: |x| <= 2^19, f64: 2^20;
/// no NaN) runs the branch-free ops::fsinFast / fcosFast; other chunks run
/// ops::fsin / fcos per element (libm for huge arguments).
template <MapKind K, typename T>
WEFT_ALWAYS_INLINE inline void trigSpan(int64_t n, const T *a, T *o) {
  constexpr bool sine = K == MapKind::Sin;
  chunkedSpan(
      n, a, o, [](T x) { return ops::trigFastRange(x); },
      [](T x) { return sine ? ops::fsinFast(x) : ops::fcosFast(x); },
      [](T x) { return sine ? ops::fsin(x) : ops::fcos(x); });
}

/// o[i] = Map<K>(a[i], b, s) for i < n: a contiguous span and a broadcast
/// second operand (a unary map's zero), with expSpan for exp, sigmoidSpan
/// for sigmoid and silu, softplusSpan for softplus and trigSpan for sin and
/// cos.
template <MapKind K, typename T>
WEFT_ALWAYS_INLINE inline void spanWithScalar(int64_t n, const T *a, T b, T *o,
                                              double s) {
  if constexpr (K == MapKind::Exp) {
    expSpan(n, a, o);
  } else if constexpr (K == MapKind::Sigmoid || K == MapKind::Silu) {
    sigmoidSpan<K, T>(n, a, o);
  } else if constexpr (K == MapKind::Softplus) {
    softplusSpan<T>(n, a, o);
  } else if constexpr (K == MapKind::Sin || K == MapKind::Cos) {
    trigSpan<K, T>(n, a, o);
  } else {
    using Op = ops::Map<K, T>;
    for (int64_t i = 0; i < n; ++i)
      o[i] = Op::apply(a[i], b, s);
  }
}

template <MapKind K, typename T>
WEFT_ALWAYS_INLINE inline void mapLoopBody(const MapPlan &p, const T *a,
                                           const T *b, T *out, double s) {
  using Op = ops::Map<K, T>;
  int64_t n = numElements(p.shape);
  if (n == 0)
    return;
  if (p.shape.empty()) {
    out[0] = Op::apply(a[0], b ? b[0] : T(0), s);
    return;
  }
  static const std::vector<int64_t> zeros(p.shape.size(), 0);
  const auto &sa = p.inStrides[0];
  const auto &sb = b ? p.inStrides[1] : zeros;
  int64_t inner = p.shape.back();
  int64_t ia = sa.back(), ib = sb.back();
  Odometer<3> it(p.shape, {&sa, &sb, &p.outStrides});
  const T zero = T(0);
  if (!b) {
    b = &zero;
    ib = 0;
  }
  for (int64_t done = 0; done < n; done += inner, it.next()) {
    const T *x = a + it.off[0];
    const T *y = b + it.off[1];
    T *o = out + it.off[2];
    if (ia == 1 && ib == 1)
      for (int64_t i = 0; i < inner; ++i)
        o[i] = Op::apply(x[i], y[i], s);
    else if (ia == 1 && ib == 0)
      spanWithScalar<K, T>(inner, x, y[0], o, s);
    else if (ia == 0 && ib == 1)
      for (int64_t i = 0; i < inner; ++i)
        o[i] = Op::apply(x[0], y[i], s);
    else
      for (int64_t i = 0; i < inner; ++i)
        o[i] = Op::apply(x[i * ia], y[i * ib], s);
  }
}

// The map loops are compiled three times, for AVX-512, AVX2 and the
// baseline ISA, and the widest the CPU supports runs (checked once). The
// per-element function is the same (ElementOps.h) and this file is built
// with -ffp-contract=off, so every variant gives bit-identical results; only
// the vector width differs (ops::fexp runs ~3.5x faster on 16 lanes than on
// SSE2's 4). With WEFT_RT_FMA (Config.h) the functions' Horner steps are
// fused multiply-adds (ops::ffma): the AVX-512 and AVX2 variants are compiled
// with FMA (the AVX2 one runs only where the CPU has it), and the baseline
// variant calls libm's fmaf, which rounds the same (slower: these loops stay
// scalar there, hence the build switch, docs/runtime.md).
#if WEFT_CPU_MULTIVERSION
template <MapKind K, typename T>
__attribute__((target("avx512f"))) void
mapLoopAvx512(const MapPlan &p, const T *a, const T *b, T *out, double s) {
  mapLoopBody<K, T>(p, a, b, out, s);
}
template <MapKind K, typename T>
__attribute__((target("avx2,fma"))) void
mapLoopAvx2(const MapPlan &p, const T *a, const T *b, T *out, double s) {
  mapLoopBody<K, T>(p, a, b, out, s);
}
enum class Isa { Base, Avx2, Avx512 };
/// The widest ISA the CPU has; $WEFT_RT_ISA=base|avx2 caps it (tests run
/// the narrower variants that way).
Isa detectIsa() {
  // cpuSimdLevel's AVX2 is AVX2 with FMA, which the AVX2 variant needs.
  const cpu::SimdLevel level = cpu::cpuSimdLevel();
  Isa isa = level == cpu::SimdLevel::Avx512 ? Isa::Avx512
            : level == cpu::SimdLevel::Avx2 ? Isa::Avx2
                                            : Isa::Base;
  if (const char *cap = std::getenv("WEFT_RT_ISA")) {
    std::string c = cap;
    if (c == "base")
      isa = Isa::Base;
    else if (c == "avx2" && isa == Isa::Avx512)
      isa = Isa::Avx2;
  }
  return isa;
}
Isa hostIsa() {
  static const Isa isa = detectIsa();
  return isa;
}
#endif

template <MapKind K, typename T>
void mapLoop(const MapPlan &p, const T *a, const T *b, T *out, double s) {
#if WEFT_CPU_MULTIVERSION
  switch (hostIsa()) {
  case Isa::Avx512:
    return mapLoopAvx512<K, T>(p, a, b, out, s);
  case Isa::Avx2:
    return mapLoopAvx2<K, T>(p, a, b, out, s);
  case Isa::Base:
    break;
  }
#endif
  mapLoopBody<K, T>(p, a, b, out, s);
}

//===--- Fused maps -------------------------------------------------------//
// A fused chain (FusedMapPlan) runs per row of the merged iteration space,
// in tiles of at most kFusedTile elements: each step writes its tile into a
// small buffer (L1-resident) that later steps read with stride 1, and the
// last step writes the output directly. Each step is one span loop, the
// same per-element function and storage type as the unfused map, so the
// results are bit-identical to mapKernel's.

constexpr int64_t kFusedTile = 256;

/// out[i] = Map<K>(a[i * sa], b[i * sb], s) for i < n; strides 1 and 0
/// (a broadcast value) get loops of their own so they vectorize. A unary
/// step passes a zero as `b` with stride 0.
template <typename T>
using FusedSpanFn = void (*)(int64_t n, const T *a, int64_t sa, const T *b,
                             int64_t sb, T *out, double s);

template <MapKind K, typename T>
WEFT_ALWAYS_INLINE inline void fusedSpanBody(int64_t n, const T *a, int64_t sa,
                                             const T *b, int64_t sb, T *o,
                                             double s) {
  using Op = ops::Map<K, T>;
  if (sa == 1 && sb == 1)
    for (int64_t i = 0; i < n; ++i)
      o[i] = Op::apply(a[i], b[i], s);
  else if (sa == 1 && sb == 0)
    spanWithScalar<K, T>(n, a, b[0], o, s);
  else if (sa == 0 && sb == 1)
    for (int64_t i = 0; i < n; ++i)
      o[i] = Op::apply(a[0], b[i], s);
  else
    for (int64_t i = 0; i < n; ++i)
      o[i] = Op::apply(a[i * sa], b[i * sb], s);
}

template <MapKind K, typename T>
void fusedSpanBase(int64_t n, const T *a, int64_t sa, const T *b, int64_t sb,
                   T *o, double s) {
  fusedSpanBody<K, T>(n, a, sa, b, sb, o, s);
}
#if WEFT_CPU_MULTIVERSION
template <MapKind K, typename T>
__attribute__((target("avx512f"))) void
fusedSpanAvx512(int64_t n, const T *a, int64_t sa, const T *b, int64_t sb, T *o,
                double s) {
  fusedSpanBody<K, T>(n, a, sa, b, sb, o, s);
}
template <MapKind K, typename T>
__attribute__((target("avx2,fma"))) void
fusedSpanAvx2(int64_t n, const T *a, int64_t sa, const T *b, int64_t sb, T *o,
              double s) {
  fusedSpanBody<K, T>(n, a, sa, b, sb, o, s);
}
#endif

/// The span loop of `kind` for the widest ISA the CPU has (as mapLoop).
template <typename T> FusedSpanFn<T> fusedSpanFor(MapKind kind) {
  return ops::dispatchMap(kind, [&]<MapKind K>() -> FusedSpanFn<T> {
#if WEFT_CPU_MULTIVERSION
    switch (hostIsa()) {
    case Isa::Avx512:
      return &fusedSpanAvx512<K, T>;
    case Isa::Avx2:
      return &fusedSpanAvx2<K, T>;
    case Isa::Base:
      break;
    }
#endif
    return &fusedSpanBase<K, T>;
  });
}

/// Rounds n values in place to a narrower storage type (f16/bf16 steps of
/// a fused op computed in f32: cpu::quantizerFor), or nullptr.
template <typename T> using QuantizeFn = void (*)(T *, int64_t);

template <typename T>
void fusedMapLoop(const FusedMapPlan &p, const std::vector<const void *> &in,
                  T *out, QuantizeFn<T> quantize = nullptr) {
  const int inputs = static_cast<int>(p.inShapes.size());
  const int steps = static_cast<int>(p.steps.size());
  check(inputs >= 1 && inputs <= kMaxFusedInputs &&
            static_cast<int>(in.size()) == inputs && steps >= 1 &&
            steps <= kMaxFusedSteps,
        "fused_map '", p.spec, "': ", in.size(), " buffers for ", inputs,
        " inputs and ", steps, " steps");
  int64_t n = numElements(p.shape);
  if (n == 0)
    return;
  // A rank-0 space is one element: one dim of extent 1.
  const bool scalar = p.shape.empty();
  const Shape shape = scalar ? Shape{1} : p.shape;
  const std::vector<int64_t> zeros(shape.size(), 0);
  std::vector<std::vector<int64_t>> strides;
  for (int i = 0; i < inputs; ++i)
    strides.push_back(scalar ? zeros : p.inStrides[i]);
  strides.push_back(scalar ? zeros : p.outStrides);
  check(scalar || p.outStrides.back() == 1, "fused_map '", p.spec,
        "': the result is not dense along its innermost dim");

  // Per step, resolved once: the span loop, its operands and where its
  // result goes. Step results live in tile buffers, a buffer reused once
  // the last reader of its value has run (a step never writes the buffer
  // it reads).
  std::vector<int> lastUse(inputs + steps, -1);
  for (int j = 0; j < steps; ++j) {
    lastUse[p.steps[j].a] = j;
    if (p.steps[j].b >= 0)
      lastUse[p.steps[j].b] = j;
  }
  struct Step {
    FusedSpanFn<T> fn;
    int a, b;   // value ids (b: -1 for a unary kind)
    int buffer; // tile buffer of the result, -1 for the output
    double scalar;
  };
  std::vector<Step> plan(steps);
  std::vector<int> bufferOf(inputs + steps, -1);
  std::vector<bool> busy;
  for (int j = 0; j < steps; ++j) {
    const FusedStep &fs = p.steps[j];
    Step &st = plan[j];
    st.fn = fusedSpanFor<T>(fs.kind);
    st.a = fs.a;
    st.b = isBinary(fs.kind) ? fs.b : -1;
    st.scalar = fs.scalar;
    st.buffer = -1;
    if (j + 1 < steps) {
      std::size_t slot = 0;
      while (slot < busy.size() && busy[slot])
        ++slot;
      if (slot == busy.size())
        busy.push_back(false);
      busy[slot] = true;
      st.buffer = static_cast<int>(slot);
      bufferOf[inputs + j] = st.buffer;
    }
    for (int id : {st.a, st.b})
      if (id >= inputs && lastUse[id] == j)
        busy[bufferOf[id]] = false;
  }
  alignas(64) T tiles[kMaxFusedSteps - 1][kFusedTile];
  const T zero = T(0);

  const int64_t inner = shape.back();
  std::vector<const T *> base(inputs);
  std::vector<int64_t> innerStride(inputs);
  for (int i = 0; i < inputs; ++i) {
    base[i] = static_cast<const T *>(in[i]);
    innerStride[i] = strides[i].back();
  }
  Odometer<kMaxFusedInputs + 1> it(shape, {});
  for (int i = 0; i <= kMaxFusedInputs; ++i)
    it.strides[i] = i <= inputs ? &strides[i] : &zeros;
  for (int64_t done = 0; done < n; done += inner, it.next()) {
    T *o = out + it.off[inputs];
    for (int64_t t0 = 0; t0 < inner; t0 += kFusedTile) {
      const int64_t len = std::min(kFusedTile, inner - t0);
      // Operand `id` of this tile: a strided input or a tile buffer.
      auto operand = [&](int id, int64_t &stride) -> const T * {
        if (id < 0) {
          stride = 0;
          return &zero;
        }
        if (id < inputs) {
          stride = innerStride[id];
          return base[id] + it.off[id] + t0 * stride;
        }
        stride = 1;
        return tiles[bufferOf[id]];
      };
      for (const Step &st : plan) {
        int64_t sa = 0, sb = 0;
        const T *x = operand(st.a, sa);
        const T *y = operand(st.b, sb);
        T *r = st.buffer < 0 ? o + t0 : tiles[st.buffer];
        st.fn(len, x, sa, y, sb, r, st.scalar);
        if (quantize) // each step stores its half-type value
          quantize(r, len);
      }
    }
  }
}

//===--- Canonical reductions ---------------------------------------------//
// ops::reduceCanonical's order, vectorized: a segment's 32 lanes are an
// array of the accumulation type whose fixed-size loops the compiler maps
// onto vector registers (4 zmm or 8 ymm of f64 for f32 input), each lane
// combining its elements in order, so every variant gives the scalar
// reference's bits. Compiled per ISA like the map loops.

/// The accumulation type of storage type T.
template <typename T> using AccOf = typename ops::AccumType<T>::type;

/// ops::reduceLaneTree with every level's trip count a constant, so that
/// the compiler unrolls it and keeps the lanes in vector registers (its
/// loop over d goes through memory); the same combines in the same order.
template <ReduceKind K, typename A, int D>
WEFT_ALWAYS_INLINE inline void laneTreeLevels(A *acc) {
  for (int i = 0; i < D; ++i)
    acc[i] = ops::Reduce<K, A>::combine(acc[i], acc[i + D]);
  if constexpr (D > 1)
    laneTreeLevels<K, A, D / 2>(acc);
}

/// One segment of the canonical order: x[0..n) contiguous, n <=
/// ops::kReduceSegment.
template <ReduceKind K, typename T, typename A>
WEFT_ALWAYS_INLINE inline A canonicalSegment(const T *x, int64_t n) {
  using R = ops::Reduce<K, A>;
  constexpr int kLanes = ops::kReduceLanes;
  A acc[kLanes];
  for (int j = 0; j < kLanes; ++j)
    acc[j] = R::identity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j)
      acc[j] = R::combine(acc[j], static_cast<A>(x[i + j]));
  for (int j = 0; i + j < n; ++j)
    acc[j] = R::combine(acc[j], static_cast<A>(x[i + j]));
  laneTreeLevels<K, A, kLanes / 2>(acc);
  return acc[0];
}

/// The levels above the first: the canonical reduction of m >= 1 contiguous
/// partials. Few values (n / 2048 for a row of n), so one ISA serves.
template <ReduceKind K, typename A> A canonicalPartials(const A *p, int64_t m) {
  constexpr int64_t kSeg = ops::kReduceSegment;
  if (m <= kSeg)
    return canonicalSegment<K, A, A>(p, m);
  std::vector<A> q(static_cast<std::size_t>(ops::reduceSegments(m)));
  for (std::size_t s = 0; s < q.size(); ++s) {
    const int64_t begin = static_cast<int64_t>(s) * kSeg;
    q[s] = canonicalSegment<K, A, A>(p + begin, std::min(kSeg, m - begin));
  }
  return canonicalPartials<K, A>(q.data(), static_cast<int64_t>(q.size()));
}

/// canonicalSegment of x[0], x[stride], ..., x[(n-1) * stride], n <=
/// ops::kReduceSegment, gathered into a buffer first (a strided row).
template <ReduceKind K, typename T>
WEFT_ALWAYS_INLINE inline AccOf<T>
canonicalSegmentGathered(const T *x, int64_t stride, int64_t n) {
  alignas(64) T gathered[ops::kReduceSegment];
  for (int64_t i = 0; i < n; ++i)
    gathered[i] = x[i * stride];
  return canonicalSegment<K, T, AccOf<T>>(gathered, n);
}

/// The canonical reduction of a row longer than one segment: its segments'
/// partials (contiguous segments inlined here, in the caller's ISA; strided
/// ones through `gathered`), then canonicalPartials.
// GCC (12) warns that `local` may be read uninitialized: m >= 2 partials
// are written before canonicalPartials reads them; zeroing 16 KiB per row
// to quiet it would cost what the row costs.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <ReduceKind K, typename T>
WEFT_ALWAYS_INLINE inline AccOf<T>
canonicalLongRowBody(const T *x, int64_t stride, int64_t n,
                     AccOf<T> (*gathered)(const T *, int64_t, int64_t)) {
  using A = AccOf<T>;
  constexpr int64_t kSeg = ops::kReduceSegment;
  const int64_t m = ops::reduceSegments(n);
  A local[kSeg];
  std::vector<A> heap;
  A *part = local;
  if (m > kSeg) {
    heap.resize(static_cast<std::size_t>(m));
    part = heap.data();
  }
  for (int64_t s = 0; s < m; ++s) {
    const T *seg = x + s * kSeg * stride;
    const int64_t len = std::min(kSeg, n - s * kSeg);
    part[s] = stride == 1 ? canonicalSegment<K, T, A>(seg, len)
                          : gathered(seg, stride, len);
  }
  return canonicalPartials<K, A>(part, m);
}
#pragma GCC diagnostic pop

/// `count` canonical row reductions, rounded to T as the reduce stores
/// them: out[r * outStride] for the row of n elements at x + r * pitch, its
/// elements `stride` apart. Batched so that short rows (softmax over 64)
/// pay one call per batch.
template <typename T>
using CanonicalRowsFn = void (*)(const T *x, int64_t stride, int64_t n,
                                 int64_t count, int64_t pitch, T *out,
                                 int64_t outStride);

/// The per-ISA variants. A contiguous row of at most one segment (the
/// common case: softmax and norm rows) runs in canonicalRow, a function of
/// its own whose small frame keeps the 32 lanes in registers (not inlined
/// into the loop over rows); strided rows and rows longer than a segment go
/// to functions of their own, whose buffers (a gathered segment, the
/// segments' partials) would otherwise put 8-16 KiB on every call's frame.
/// (No lambdas: their bodies would not take the variant's ISA.)
#define WEFT_CANONICAL_ROWS(SUFFIX, TARGET)                                    \
  template <ReduceKind K, typename T>                                          \
  TARGET __attribute__((noinline)) AccOf<T> canonicalGathered##SUFFIX(         \
      const T *x, int64_t stride, int64_t n) {                                 \
    return canonicalSegmentGathered<K, T>(x, stride, n);                       \
  }                                                                            \
  template <ReduceKind K, typename T>                                          \
  TARGET __attribute__((noinline)) AccOf<T> canonicalLongRow##SUFFIX(          \
      const T *x, int64_t stride, int64_t n) {                                 \
    return canonicalLongRowBody<K, T>(x, stride, n,                            \
                                      &canonicalGathered##SUFFIX<K, T>);       \
  }                                                                            \
  template <ReduceKind K, typename T>                                          \
  TARGET __attribute__((noinline)) AccOf<T> canonicalRow##SUFFIX(              \
      const T *x, int64_t stride, int64_t n) {                                 \
    if (n > ops::kReduceSegment)                                               \
      return canonicalLongRow##SUFFIX<K, T>(x, stride, n);                     \
    if (stride != 1)                                                           \
      return canonicalGathered##SUFFIX<K, T>(x, stride, n);                    \
    return canonicalSegment<K, T, AccOf<T>>(x, n);                             \
  }                                                                            \
  template <ReduceKind K, typename T>                                          \
  TARGET void canonicalRows##SUFFIX(const T *x, int64_t stride, int64_t n,     \
                                    int64_t count, int64_t pitch, T *out,      \
                                    int64_t outStride) {                       \
    for (int64_t r = 0; r < count; ++r)                                        \
      out[r * outStride] = static_cast<T>(                                     \
          canonicalRow##SUFFIX<K, T>(x + r * pitch, stride, n));               \
  }
WEFT_CANONICAL_ROWS(Base, )
#if WEFT_CPU_MULTIVERSION
WEFT_CANONICAL_ROWS(Avx512, __attribute__((target("avx512f"))))
WEFT_CANONICAL_ROWS(Avx2, __attribute__((target("avx2,fma"))))
#endif
#undef WEFT_CANONICAL_ROWS

//===--- Short f32 rows on AVX-512 ----------------------------------------===//
// A contiguous f32 row of at most one segment (softmax's rows of 64, a
// norm's rows of 256) reduced with intrinsics: the 32 lanes in registers,
// the tree as shuffles, no spills. Same bits as canonicalSegment's f64
// lanes (FusedRowsTests and ElementTests run both: WEFT_RT_ISA=base takes
// the generic loops):
//
// - max and min run in f32 lanes, not f64: in the canonical order (32
//   lanes, the same tree) each combine selects one of its two operands,
//   and comparing two floats widened to double gives the same answer as
//   comparing the floats, so the same element is selected. A NaN result
//   is quieted, as widening a signaling NaN would. (Which NaN's payload a
//   row with several NaNs yields is outside the bit-identity contract: the
//   tests take any NaN for any other, and the generic loops already differ
//   from the scalar reference there.)
// - the sum accumulates in f64 lanes as the canonical order says: the same
//   additions on the same values.
#if WEFT_CPU_MULTIVERSION
// GCC 12 warns that the intrinsics' own _mm512_undefined_* results "may be
// used uninitialized" (its bug 105593); they are not.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
/// ops::Reduce<K>::combine(a, b) per lane for max and min: b where b > a
/// (b < a) or b is NaN.
template <ReduceKind K>
__attribute__((target("avx512f"))) inline __m512 selectCombine(__m512 a,
                                                               __m512 b) {
  constexpr int cmp = K == ReduceKind::Max ? _CMP_GT_OQ : _CMP_LT_OQ;
  const __mmask16 take =
      _mm512_cmp_ps_mask(b, a, cmp) | _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q);
  return _mm512_mask_mov_ps(a, take, b);
}

/// The canonical max or min of x[0..n), 1 <= n <= kReduceSegment, as the
/// f64-lane reduction rounds it (see above).
template <ReduceKind K>
__attribute__((target("avx512f"))) float canonicalSelectF32(const float *x,
                                                            int64_t n) {
  static_assert(ops::kReduceLanes == 32);
  const float identity = ops::Reduce<K, float>::identity();
  __m512 a0 = _mm512_set1_ps(identity), a1 = a0; // lanes 0-15, 16-31
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = selectCombine<K>(a0, _mm512_loadu_ps(x + i));
    a1 = selectCombine<K>(a1, _mm512_loadu_ps(x + i + 16));
  }
  if (const int64_t rest = n - i; rest > 0) { // lanes < rest combine
    const __mmask16 k0 = rest >= 16 ? 0xffff : (1u << rest) - 1;
    const __mmask16 k1 = rest > 16 ? (1u << (rest - 16)) - 1 : 0;
    a0 = _mm512_mask_mov_ps(
        a0, k0, selectCombine<K>(a0, _mm512_maskz_loadu_ps(k0, x + i)));
    a1 = _mm512_mask_mov_ps(
        a1, k1, selectCombine<K>(a1, _mm512_maskz_loadu_ps(k1, x + i + 16)));
  }
  // The tree: lane i combines lane i + d, d = 16, 8, 4, 2, 1.
  a0 = selectCombine<K>(a0, a1);
  a0 = selectCombine<K>(a0,
                        _mm512_shuffle_f32x4(a0, a0, _MM_SHUFFLE(3, 2, 3, 2)));
  a0 = selectCombine<K>(a0,
                        _mm512_shuffle_f32x4(a0, a0, _MM_SHUFFLE(0, 0, 0, 1)));
  a0 = selectCombine<K>(a0, _mm512_permute_ps(a0, _MM_SHUFFLE(3, 2, 3, 2)));
  a0 = selectCombine<K>(a0, _mm512_permute_ps(a0, _MM_SHUFFLE(1, 1, 1, 1)));
  float m = _mm512_cvtss_f32(a0);
  if (m != m) { // quiet, as the round trip through f64 does
    uint32_t bits;
    std::memcpy(&bits, &m, 4);
    bits |= 0x00400000u;
    std::memcpy(&m, &bits, 4);
  }
  return m;
}

/// Lanes 0-7 and 8-15 of v, widened to f64.
__attribute__((target("avx512f"))) inline __m512d lo(__m512 v) {
  return _mm512_cvtps_pd(_mm512_castps512_ps256(v));
}
__attribute__((target("avx512f"))) inline __m512d hi(__m512 v) {
  return _mm512_cvtps_pd(
      _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

/// The canonical sum of x[0..n), 1 <= n <= kReduceSegment, in f64 lanes.
__attribute__((target("avx512f"))) double canonicalSumF32(const float *x,
                                                          int64_t n) {
  // Lanes 0-7, 8-15, 16-23, 24-31.
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
    s0 = _mm512_add_pd(s0, lo(v0));
    s1 = _mm512_add_pd(s1, hi(v0));
    s2 = _mm512_add_pd(s2, lo(v1));
    s3 = _mm512_add_pd(s3, hi(v1));
  }
  if (const int64_t rest = n - i; rest > 0) { // lanes < rest combine
    const uint32_t k = (1u << rest) - 1;      // rest < 32
    const __m512 v0 = _mm512_maskz_loadu_ps(static_cast<__mmask16>(k), x + i);
    const __m512 v1 =
        _mm512_maskz_loadu_ps(static_cast<__mmask16>(k >> 16), x + i + 16);
    s0 = _mm512_mask_add_pd(s0, static_cast<__mmask8>(k), s0, lo(v0));
    s1 = _mm512_mask_add_pd(s1, static_cast<__mmask8>(k >> 8), s1, hi(v0));
    s2 = _mm512_mask_add_pd(s2, static_cast<__mmask8>(k >> 16), s2, lo(v1));
    s3 = _mm512_mask_add_pd(s3, static_cast<__mmask8>(k >> 24), s3, hi(v1));
  }
  s0 = _mm512_add_pd(s0, s2); // d = 16
  s1 = _mm512_add_pd(s1, s3);
  s0 = _mm512_add_pd(s0, s1); // d = 8
  const __m256d t = _mm256_add_pd(_mm512_castpd512_pd256(s0),
                                  _mm512_extractf64x4_pd(s0, 1)); // d = 4
  const __m128d u = _mm_add_pd(_mm256_castpd256_pd128(t),
                               _mm256_extractf128_pd(t, 1));  // d = 2
  return _mm_cvtsd_f64(_mm_add_sd(u, _mm_unpackhi_pd(u, u))); // d = 1
}

/// canonicalRows for f32 on AVX-512: contiguous rows of at most one
/// segment take the functions above, others canonicalRowAvx512.
template <ReduceKind K>
__attribute__((target("avx512f"))) void
canonicalRowsShortF32(const float *x, int64_t stride, int64_t n, int64_t count,
                      int64_t pitch, float *out, int64_t outStride) {
  if (stride != 1 || n < 1 || n > ops::kReduceSegment)
    return canonicalRowsAvx512<K, float>(x, stride, n, count, pitch, out,
                                         outStride);
  for (int64_t r = 0; r < count; ++r) {
    const float *row = x + r * pitch;
    if constexpr (K == ReduceKind::Sum)
      out[r * outStride] = static_cast<float>(canonicalSumF32(row, n));
    else
      out[r * outStride] = canonicalSelectF32<K>(row, n);
  }
}
#pragma GCC diagnostic pop
#endif

/// The row reductions of `kind` for the widest ISA the CPU has (as
/// mapLoop).
template <typename T> CanonicalRowsFn<T> canonicalRowsFor(ReduceKind kind) {
  return ops::dispatchReduce(kind, [&]<ReduceKind K>() -> CanonicalRowsFn<T> {
#if WEFT_CPU_MULTIVERSION
    switch (hostIsa()) {
    case Isa::Avx512:
      if constexpr (std::is_same_v<T, float>)
        return &canonicalRowsShortF32<K>;
      return &canonicalRowsAvx512<K, T>;
    case Isa::Avx2:
      return &canonicalRowsAvx2<K, T>;
    case Isa::Base:
      break;
    }
#endif
    return &canonicalRowsBase<K, T>;
  });
}

/// A row-ordered reduction (reduceRowOrdered): each output's elements in
/// reduced index order through the canonical row reduction, rounded to T.
/// A single reduced dim is read in place, a batch of rows per line of the
/// innermost kept dim; reduced dims that do not merge (kept ones between
/// them, "ijk->j") are gathered into a row first.
template <typename T>
void reduceRowsLoop(ReduceKind kind, const ReducePlan &p, const T *in, T *out) {
  const CanonicalRowsFn<T> rows = canonicalRowsFor<T>(kind);
  Shape keptShape, redShape;
  std::vector<int64_t> keptIn, keptOut, redIn;
  for (std::size_t d = 0; d < p.shape.size(); ++d) {
    if (p.outStrides[d] != 0) {
      keptShape.push_back(p.shape[d]);
      keptIn.push_back(p.inStrides[d]);
      keptOut.push_back(p.outStrides[d]);
    } else {
      redShape.push_back(p.shape[d]);
      redIn.push_back(p.inStrides[d]);
    }
  }
  const int64_t n = numElements(redShape);
  if (keptShape.empty()) { // one output
    keptShape.push_back(1);
    keptIn.push_back(0);
    keptOut.push_back(0);
  }
  const int64_t inner = keptShape.back();
  const int64_t pitch = keptIn.back(), outStride = keptOut.back();
  Odometer<2> it(keptShape, {&keptIn, &keptOut});
  if (redShape.size() == 1) {
    for (int64_t done = 0; done < p.outElements; done += inner, it.next())
      rows(in + it.off[0], 1, n, inner, pitch, out + it.off[1], outStride);
    return;
  }
  std::vector<T> gathered(static_cast<std::size_t>(n));
  const int64_t run = redShape.back(); // stride 1 (row-ordered)
  for (int64_t done = 0; done < p.outElements; done += inner, it.next())
    for (int64_t o = 0; o < inner; ++o) {
      const T *x = in + it.off[0] + o * pitch;
      Odometer<1> r(redShape, {&redIn});
      for (int64_t g = 0; g < n; g += run, r.next())
        std::memcpy(gathered.data() + g, x + r.off[0],
                    static_cast<std::size_t>(run) * sizeof(T));
      rows(gathered.data(), 1, n, 1, 0, out + it.off[1] + o * outStride, 0);
    }
}

/// The sequential reduction loop (reductions that are not row-ordered),
/// combining into `out` of the accumulation type A: each output's elements
/// in reduced index order, from the identity.
template <ReduceKind K, typename T, typename A>
void reduceInto(const ReducePlan &p, const T *in, A *out) {
  using R = ops::Reduce<K, A>;
  for (int64_t i = 0; i < p.outElements; ++i)
    out[i] = R::identity();
  int64_t n = numElements(p.shape);
  if (n == 0 || p.outElements == 0)
    return;
  if (p.shape.empty()) {
    out[0] = R::combine(out[0], static_cast<A>(in[0]));
    return;
  }
  int64_t inner = p.shape.back();
  int64_t si = p.inStrides.back(), so = p.outStrides.back();
  Odometer<2> it(p.shape, {&p.inStrides, &p.outStrides});
  for (int64_t done = 0; done < n; done += inner, it.next()) {
    const T *x = in + it.off[0];
    A *o = out + it.off[1];
    if (so == 0) {
      A acc = R::identity();
      if (si == 1)
        for (int64_t i = 0; i < inner; ++i)
          acc = R::combine(acc, static_cast<A>(x[i]));
      else
        for (int64_t i = 0; i < inner; ++i)
          acc = R::combine(acc, static_cast<A>(x[i * si]));
      o[0] = R::combine(o[0], acc);
    } else if (si == 1 && so == 1) {
      for (int64_t i = 0; i < inner; ++i)
        o[i] = R::combine(o[i], static_cast<A>(x[i]));
    } else {
      for (int64_t i = 0; i < inner; ++i)
        o[i * so] = R::combine(o[i * so], static_cast<A>(x[i * si]));
    }
  }
}

/// The reductions that are not row-ordered (over outer letters, as a bias
/// gradient bd->d; row-ordered ones run reduceRowsLoop). f32 accumulates in
/// f64 (ops::AccumType), in an f64 copy of the output.
template <ReduceKind K, typename T>
void reduceLoop(const ReducePlan &p, const T *in, T *out) {
  using A = AccOf<T>;
  if constexpr (std::is_same_v<A, T>) {
    reduceInto<K, T, T>(p, in, out);
  } else {
    std::vector<A> acc(static_cast<std::size_t>(p.outElements));
    reduceInto<K, T, A>(p, in, acc.data());
    for (int64_t i = 0; i < p.outElements; ++i)
      out[i] = static_cast<T>(acc[i]);
  }
}

//===--- Fused rows -------------------------------------------------------//
// A fused row chain (FusedRowsPlan) runs a tile of rows at a time: one row
// when rows are long, else enough rows for about kRowsTile elements, so that
// short rows (softmax over 64) pay each step's call once per tile. A full
// value of the tile is one buffer of rows x rowLength elements, rows
// back-to-back (a full input whose tile is not in that layout in memory is
// gathered); row values are arrays of T, one per row. Each full map step
// runs the span loop of the fused maps over the tile (the unfused map's
// per-element function, vectorized); one whose other operand is a row
// value (softmax's sub and div) runs it per row with the row value as a
// broadcast scalar; a map of row values runs it over the tile's rows; a
// reduction runs the canonical row reduction of the standalone reduce
// (reduceRowsLoop) and rounds to T as it stores: the unfused chain's bits.

constexpr int64_t kRowsTile = 1024;

/// Rows per tile of a chain with rows of n elements.
int64_t fusedRowsPerTile(int64_t n) {
  return n > 0 && n < kRowsTile ? kRowsTile / n : 1;
}

/// The distance between two tile buffers: a tile of rows x n elements
/// rounded up to 16 elements, so every buffer is 64-byte aligned (as the
/// pool's tensors are) when the first is.
int64_t fusedRowsPitch(int64_t n) {
  return (fusedRowsPerTile(n) * n + 15) / 16 * 16;
}

/// Elements of scratch the loop needs for a plan: a tile buffer per input
/// and per step.
std::size_t fusedRowsScratch(const FusedRowsPlan &p) {
  std::size_t all = 0;
  const std::size_t buffers = p.inShapes.size() + p.steps.size();
  check(p.rowLength <= (int64_t(1) << 56) &&
            !__builtin_mul_overflow(
                static_cast<std::size_t>(fusedRowsPitch(p.rowLength)), buffers,
                &all) &&
            all <= (std::size_t(1) << 60),
        "fused_rows '", p.spec, "': row buffers of ", p.rowLength,
        " elements are too large");
  return all;
}

template <typename T>
WEFT_ALWAYS_INLINE inline void
fusedRowsLoopBody(const FusedRowsPlan &p, const std::vector<const void *> &in,
                  T *out, T *scratch, QuantizeFn<T> quantize) {
  const int inputs = static_cast<int>(p.inShapes.size());
  const int steps = static_cast<int>(p.steps.size());
  const int values = inputs + steps;
  const int64_t n = p.rowLength;
  if (p.rows == 0)
    return;
  const int64_t tileRows = fusedRowsPerTile(n), pitch = fusedRowsPitch(n);
  // Buffers: value id's at scratch + id * pitch. The lambdas are inlined,
  // so they take the ISA of the variant (below).
  auto buffer = [&](int k) WEFT_ALWAYS_INLINE { return scratch + k * pitch; };

  // Per step, resolved once: its loop.
  enum class Kind { FullMap, RowMap, Reduce };
  struct Step {
    Kind kind;
    FusedSpanFn<T> span;    // FullMap, RowMap
    CanonicalRowsFn<T> row; // Reduce
    int a, b;               // value ids (b: -1 for one operand)
    double scalar;
  };
  std::vector<Step> plan(steps);
  for (int j = 0; j < steps; ++j) {
    const FusedRowStep &fs = p.steps[j];
    Step &st = plan[j];
    st.a = fs.a;
    st.b = !fs.reduce && isBinary(fs.kind) ? fs.b : -1;
    st.scalar = fs.scalar;
    st.span = nullptr;
    st.row = nullptr;
    if (fs.reduce) {
      st.kind = Kind::Reduce;
      st.row = canonicalRowsFor<T>(fs.reduceKind);
    } else {
      st.kind = p.full[inputs + j] ? Kind::FullMap : Kind::RowMap;
      st.span = fusedSpanFor<T>(fs.kind);
    }
  }

  // The kept dims, walked row by row: an innermost extent-1 dim makes the
  // odometer step over every kept dim. Offsets of inputs 0..inputs-1 and
  // the result (at `inputs`).
  Shape shape = p.keptShape;
  shape.push_back(1);
  std::vector<std::vector<int64_t>> strides;
  for (int i = 0; i < inputs; ++i) {
    strides.push_back(p.inKeptStrides[i]);
    strides.back().push_back(0);
  }
  strides.push_back(p.outKeptStrides);
  strides.back().push_back(0);
  const std::vector<int64_t> zeros(shape.size(), 0);
  Odometer<kMaxFusedInputs + 1> it(shape, {});
  for (int i = 0; i <= kMaxFusedInputs; ++i)
    it.strides[i] = i <= inputs ? &strides[i] : &zeros;

  // Per row of the tile: offsets (off[k * tileRows + r]) and row values
  // (rowValue[id * tileRows + r]). Per full value: its tile and the stride
  // of its elements (rows are n apart in a tile of several rows).
  std::vector<int64_t> off(static_cast<std::size_t>((inputs + 1) * tileRows));
  std::vector<T> rowValue(static_cast<std::size_t>(values * tileRows));
  const T *fullData[kMaxFusedInputs + kMaxFusedSteps];
  int64_t fullStride[kMaxFusedInputs + kMaxFusedSteps];
  const T zero = T(0);
  // Operand `id` (a full value, or -1: a unary step's zero) of a full
  // step: its tile and the stride of its elements.
  auto fullOperand = [&](int id, int64_t &stride)
                         WEFT_ALWAYS_INLINE -> const T * {
    if (id < 0) {
      stride = 0;
      return &zero;
    }
    stride = fullStride[id];
    return fullData[id];
  };
  // Whether the tile's rows of operand k lie back-to-back in memory.
  auto backToBack = [&](int k, int64_t rows) WEFT_ALWAYS_INLINE {
    for (int64_t r = 1; r < rows; ++r)
      if (off[k * tileRows + r] != off[k * tileRows] + r * n)
        return false;
    return true;
  };

  const bool fullResult = p.full[values - 1];
  for (int64_t first = 0; first < p.rows; first += tileRows) {
    const int64_t rows = std::min(tileRows, p.rows - first);
    for (int64_t r = 0; r < rows; ++r, it.next())
      for (int k = 0; k <= inputs; ++k)
        off[k * tileRows + r] = it.off[k];
    for (int i = 0; i < inputs; ++i) {
      const T *x = static_cast<const T *>(in[i]);
      const int64_t *o = &off[i * tileRows];
      if (!p.full[i]) {
        for (int64_t r = 0; r < rows; ++r)
          rowValue[i * tileRows + r] = x[o[r]];
        continue;
      }
      const int64_t rs = p.inRowStrides[i];
      if (rows == 1 || (rs == 1 && backToBack(i, rows))) {
        fullData[i] = x + o[0];
        fullStride[i] = rows == 1 ? rs : 1;
        continue;
      }
      T *g = buffer(i);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t e = 0; e < n; ++e)
          g[r * n + e] = x[o[r] + e * rs];
      fullData[i] = g;
      fullStride[i] = 1;
    }
    // A full result is dense (kept letters, then the row): the tile's rows
    // are back-to-back there.
    T *result = out + off[inputs * tileRows];
    for (int j = 0; j < steps; ++j) {
      const Step &st = plan[j];
      const int id = inputs + j;
      switch (st.kind) {
      case Kind::Reduce:
        // A reduction reads a full value: rows n apart in a tile of
        // several rows.
        st.row(fullData[st.a], fullStride[st.a], n, rows, n,
               &rowValue[id * tileRows], 1);
        if (quantize)
          quantize(&rowValue[id * tileRows], rows);
        break;
      case Kind::FullMap: {
        T *dst = j + 1 == steps ? result : buffer(id);
        fullData[id] = dst;
        fullStride[id] = 1;
        // A full value and a row value (softmax's sub and div; the step is
        // full, so the other operand is): a span per row with the row value
        // as a broadcast scalar. Rows are n apart in a tile of several
        // rows; a single row may be read at a stride.
        const int rowOperand = !p.full[st.a]                ? st.a
                               : st.b >= 0 && !p.full[st.b] ? st.b
                                                            : -1;
        if (rowOperand >= 0) {
          const int fullOp = rowOperand == st.a ? st.b : st.a;
          const T *f = fullData[fullOp];
          const int64_t fs = fullStride[fullOp];
          const T *v = &rowValue[rowOperand * tileRows];
          for (int64_t r = 0; r < rows; ++r) {
            if (rowOperand == st.b)
              st.span(n, f + r * n, fs, v + r, 0, dst + r * n, st.scalar);
            else
              st.span(n, v + r, 0, f + r * n, fs, dst + r * n, st.scalar);
          }
          if (quantize)
            quantize(dst, rows * n);
          break;
        }
        int64_t sa = 0, sb = 0;
        const T *x = fullOperand(st.a, sa);
        const T *y = fullOperand(st.b, sb);
        st.span(rows * n, x, sa, y, sb, dst, st.scalar);
        if (quantize)
          quantize(dst, rows * n);
        break;
      }
      case Kind::RowMap: {
        const bool binary = st.b >= 0;
        st.span(rows, &rowValue[st.a * tileRows], 1,
                binary ? &rowValue[st.b * tileRows] : &zero, binary ? 1 : 0,
                &rowValue[id * tileRows], st.scalar);
        if (quantize)
          quantize(&rowValue[id * tileRows], rows);
        break;
      }
      }
    }
    if (!fullResult)
      for (int64_t r = 0; r < rows; ++r)
        out[off[inputs * tileRows + r]] = rowValue[(values - 1) * tileRows + r];
  }
}

// The loop's own work (gathers, expansions, copies) per ISA too; the steps
// call the span and row loops of the widest ISA in any case.
template <typename T>
void fusedRowsLoopBase(const FusedRowsPlan &p,
                       const std::vector<const void *> &in, T *out, T *scratch,
                       QuantizeFn<T> quantize) {
  fusedRowsLoopBody<T>(p, in, out, scratch, quantize);
}
#if WEFT_CPU_MULTIVERSION
template <typename T>
__attribute__((target("avx512f"))) void
fusedRowsLoopAvx512(const FusedRowsPlan &p, const std::vector<const void *> &in,
                    T *out, T *scratch, QuantizeFn<T> quantize) {
  fusedRowsLoopBody<T>(p, in, out, scratch, quantize);
}
template <typename T>
__attribute__((target("avx2,fma"))) void
fusedRowsLoopAvx2(const FusedRowsPlan &p, const std::vector<const void *> &in,
                  T *out, T *scratch, QuantizeFn<T> quantize) {
  fusedRowsLoopBody<T>(p, in, out, scratch, quantize);
}
#endif

//===--- Softmax rows in one pass -----------------------------------------===//
// The fused chain max, sub, exp, sum, div over contiguous f32 rows of at
// most one canonical segment (attention's rows of 64) runs on AVX-512 and
// AVX2 as one pass per row (SoftmaxRows.inc, compiled once per ISA): the row is
// read once, its x - max and exp stay in an L1 buffer, the result is written
// once, and four rows run side by side. The generic loop above spends most of
// the chain's time in its two per-row reductions (f64 lanes, trees through
// memory) and in per-step calls. Same bits as the generic loop and the unfused
// ops (FusedRowsTests, weft-rt-bench-fused-rows): the sum is the short-row
// reduction above; the max is a plain one, which gives the same results
// (rowMaxAndLow); sub, exp (expSpan's rule, per row) and div are the span
// loops' operations on the same values, the division's subnormal quotients
// computed exactly (softmaxDivide).

#if WEFT_CPU_MULTIVERSION
/// Whether `p` is that chain over rows that qualify: fusedSoftmaxSteps of
/// one input, or fusedMaskedSoftmaxSteps of two full inputs (the add's
/// operands in either order: IEEE addition commutes), every row contiguous.
bool isSoftmaxRows(const FusedRowsPlan &p) {
  const std::size_t nIn = p.inShapes.size();
  if ((nIn != 1 && nIn != 2) || p.steps.size() != 4 + nIn ||
      p.outRowStride != 1 || p.rowLength < 1 ||
      p.rowLength > ops::kReduceSegment)
    return false;
  for (std::size_t i = 0; i < nIn; ++i)
    if (!p.full[i] || p.inRowStrides[i] != 1)
      return false;
  auto map = [](const FusedRowStep &st, MapKind k, int a, int b) {
    return !st.reduce && st.kind == k && st.a == a && st.b == b;
  };
  auto reduce = [](const FusedRowStep &st, ReduceKind k, int a) {
    return st.reduce && st.reduceKind == k && st.a == a;
  };
  const std::vector<FusedRowStep> &s = p.steps;
  const int x = static_cast<int>(nIn) - 1 + (nIn == 2); // the logits' id
  if (nIn == 2 && !map(s[0], MapKind::Add, 0, 1) &&
      !map(s[0], MapKind::Add, 1, 0))
    return false;
  const FusedRowStep *t = s.data() + (nIn - 1); // the softmax's 5 steps
  return reduce(t[0], ReduceKind::Max, x) &&
         map(t[1], MapKind::Sub, x, x + 1) &&
         map(t[2], MapKind::Exp, x + 2, -1) &&
         reduce(t[3], ReduceKind::Sum, x + 3) &&
         map(t[4], MapKind::Div, x + 3, x + 4);
}

/// Whether fusedRowsLoop runs `p` (f32, no rounding between steps) in
/// softmaxRows (avx512:: or avx2::).
bool takesSoftmaxKernel(const FusedRowsPlan &p) {
  return hostIsa() != Isa::Base && isSoftmaxRows(p);
}

/// Which exp a softmax row's arguments x - max take, from the widest class
/// they fall in: every one in the normal range; each in it or below exp's
/// underflow (a row under an additive or -inf mask); other (arguments
/// between, NaN, infinities). A wider kind's exp gives a narrower row's
/// bits too.
enum class SoftmaxExp { Normal, NormalOrZero, Full };

/// exp(d) as `K` computes it.
template <SoftmaxExp K> WEFT_ALWAYS_INLINE inline float softmaxExp(float d) {
  if constexpr (K == SoftmaxExp::Normal)
    return expNormal(d);
  else if constexpr (K == SoftmaxExp::NormalOrZero) {
    const bool under = ops::fexpUnderflows(d);
    return ops::fblend(under, 0.0f, expNormal(ops::fblend(under, 0.0f, d)));
  } else
    return ops::fexp(d);
}

/// Rows per group of the one-pass softmax (softmaxRows in SoftmaxRows.inc):
/// each row is a chain of dependent steps (its max, the exp, the sum's
/// tree, the division), so several rows' steps side by side keep the
/// vector units busy. Four measured fastest on AVX-512 (docs/fusion.md).
constexpr int kSoftmaxRows = 4;

/// The bits of s 2^-126 for softmaxDivide's row sum s, 0 where no lane
/// takes its exact path: an exp e > 0 whose bits lie below it has a
/// subnormal quotient e / s. Only for s in [1, 2^24) (always, for a finite
/// row), where s 2^-126 is exact and normal; a NaN or infinite row's
/// quotients divide as usual.
inline uint32_t subnormalQuotientBound(float s) {
  uint32_t bits;
  std::memcpy(&bits, &s, 4);
  return bits >= 0x3f800000u && bits < 0x4b800000u ? bits - (126u << 23) : 0;
}

// GCC 12's bug 105593 again (see the short rows above).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
namespace avx512 {
#pragma GCC push_options
#pragma GCC target("avx512f")
/// The max of x[0..n), 1 <= n, and a lower bound `low` that is the least
/// element where the row holds no NaN: for softmax, whose result does not
/// depend on which maximum it subtracts where the canonical max would
/// differ (x - +0 and x - -0 have the same exp; a row with a NaN is NaN
/// throughout either way, through its sum). Plain vmaxps/vminps, cheaper
/// than the canonical select (canonicalSelectF32).
__attribute__((target("avx512f"))) float rowMaxAndLow(const float *x, int64_t n,
                                                      float *low) {
  __m512 hi = _mm512_set1_ps(-INFINITY), lo = _mm512_set1_ps(INFINITY);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = n - i >= 16 ? 0xffff : (1u << (n - i)) - 1;
    const __m512 v = _mm512_maskz_loadu_ps(k, x + i);
    hi = _mm512_mask_max_ps(hi, k, hi, v);
    lo = _mm512_mask_min_ps(lo, k, lo, v);
  }
  *low = _mm512_reduce_min_ps(lo);
  return _mm512_reduce_max_ps(hi);
}

/// e[0..n) / s, stored to y, for softmax's e = exp(x - max) >= 0 (or NaN)
/// and its row sum s: IEEE division, with no arithmetic on subnormals.
///
/// Where the quotient is subnormal (a row whose logits spread more than
/// about 87, or a long row), the division would take a microcode assist on
/// x86 (weft-rt-bench-fused-rows, logits in +-100: 3.2 ns per element
/// before, 1.9 with this and the row's exp decided up front). When s
/// is in [1, 2^24) (always, for a finite row: its max contributes exp(0) =
/// 1), a lane with e < s 2^-126 has a quotient below 2^-126, and its bits
/// are the integer N = round(Q), Q = E / s, E = e 2^149 (an integer): it
/// is computed in f64 as round(E / s) by adding 2^52. That rounds as the
/// division does. E / s in f64 is within 2^-53 Q < 2^-30 of Q, while a Q
/// that is not a half-integer lies at least 2^-25 from every half-integer
/// (E - h s is a nonzero multiple of 2^(e_s - 24), s < 2^(e_s + 1)); a Q
/// that is one is exact in f64 and ties to even like the division. A Q
/// that rounds up to 2^23 gives N = 2^23, the bits of 2^-126. E is the
/// integer of e's bits where e is subnormal (converting a subnormal to f64
/// would be an assist too), e 2^149 otherwise. Other lanes divide as usual.
/// `Rare`: subnormal quotients are rare (a masked row: its exps are normal
/// or 0), and a block of 16 without them skips the f64 path; otherwise (a
/// row spread beyond exp's range) every block takes both, with no branch to
/// mispredict (measured: 2.0 against 1.7 ns per element on rows in +-100;
/// on causal rows, 1.3 against 1.0 the other way).
template <bool Rare>
__attribute__((target("avx512f"))) void softmaxDivide(const float *e, float s,
                                                      float *y, int64_t n) {
  const uint32_t bound = subnormalQuotientBound(s);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i thr1 =
      _mm512_set1_epi32(bound ? static_cast<int>(bound - 1) : 0);
  const __m512 vs = _mm512_set1_ps(s);
  const __m512d ds = _mm512_set1_pd(static_cast<double>(s));
  const __m512d two52 = _mm512_set1_pd(0x1p52),
                two149 = _mm512_set1_pd(0x1p149);
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 k = n - j >= 16 ? 0xffff : (1u << (n - j)) - 1;
    const __m512 v = _mm512_maskz_loadu_ps(k, e + j);
    const __m512i vb = _mm512_castps_si512(v);
    // 0 < e < s 2^-126 as unsigned bits, e - 1 < thr - 1: e >= 0, a NaN's
    // bits lie above, and a zero (a masked logit's exp) divides as usual.
    const __mmask16 tiny =
        _mm512_mask_cmplt_epu32_mask(k, _mm512_sub_epi32(vb, one), thr1);
    if (Rare && tiny == 0) {
      _mm512_mask_storeu_ps(y + j, k, _mm512_div_ps(v, vs));
      continue;
    }
    // Tiny lanes divide s / s here, and are replaced below.
    __m512 q = _mm512_div_ps(_mm512_mask_mov_ps(v, tiny, vs), vs);
    const __mmask16 sub =
        _mm512_cmplt_epu32_mask(vb, _mm512_set1_epi32(0x00800000));
    const __m512 vn = _mm512_mask_mov_ps(v, sub, _mm512_set1_ps(1.0f));
    __m256i half[2];
    for (int h = 0; h < 2; ++h) {
      const __m256i bits =
          h ? _mm512_extracti64x4_epi64(vb, 1) : _mm512_castsi512_si256(vb);
      const __m256 fn = _mm256_castsi256_ps(
          h ? _mm512_extracti64x4_epi64(_mm512_castps_si512(vn), 1)
            : _mm512_castsi512_si256(_mm512_castps_si512(vn)));
      const __mmask8 subH = static_cast<__mmask8>(sub >> (8 * h));
      __m512d ed = _mm512_mul_pd(_mm512_cvtps_pd(fn), two149);
      ed = _mm512_mask_mov_pd(ed, subH, _mm512_cvtepu32_pd(bits));
      const __m512d t = _mm512_add_pd(_mm512_div_pd(ed, ds), two52);
      half[h] = _mm512_cvtepi64_epi32(
          _mm512_sub_epi64(_mm512_castpd_si512(t), _mm512_castpd_si512(two52)));
    }
    const __m512i nInt =
        _mm512_inserti64x4(_mm512_castsi256_si512(half[0]), half[1], 1);
    q = _mm512_mask_mov_ps(q, tiny, _mm512_castsi512_ps(nInt));
    _mm512_mask_storeu_ps(y + j, k, q);
  }
}

/// The canonical sum of a short f32 row (canonicalSumF32).
inline double rowSum(const float *x, int64_t n) {
  return canonicalSumF32(x, n);
}

#include "SoftmaxRows.inc"
#pragma GCC pop_options
} // namespace avx512

namespace avx2 {
#pragma GCC push_options
#pragma GCC target("avx2,fma")
/// rowMaxAndLow on AVX2: the same plain max and min (vmaxps/vminps), eight
/// lanes at a time; lanes past n hold -inf and +inf.
__attribute__((target("avx2,fma"))) float rowMaxAndLow(const float *x,
                                                       int64_t n, float *low) {
  const __m256 ninf = _mm256_set1_ps(-INFINITY),
               pinf = _mm256_set1_ps(INFINITY);
  __m256 hi = ninf, lo = pinf;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    hi = _mm256_max_ps(hi, v);
    lo = _mm256_min_ps(lo, v);
  }
  if (i < n) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i k =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)), lane);
    const __m256 v = _mm256_maskload_ps(x + i, k);
    const __m256 km = _mm256_castsi256_ps(k);
    hi = _mm256_max_ps(hi, _mm256_blendv_ps(ninf, v, km));
    lo = _mm256_min_ps(lo, _mm256_blendv_ps(pinf, v, km));
  }
  alignas(32) float h[8], l[8];
  _mm256_store_ps(h, hi);
  _mm256_store_ps(l, lo);
  float mx = h[0], mn = l[0];
  for (int j = 1; j < 8; ++j) {
    mx = h[j] > mx ? h[j] : mx;
    mn = l[j] < mn ? l[j] : mn;
  }
  *low = mn;
  return mx;
}

/// The canonical sum of x[0..n), 1 <= n <= kReduceSegment, in f64 lanes on
/// AVX2: canonicalSumF32's lanes (lane i of 32 takes elements i, i + 32,
/// ...) in eight vectors of four, and its tree. Lanes past n add +0, which
/// leaves every partial as it is (a partial is never -0: it starts at +0).
__attribute__((target("avx2,fma"))) double rowSum(const float *x, int64_t n) {
  __m256d s[8];
  for (__m256d &v : s)
    v = _mm256_setzero_pd();
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t i = 0; i < n; i += 32)
    for (int q = 0; q < 4; ++q) {
      const int64_t at = i + 8 * q;
      if (at >= n)
        break;
      __m256 v;
      if (at + 8 <= n)
        v = _mm256_loadu_ps(x + at);
      else
        v = _mm256_maskload_ps(
            x + at, _mm256_cmpgt_epi32(
                        _mm256_set1_epi32(static_cast<int>(n - at)), lane));
      s[2 * q] =
          _mm256_add_pd(s[2 * q], _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
      s[2 * q + 1] = _mm256_add_pd(
          s[2 * q + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
  for (int q = 0; q < 4; ++q) // d = 16
    s[q] = _mm256_add_pd(s[q], s[q + 4]);
  for (int q = 0; q < 2; ++q) // d = 8
    s[q] = _mm256_add_pd(s[q], s[q + 2]);
  const __m256d t = _mm256_add_pd(s[0], s[1]); // d = 4
  const __m128d u = _mm_add_pd(_mm256_castpd256_pd128(t),
                               _mm256_extractf128_pd(t, 1));  // d = 2
  return _mm_cvtsd_f64(_mm_add_sd(u, _mm_unpackhi_pd(u, u))); // d = 1
}

/// softmaxDivide on AVX2: the same quotients. A block of eight with no
/// subnormal quotient divides as usual; in one with some, those lanes
/// divide s / s and are replaced by avx512::softmaxDivide's exact f64
/// quotient, computed lane by lane (AVX2 has no unsigned compare, no
/// conversion of u32 or i64; these blocks are rare: spread rows only).
/// `Rare` is the AVX-512 variant's hint, the same code here.
template <bool Rare>
__attribute__((target("avx2,fma"))) void softmaxDivide(const float *e, float s,
                                                       float *y, int64_t n) {
  // 0 < bits < thr as signed: e > 0 and below s 2^-126; a NaN, with or
  // without its sign, is outside.
  const __m256i thr =
      _mm256_set1_epi32(static_cast<int>(subnormalQuotientBound(s)));
  const __m256i zero = _mm256_setzero_si256();
  const __m256 vs = _mm256_set1_ps(s);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const double ds = s;
  for (int64_t j = 0; j < n; j += 8) {
    const bool full = n - j >= 8;
    const __m256i k =
        full ? _mm256_set1_epi32(-1)
             : _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - j)),
                                  lane);
    const __m256 v =
        full ? _mm256_loadu_ps(e + j) : _mm256_maskload_ps(e + j, k);
    const __m256i vb = _mm256_castps_si256(v);
    const __m256i tiny =
        _mm256_and_si256(k, _mm256_and_si256(_mm256_cmpgt_epi32(vb, zero),
                                             _mm256_cmpgt_epi32(thr, vb)));
    const int tinyBits = _mm256_movemask_ps(_mm256_castsi256_ps(tiny));
    __m256 q =
        _mm256_div_ps(_mm256_blendv_ps(v, vs, _mm256_castsi256_ps(tiny)), vs);
    if (tinyBits) {
      alignas(32) float qs[8];
      alignas(32) uint32_t eb[8];
      _mm256_store_ps(qs, q);
      _mm256_store_si256(reinterpret_cast<__m256i *>(eb), vb);
      for (int l = 0; l < 8; ++l) {
        if (!(tinyBits >> l & 1))
          continue;
        float el;
        std::memcpy(&el, &eb[l], 4);
        const double E = eb[l] < 0x00800000u
                             ? static_cast<double>(eb[l])
                             : static_cast<double>(el) * 0x1p149;
        const double t = E / ds + 0x1p52;
        uint64_t tb, two52;
        const double c52 = 0x1p52;
        std::memcpy(&tb, &t, 8);
        std::memcpy(&two52, &c52, 8);
        const uint32_t nInt = static_cast<uint32_t>(tb - two52);
        std::memcpy(&qs[l], &nInt, 4);
      }
      q = _mm256_load_ps(qs);
    }
    if (full)
      _mm256_storeu_ps(y + j, q);
    else
      _mm256_maskstore_ps(y + j, k, q);
  }
}

#include "SoftmaxRows.inc"
#pragma GCC pop_options
} // namespace avx2
#pragma GCC diagnostic pop
#endif

template <typename T>
void fusedRowsLoop(const FusedRowsPlan &p, const std::vector<const void *> &in,
                   T *out, T *scratch, QuantizeFn<T> quantize = nullptr) {
#if WEFT_CPU_MULTIVERSION
  if constexpr (std::is_same_v<T, float>)
    if (!quantize && takesSoftmaxKernel(p)) {
      const float *x = static_cast<const float *>(in[0]);
      const float *mask =
          in.size() == 2 ? static_cast<const float *>(in[1]) : nullptr;
      return hostIsa() == Isa::Avx512 ? avx512::softmaxRows(p, x, mask, out)
                                      : avx2::softmaxRows(p, x, mask, out);
    }
  switch (hostIsa()) {
  case Isa::Avx512:
    return fusedRowsLoopAvx512<T>(p, in, out, scratch, quantize);
  case Isa::Avx2:
    return fusedRowsLoopAvx2<T>(p, in, out, scratch, quantize);
  case Isa::Base:
    break;
  }
#endif
  fusedRowsLoopBase<T>(p, in, out, scratch, quantize);
}

template <typename T>
void embedLoop(const EmbedPlan &p, const int32_t *ids, const T *table, T *out,
               int64_t rowOffset) {
  if (p.rowCopy) {
    for (int64_t i = 0; i < p.numIds; ++i) {
      int64_t r = static_cast<int64_t>(ids[i]) - rowOffset;
      T *o = out + i * p.rowElements;
      if (r >= 0 && r < p.rows)
        std::memcpy(o, table + r * p.rowStride,
                    static_cast<std::size_t>(p.rowElements) * sizeof(T));
      else
        for (int64_t j = 0; j < p.rowElements; ++j)
          o[j] = T(0);
    }
    return;
  }
  int64_t n = numElements(p.shape);
  if (n == 0)
    return;
  if (p.shape.empty()) {
    int64_t r = static_cast<int64_t>(ids[0]) - rowOffset;
    out[0] = (r >= 0 && r < p.rows) ? table[r * p.rowStride] : T(0);
    return;
  }
  int64_t inner = p.shape.back();
  int64_t si = p.idsStrides.back(), st = p.tableStrides.back();
  Odometer<3> it(p.shape, {&p.idsStrides, &p.tableStrides, &p.outStrides});
  for (int64_t done = 0; done < n; done += inner, it.next()) {
    T *o = out + it.off[2];
    for (int64_t i = 0; i < inner; ++i) {
      int64_t r = static_cast<int64_t>(ids[it.off[0] + i * si]) - rowOffset;
      o[i] = (r >= 0 && r < p.rows)
                 ? table[r * p.rowStride + it.off[1] + i * st]
                 : T(0);
    }
  }
}

/// embedLoop's walk with the roles reversed: each element of the updates
/// (the embed's `out`) is added into the table row of its id.
template <typename T>
void scatterAddLoop(const EmbedPlan &p, const int32_t *ids, const T *updates,
                    T *table, int64_t rowOffset) {
  if (p.rowCopy) {
    for (int64_t i = 0; i < p.numIds; ++i) {
      int64_t r = static_cast<int64_t>(ids[i]) - rowOffset;
      if (r < 0 || r >= p.rows)
        continue;
      const T *u = updates + i * p.rowElements;
      T *o = table + r * p.rowStride;
      for (int64_t j = 0; j < p.rowElements; ++j)
        o[j] += u[j];
    }
    return;
  }
  int64_t n = numElements(p.shape);
  if (n == 0)
    return;
  if (p.shape.empty()) {
    int64_t r = static_cast<int64_t>(ids[0]) - rowOffset;
    if (r >= 0 && r < p.rows)
      table[r * p.rowStride] += updates[0];
    return;
  }
  int64_t inner = p.shape.back();
  int64_t si = p.idsStrides.back(), st = p.tableStrides.back();
  Odometer<3> it(p.shape, {&p.idsStrides, &p.tableStrides, &p.outStrides});
  for (int64_t done = 0; done < n; done += inner, it.next()) {
    const T *u = updates + it.off[2];
    for (int64_t i = 0; i < inner; ++i) {
      int64_t r = static_cast<int64_t>(ids[it.off[0] + i * si]) - rowOffset;
      if (r >= 0 && r < p.rows)
        table[r * p.rowStride + it.off[1] + i * st] += u[i];
    }
  }
}

template <typename T>
void oneHotLoop(const OneHotPlan &p, const int32_t *ids, T *out,
                int64_t offset) {
  int64_t n = numElements(p.outShape);
  if (n == 0)
    return;
  int64_t inner = p.outShape.back(), si = p.idsStrides.back();
  std::vector<int64_t> outStrides = rowMajorStrides(p.outShape);
  Odometer<2> it(p.outShape, {&p.idsStrides, &outStrides});
  for (int64_t done = 0; done < n; done += inner, it.next()) {
    T *o = out + done;
    if (p.vocabStride == 1) { // The vocabulary letter is innermost.
      for (int64_t v = 0; v < inner; ++v)
        o[v] = T(0);
      int64_t v = ops::blockIndex(ids[it.off[0]], offset, p.columns);
      if (v >= 0)
        o[v] = T(1);
      continue;
    }
    int64_t v = (done / p.vocabStride) % p.columns; // constant along inner
    for (int64_t i = 0; i < inner; ++i)
      o[i] = ops::blockIndex(ids[it.off[0] + i * si], offset, p.columns) == v
                 ? T(1)
                 : T(0);
  }
}

template <typename F> void dispatchFloat(DType dtype, const char *op, F &&f) {
  switch (dtype) {
  case DType::F32:
    return f(float());
  case DType::F64:
    return f(double());
  default:
    fail(op, " of ", dtypeName(dtype),
         " is not supported on the cpu backend (f32, f64, f16, bf16)");
  }
}

/// fusedRowsLoop on per-thread row tiles, kept between calls and grown to
/// the largest need (a row may be a vocabulary long, so not on the stack;
/// not from the pool either, whose statistics are the tensors').
template <typename T>
void fusedRowsWithScratch(const FusedRowsPlan &plan,
                          const std::vector<const void *> &inputs, T *out,
                          QuantizeFn<T> quantize) {
  thread_local std::vector<T> scratch;
  const std::size_t align = 64 / sizeof(T);
  const std::size_t elements = fusedRowsScratch(plan) + align;
  if (scratch.size() < elements)
    scratch.resize(elements);
  T *first = scratch.data();
  while (reinterpret_cast<uintptr_t>(first) % 64 != 0)
    ++first;
  fusedRowsLoop<T>(plan, inputs, out, first, quantize);
}

void fusedRowsF32(const FusedRowsPlan &plan,
                  const std::vector<const void *> &inputs, float *out,
                  QuantizeFn<float> quantize) {
  fusedRowsWithScratch<float>(plan, inputs, out, quantize);
}

} // namespace

void CpuBackend::mapKernel(MapKind kind, const MapPlan &plan, DType dtype,
                           const void *a, const void *b, void *out,
                           double scalar) {
  if (cpu::isHalf(dtype)) { // f32 math, rounded on store (CpuHalf.h)
    auto A = cpu::widened(dtype, a, numElements(plan.inShapes[0]));
    auto B = cpu::widened(dtype, b,
                          b ? numElements(plan.inShapes.back()) : int64_t(0));
    std::vector<float> O(static_cast<std::size_t>(numElements(plan.outShape)));
    mapKernel(kind, plan, DType::F32, A.data(), b ? B.data() : nullptr,
              O.data(), scalar);
    return cpu::narrowFromF32(dtype, O.data(), out,
                              static_cast<int64_t>(O.size()));
  }
  dispatchFloat(dtype, "map", [&](auto zero) {
    using T = decltype(zero);
    ops::dispatchMap(kind, [&]<MapKind K>() {
      mapLoop<K, T>(plan, static_cast<const T *>(a), static_cast<const T *>(b),
                    static_cast<T *>(out), scalar);
    });
  });
}

/// The half-precision (bf16/f16) `inputs` of a fused kernel widened to f32,
/// input i holding numElements(shapes[i]) elements; `storage` owns them.
static std::vector<const void *>
widenedInputs(DType dtype, const std::vector<const void *> &inputs,
              const std::vector<Shape> &shapes,
              std::vector<std::vector<float>> &storage) {
  std::vector<const void *> ptrs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    storage.push_back(cpu::widened(
        dtype, inputs[i], i < shapes.size() ? numElements(shapes[i]) : 0));
    ptrs.push_back(storage.back().data());
  }
  return ptrs;
}

void CpuBackend::fusedMapKernel(const FusedMapPlan &plan, DType dtype,
                                const std::vector<const void *> &inputs,
                                void *out) {
  if (cpu::isHalf(dtype)) {
    std::vector<std::vector<float>> w;
    std::vector<const void *> ptrs =
        widenedInputs(dtype, inputs, plan.inShapes, w);
    std::vector<float> O(static_cast<std::size_t>(numElements(plan.outShape)));
    fusedMapLoop<float>(plan, ptrs, O.data(), cpu::quantizerFor(dtype));
    return cpu::narrowFromF32(dtype, O.data(), out,
                              static_cast<int64_t>(O.size()));
  }
  dispatchFloat(dtype, "fused_map", [&](auto zero) {
    using T = decltype(zero);
    fusedMapLoop<T>(plan, inputs, static_cast<T *>(out));
  });
}

void CpuBackend::fusedRowsKernel(const FusedRowsPlan &plan, DType dtype,
                                 const std::vector<const void *> &inputs,
                                 void *out) {
  if (cpu::isHalf(dtype)) {
    std::vector<std::vector<float>> w;
    std::vector<const void *> ptrs =
        widenedInputs(dtype, inputs, plan.inShapes, w);
    std::vector<float> O(static_cast<std::size_t>(numElements(plan.outShape)));
    fusedRowsF32(plan, ptrs, O.data(), cpu::quantizerFor(dtype));
    return cpu::narrowFromF32(dtype, O.data(), out,
                              static_cast<int64_t>(O.size()));
  }
  // Backend::fusedRows checked the plan's structure.
  check(inputs.size() == plan.inShapes.size(), "fused_rows '", plan.spec,
        "': ", inputs.size(), " buffers for ", plan.inShapes.size(), " inputs");
  dispatchFloat(dtype, "fused_rows", [&](auto zero) {
    using T = decltype(zero);
    fusedRowsWithScratch<T>(plan, inputs, static_cast<T *>(out), nullptr);
  });
}

bool CpuBackend::runsSoftmaxKernel(const FusedRowsPlan &plan, DType dtype) {
#if WEFT_CPU_MULTIVERSION
  return dtype == DType::F32 && takesSoftmaxKernel(plan);
#else
  (void)plan;
  (void)dtype;
  return false;
#endif
}

void CpuBackend::reduceKernel(ReduceKind kind, const ReducePlan &plan,
                              DType dtype, const void *in, void *out) {
  if (cpu::isHalf(dtype)) {
    auto I = cpu::widened(dtype, in, numElements(plan.inShape));
    std::vector<float> O(static_cast<std::size_t>(numElements(plan.outShape)));
    reduceKernel(kind, plan, DType::F32, I.data(), O.data());
    return cpu::narrowFromF32(dtype, O.data(), out,
                              static_cast<int64_t>(O.size()));
  }
  dispatchFloat(dtype, "reduce", [&](auto zero) {
    using T = decltype(zero);
    if (reduceRowOrdered(plan))
      return reduceRowsLoop<T>(kind, plan, static_cast<const T *>(in),
                               static_cast<T *>(out));
    ops::dispatchReduce(kind, [&]<ReduceKind K>() {
      reduceLoop<K, T>(plan, static_cast<const T *>(in), static_cast<T *>(out));
    });
  });
}

void CpuBackend::embedKernel(const EmbedPlan &plan, DType dtype,
                             const int32_t *ids, const void *table, void *out,
                             int64_t rowOffset) {
  if (cpu::isHalf(dtype)) {
    // Rows are copied, not computed: the f32 round trip is exact.
    auto T = cpu::widened(dtype, table, numElements(plan.tableShape));
    std::vector<float> O(static_cast<std::size_t>(numElements(plan.outShape)));
    embedKernel(plan, DType::F32, ids, T.data(), O.data(), rowOffset);
    return cpu::narrowFromF32(dtype, O.data(), out,
                              static_cast<int64_t>(O.size()));
  }
  dispatchFloat(dtype, "embed", [&](auto zero) {
    using T = decltype(zero);
    embedLoop<T>(plan, ids, static_cast<const T *>(table),
                 static_cast<T *>(out), rowOffset);
  });
}

void CpuBackend::scatterAddKernel(const EmbedPlan &plan, DType dtype,
                                  const int32_t *ids, const void *updates,
                                  void *table, int64_t rowOffset) {
  if (cpu::isHalf(dtype)) {
    // Sums in f32, rounded once to the half type at the end.
    auto U = cpu::widened(dtype, updates, numElements(plan.outShape));
    auto T = cpu::widened(dtype, table, numElements(plan.tableShape));
    scatterAddKernel(plan, DType::F32, ids, U.data(), T.data(), rowOffset);
    return cpu::narrowFromF32(dtype, T.data(), table,
                              static_cast<int64_t>(T.size()));
  }
  dispatchFloat(dtype, "scatter_add", [&](auto zero) {
    using T = decltype(zero);
    scatterAddLoop<T>(plan, ids, static_cast<const T *>(updates),
                      static_cast<T *>(table), rowOffset);
  });
}

void CpuBackend::oneHotKernel(const OneHotPlan &plan, DType dtype,
                              const int32_t *ids, void *out, int64_t offset) {
  if (cpu::isHalf(dtype)) {
    std::vector<float> O(static_cast<std::size_t>(numElements(plan.outShape)));
    oneHotKernel(plan, DType::F32, ids, O.data(), offset);
    return cpu::narrowFromF32(dtype, O.data(), out,
                              static_cast<int64_t>(O.size()));
  }
  dispatchFloat(dtype, "one_hot", [&](auto zero) {
    using T = decltype(zero);
    oneHotLoop<T>(plan, ids, static_cast<T *>(out), offset);
  });
}

void CpuBackend::iotaKernel(DType dtype, int64_t n, void *out, int64_t first) {
  if (cpu::isHalf(dtype)) {
    std::vector<float> O(static_cast<std::size_t>(n));
    iotaKernel(DType::F32, n, O.data(), first);
    return cpu::narrowFromF32(dtype, O.data(), out, n);
  }
  if (dtype == DType::I32) {
    auto *o = static_cast<int32_t *>(out);
    for (int64_t i = 0; i < n; ++i)
      o[i] = static_cast<int32_t>(first + i);
    return;
  }
  dispatchFloat(dtype, "iota", [&](auto zero) {
    using T = decltype(zero);
    T *o = static_cast<T *>(out);
    for (int64_t i = 0; i < n; ++i)
      o[i] = static_cast<T>(first + i);
  });
}

namespace {
template <typename T>
void randomLoop(const RandomPlan &p, bool normal, uint64_t seed, T *out) {
  int64_t idx[4];
  int64_t i = 0;
  for (int64_t a = 0; a < p.shape[0]; ++a)
    for (int64_t b = 0; b < p.shape[1]; ++b)
      for (int64_t c = 0; c < p.shape[2]; ++c)
        for (int64_t d = 0; d < p.shape[3]; ++d) {
          idx[0] = p.first[0] + a;
          idx[1] = p.first[1] + b;
          idx[2] = p.first[2] + c;
          idx[3] = p.first[3] + d;
          out[i++] = ops::randomValue<T>(normal, seed, idx);
        }
}
} // namespace

void CpuBackend::randomKernel(const RandomPlan &plan, DType dtype,
                              RandomKind kind, uint64_t seed, void *out) {
  if (cpu::isHalf(dtype)) { // the f32 draw rounded to the half type
    std::vector<float> O(static_cast<std::size_t>(plan.count));
    randomKernel(plan, DType::F32, kind, seed, O.data());
    return cpu::narrowFromF32(dtype, O.data(), out, plan.count);
  }
  dispatchFloat(dtype, "random", [&](auto zero) {
    using T = decltype(zero);
    randomLoop<T>(plan, kind == RandomKind::Normal, seed,
                  static_cast<T *>(out));
  });
}

namespace {
/// pad_fill over rows of the merged plan: a row's leading keep[inner]
/// elements come from `in` when its outer indices are inside, the rest are
/// the fill. U is the element's width as an unsigned integer (a bit copy).
template <typename U>
void padFillLoop(const PadFillPlan &p, const U *in, U *out) {
  if (p.count == 0)
    return;
  const U fill = static_cast<U>(p.fill);
  const int outer = p.rank - 1;
  const int64_t inner = p.shape[outer], keepInner = p.keep[outer];
  int64_t idx[PadFillPlan::kMaxRank] = {};
  for (int64_t done = 0; done < p.count; done += inner) {
    int64_t n = ops::padInside(outer, idx, p.keep.data()) ? keepInner : 0;
    const U *x = in + done;
    U *o = out + done;
    for (int64_t i = 0; i < inner; ++i)
      o[i] = ops::padFillValue<U>(i < n, x[i], fill);
    for (int d = outer - 1; d >= 0; --d) {
      if (++idx[d] < p.shape[d])
        break;
      idx[d] = 0;
    }
  }
}
} // namespace

void CpuBackend::padFillKernel(const PadFillPlan &plan, const void *in,
                               void *out) {
  switch (dtypeSize(plan.dtype)) {
  case 2:
    return padFillLoop(plan, static_cast<const uint16_t *>(in),
                       static_cast<uint16_t *>(out));
  case 4:
    return padFillLoop(plan, static_cast<const uint32_t *>(in),
                       static_cast<uint32_t *>(out));
  case 8:
    return padFillLoop(plan, static_cast<const uint64_t *>(in),
                       static_cast<uint64_t *>(out));
  }
  fail("pad_fill of ", dtypeName(plan.dtype),
       " is not supported on the cpu backend");
}

namespace {
/// cumsum over the plan's lines, a chunk of up to kChunk lines side by side
/// at a time: for each outer index the walk visits the n rows of the chunk
/// in the line order (from the last row for reverse) and acc[i] carries line
/// i's running sum, so every line adds its elements sequentially
/// (ops::cumsumStep, as the CUDA kernel does) while the inner loop reads
/// memory in order. Each element is read before it is written: in place
/// works. T is the storage type, A the accumulation type; load/store
/// convert between them.
template <typename A, typename T, typename Load, typename Store>
void cumsumLoop(const CumsumPlan &p, const T *in, T *out, Load load,
                Store store) {
  constexpr int64_t kChunk = 256;
  A acc[kChunk];
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t i0 = 0; i0 < p.inner; i0 += kChunk) {
      const int64_t m = std::min(kChunk, p.inner - i0);
      for (int64_t i = 0; i < m; ++i)
        acc[i] = A(0);
      for (int64_t k = 0; k < p.n; ++k) {
        int64_t row =
            (o * p.n + ops::cumsumPosition(k, p.n, p.reverse)) * p.inner + i0;
        const T *x = in + row;
        T *y = out + row;
        for (int64_t i = 0; i < m; ++i)
          y[i] = store(ops::cumsumStep<A>(acc[i], load(x[i]), p.exclusive));
      }
    }
}
} // namespace

void CpuBackend::convertKernel(DType from, DType to, int64_t count,
                               const void *in, void *out) {
  bool ok = ops::dispatchConvert(from, to, [&](auto f, auto t) {
    using From = decltype(f);
    using To = decltype(t);
    const auto *x = static_cast<const typename From::Storage *>(in);
    auto *y = static_cast<typename To::Storage *>(out);
    for (int64_t i = 0; i < count; ++i)
      y[i] = ops::convertValue<From, To>(x[i]);
  });
  check(ok, "convert from ", dtypeName(from), " to ", dtypeName(to),
        " is not supported on the cpu backend (f32, f64, f16, bf16)");
}

void CpuBackend::cumsumKernel(const CumsumPlan &plan, const void *in,
                              void *out) {
  if (plan.count == 0)
    return;
  auto same = [](auto v) { return v; };
  switch (plan.dtype) {
  case DType::F32:
    return cumsumLoop<float>(plan, static_cast<const float *>(in),
                             static_cast<float *>(out), same, same);
  case DType::F64:
    return cumsumLoop<double>(plan, static_cast<const double *>(in),
                              static_cast<double *>(out), same, same);
  case DType::F16:
    return cumsumLoop<float>(plan, static_cast<const uint16_t *>(in),
                             static_cast<uint16_t *>(out), halfToFloat,
                             floatToHalf);
  case DType::BF16:
    return cumsumLoop<float>(plan, static_cast<const uint16_t *>(in),
                             static_cast<uint16_t *>(out), bfloat16ToFloat,
                             floatToBFloat16);
  default:
    break;
  }
  fail("cumsum of ", dtypeName(plan.dtype),
       " is not supported on the cpu backend (f32, f64, f16, bf16)");
}

namespace {
/// top-k over the plan's lines, one at a time: the line's n values are
/// loaded into the compute type C (float for f32/f16/bf16, double for f64)
/// and a partial sort of their indices by ops::topKBefore (the order the
/// CUDA kernel selects in; a strict total order, so the k first are
/// unique) picks the k positions, whose elements of `src` (the operand or
/// the payload) are copied bit for bit. T is the storage type, `load`
/// converts it to C.
template <typename C, typename T, typename Load>
void topKLoop(const TopKPlan &p, const T *x, const T *src, T *out, Load load) {
  std::vector<C> v(static_cast<std::size_t>(p.n));
  std::vector<int64_t> idx(static_cast<std::size_t>(p.n));
  auto before = [&](int64_t a, int64_t b) {
    return ops::topKBefore<C>(v[a], a, v[b], b);
  };
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t i = 0; i < p.inner; ++i) {
      const T *xl = x + o * p.n * p.inner + i;
      const T *sl = src + o * p.n * p.inner + i;
      T *ol = out + o * p.k * p.inner + i;
      for (int64_t j = 0; j < p.n; ++j) {
        v[j] = load(xl[j * p.inner]);
        idx[j] = j;
      }
      std::partial_sort(idx.begin(), idx.begin() + p.k, idx.end(), before);
      for (int64_t j = 0; j < p.k; ++j)
        std::memcpy(ol + j * p.inner, sl + idx[j] * p.inner, sizeof(T));
    }
}
} // namespace

void CpuBackend::topKKernel(const TopKPlan &plan, const void *x,
                            const void *payload, void *out) {
  if (plan.outCount == 0)
    return;
  const void *src = payload ? payload : x;
  auto same = [](auto v) { return v; };
  switch (plan.dtype) {
  case DType::F32:
    return topKLoop<float>(plan, static_cast<const float *>(x),
                           static_cast<const float *>(src),
                           static_cast<float *>(out), same);
  case DType::F64:
    return topKLoop<double>(plan, static_cast<const double *>(x),
                            static_cast<const double *>(src),
                            static_cast<double *>(out), same);
  case DType::F16:
    return topKLoop<float>(plan, static_cast<const uint16_t *>(x),
                           static_cast<const uint16_t *>(src),
                           static_cast<uint16_t *>(out), halfToFloat);
  case DType::BF16:
    return topKLoop<float>(plan, static_cast<const uint16_t *>(x),
                           static_cast<const uint16_t *>(src),
                           static_cast<uint16_t *>(out), bfloat16ToFloat);
  default:
    break;
  }
  fail("top_k of ", dtypeName(plan.dtype),
       " is not supported on the cpu backend (f32, f64, f16, bf16)");
}

} // namespace weft::rt

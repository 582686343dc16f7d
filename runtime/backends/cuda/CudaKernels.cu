//===- CudaKernels.cu - Strided copies, maps, reductions, embeds ----------===//
//
// Grid-stride kernels over the same plans the CPU loops run, with the
// element arithmetic of ElementOps.h. Half types compute in float.
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"
#include "weft/rt/ElementOps.h"
#include "weft/rt/Philox.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

namespace weft::rt {

namespace {

constexpr int kMaxRank = 8;

/// A plan's iteration space and up to three stride arrays, by value.
struct Space {
  int rank = 0;
  int64_t shape[kMaxRank];
  int64_t stride[3][kMaxRank];
};

Space makeSpace(const Shape &shape,
                std::initializer_list<const std::vector<int64_t> *> strides) {
  check(shape.size() <= kMaxRank, "cuda kernels support rank <= ", kMaxRank,
        " after merging dims, got ", shape.size());
  Space s;
  s.rank = static_cast<int>(shape.size());
  for (int d = 0; d < s.rank; ++d) {
    s.shape[d] = shape[d];
    int k = 0;
    for (auto *st : strides)
      s.stride[k++][d] = (*st)[d];
  }
  return s;
}

/// Offsets of linear (row-major) index i in the first `n` stride arrays.
template <int N>
__device__ void offsets(const Space &s, int64_t i, int64_t (&off)[N]) {
  for (int k = 0; k < N; ++k)
    off[k] = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    int64_t x = i % s.shape[d];
    i /= s.shape[d];
    for (int k = 0; k < N; ++k)
      off[k] += x * s.stride[k][d];
  }
}

template <typename T> struct Compute {
  using type = T;
};
template <> struct Compute<__half> {
  using type = float;
};
template <> struct Compute<__nv_bfloat16> {
  using type = float;
};

template <typename T> __device__ typename Compute<T>::type load(T x) {
  return static_cast<typename Compute<T>::type>(x);
}
template <typename T> __device__ T store(typename Compute<T>::type x) {
  return T(x);
}

dim3 gridFor(int64_t n) {
  int64_t blocks = (n + 255) / 256;
  return dim3(
      static_cast<unsigned>(blocks < 65535 ? (blocks ? blocks : 1) : 65535));
}

template <typename T>
__global__ void copyKernel(Space s, int64_t n, const T *src, T *dst) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets<2>(s, i, off);
    dst[off[1]] = src[off[0]];
  }
}

template <MapKind K, typename T>
__global__ void mapKernelT(Space s, int64_t n, const T *a, const T *b, T *out,
                           double scalar) {
  using C = typename Compute<T>::type;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets<3>(s, i, off);
    C x = load(a[off[0]]);
    C y = b ? load(b[off[1]]) : C(0);
    out[off[2]] = store<T>(ops::Map<K, C>::apply(x, y, scalar));
  }
}

/// A fused map's iteration space and the strides of its inputs (0 ..
/// inputs-1) and its output (at index `inputs`), by value: larger than
/// Space, so only this kernel pays for it.
struct FusedSpace {
  int rank = 0;
  int64_t shape[kMaxRank];
  int64_t stride[kMaxFusedInputs + 1][kMaxRank];
};

/// A fused map's steps (FusedStep with the kind as an int), by value.
struct FusedProgram {
  struct Step {
    int kind;
    int a, b; // value ids; b is -1 for a unary kind
    double scalar;
  };
  int inputs = 0;
  int count = 0;
  Step step[kMaxFusedSteps];
  /// 0, as a kernel argument the compiler cannot see through (fusedRound).
  uint64_t zero = 0;
};

/// The input pointers of a fused map, by value.
template <typename T> struct FusedInputs {
  const T *p[kMaxFusedInputs];
};

/// Offsets of linear (row-major) index i in the first `n` stride arrays.
__device__ void fusedOffsets(const FusedSpace &s, int n, int64_t i,
                             int64_t *off) {
  for (int k = 0; k < n; ++k)
    off[k] = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    int64_t x = i % s.shape[d];
    i /= s.shape[d];
    for (int k = 0; k < n; ++k)
      off[k] += x * s.stride[k][d];
  }
}

/// ops::Map<kind, C>::apply with the kind known at run time (the device
/// side of ops::dispatchMap, which is host-only).
template <typename C>
__device__ C applyFusedStep(int kind, C x, C y, double s) {
  switch (static_cast<MapKind>(kind)) {
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr)          \
  case MapKind::Enum:                                                          \
    return ops::Map<MapKind::Enum, C>::apply(x, y, s);
#include "weft/rt/MapKinds.def"
  }
  return x; // unreachable: planFusedMap checked the kinds
}

/// A step's result as the next step sees it: stored to T and loaded back,
/// as the unfused map's store and the next map's load round it. For f32 and
/// f64 those are identities, and nvcc's default --fmad=true could then
/// contract one step's multiply with a later step's add into an FMA, which
/// the unfused kernels (storing in between) never form; an xor of the bits
/// with `zero` (0, but unknown to the compiler) keeps each step's result a
/// rounded value while keeping every bit (NaN payloads too).
template <typename T>
__device__ typename Compute<T>::type fusedRound(typename Compute<T>::type x,
                                                uint64_t zero) {
  if constexpr (std::is_same_v<T, float>)
    return __uint_as_float(__float_as_uint(x) ^ static_cast<uint32_t>(zero));
  else if constexpr (std::is_same_v<T, double>)
    return __longlong_as_double(__double_as_longlong(x) ^
                                static_cast<long long>(zero));
  else
    return load(store<T>(x));
}

/// A fused map: one thread per output element loads its inputs, runs the
/// steps on values held in the compute type, each rounded as the unfused
/// map stores it, and writes the last.
template <typename T>
__global__ void fusedMapKernelT(FusedSpace s, FusedProgram f, FusedInputs<T> in,
                                int64_t n, T *out) {
  using C = typename Compute<T>::type;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kMaxFusedInputs + 1];
    fusedOffsets(s, f.inputs + 1, i, off);
    C v[kMaxFusedInputs + kMaxFusedSteps];
    for (int k = 0; k < f.inputs; ++k)
      v[k] = load(in.p[k][off[k]]);
    C r = C(0);
    for (int j = 0; j < f.count; ++j) {
      const FusedProgram::Step &st = f.step[j];
      r = applyFusedStep<C>(st.kind, v[st.a], st.b >= 0 ? v[st.b] : C(0),
                            st.scalar);
      v[f.inputs + j] = fusedRound<T>(r, f.zero);
    }
    out[off[f.inputs]] = store<T>(r);
  }
}

/// Storage conversion of an accumulator: partials keep the accumulation
/// type, final results round through the storage type's compute type.
template <typename Out, typename A> __device__ Out storeAcc(A acc) {
  if constexpr (std::is_same_v<Out, A>)
    return acc;
  else
    return store<Out>(static_cast<typename Compute<Out>::type>(acc));
}

/// Warps per 256-thread block in the warp-per-row kernels.
constexpr int kWarpsPerBlock = 8;

/// Blocks of kWarpsPerBlock warps for `items` warp-sized work items (the
/// kernels loop over items with a grid stride, so any count is covered).
dim3 warpGridFor(int64_t items) {
  int64_t blocks = (items + kWarpsPerBlock - 1) / kWarpsPerBlock;
  return dim3(
      static_cast<unsigned>(blocks < 65535 ? (blocks ? blocks : 1) : 65535));
}

/// The tree of ops::reduceCanonical across a warp: after it, lane 0 holds
/// ops::reduceLaneTree of the 32 lanes' values (lane i combines lane i+d's
/// value into its own for d = 16, 8, 4, 2, 1). Every lane must call it.
template <ReduceKind K, typename A> __device__ A warpTree(A acc) {
  for (int d = ops::kReduceLanes / 2; d > 0; d /= 2)
    acc =
        ops::Reduce<K, A>::combine(acc, __shfl_down_sync(0xffffffffu, acc, d));
  return acc;
}

/// One pass of a row-ordered reduction in ops::reduceCanonical's order: a
/// warp per (output o, segment s) of output o's nRed elements in segments
/// of ops::kReduceSegment; lane j combines the segment's elements j, j+32,
/// ... in order, then warpTree. `kept` spans the outputs (strides: in, out),
/// `red` the reduced dims (strides: in). With one segment the result goes
/// to out[kept out offset]; with several, output o's partial of segment s
/// to out[o * segments + s] (rows that the next pass reduces).
template <ReduceKind K, typename In, typename Out, typename A>
__global__ void reduceRowsKernelT(Space kept, int64_t nOut, Space red,
                                  int64_t nRed, int64_t segments, const In *in,
                                  Out *out) {
  using R = ops::Reduce<K, A>;
  const int lane = threadIdx.x % ops::kReduceLanes;
  const int64_t items = nOut * segments;
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  // w is the same for every lane of a warp: the loop and the tree are
  // warp-uniform.
  for (int64_t w = blockIdx.x * int64_t(kWarpsPerBlock) +
                   threadIdx.x / ops::kReduceLanes;
       w < items; w += warps) {
    const int64_t o = w / segments, s = w % segments;
    int64_t ko[2];
    offsets<2>(kept, o, ko);
    const int64_t begin = s * ops::kReduceSegment;
    const int64_t end =
        begin + ops::kReduceSegment < nRed ? begin + ops::kReduceSegment : nRed;
    A acc = R::identity();
    if (red.rank == 1) {
      const In *x = in + ko[0];
      const int64_t st = red.stride[0][0];
      for (int64_t r = begin + lane; r < end; r += ops::kReduceLanes)
        acc = R::combine(acc, static_cast<A>(load(x[r * st])));
    } else {
      for (int64_t r = begin + lane; r < end; r += ops::kReduceLanes) {
        int64_t ro[1];
        offsets<1>(red, r, ro);
        acc = R::combine(acc, static_cast<A>(load(in[ko[0] + ro[0]])));
      }
    }
    acc = warpTree<K, A>(acc);
    if (lane != 0)
      continue;
    if (segments == 1)
      out[ko[1]] = storeAcc<Out>(acc);
    else
      out[w] = storeAcc<Out>(acc);
  }
}

/// A pass of reduceRowsKernelT.
template <ReduceKind K, typename In, typename Out, typename A>
void launchReduceRows(const Space &kept, int64_t nOut, const Space &red,
                      int64_t nRed, int64_t segments, const In *in, Out *out,
                      cudaStream_t stream) {
  reduceRowsKernelT<K, In, Out, A>
      <<<warpGridFor(nOut * segments), kWarpsPerBlock * 32, 0, stream>>>(
          kept, nOut, red, nRed, segments, in, out);
}

/// A device buffer of nOut * segments partials of A from the pool.
template <typename A>
std::shared_ptr<void> allocatePartials(BufferPool &pool, int64_t nOut,
                                       int64_t segments) {
  std::size_t count = 0, bytes = 0;
  check(!__builtin_mul_overflow(static_cast<std::size_t>(nOut),
                                static_cast<std::size_t>(segments), &count) &&
            !__builtin_mul_overflow(count, sizeof(A), &bytes),
        "reduce: ", nOut, " x ", segments, " partials overflow");
  return pool.allocate(bytes);
}

/// Reduces the partials' rows [nOut, len] (output o's row at o * len, o in
/// the order of the kept dims `keptShape`) in ops::reduceCanonical's order,
/// a pass per level, into out at the offsets `keptOut`. Each buffer goes
/// back to the pool after the launch that reads it: later work on this
/// stream runs after that launch.
template <ReduceKind K, typename T, typename A>
void reducePartialRows(const Shape &keptShape,
                       const std::vector<int64_t> &keptOut, int64_t nOut,
                       std::shared_ptr<void> partials, int64_t len, T *out,
                       BufferPool &pool, cudaStream_t stream) {
  const std::vector<int64_t> unit{1};
  while (true) {
    std::vector<int64_t> rowIn(keptShape.size());
    int64_t stride = len;
    for (std::size_t d = keptShape.size(); d-- > 0;) {
      rowIn[d] = stride;
      stride *= keptShape[d];
    }
    Space keptRows = makeSpace(keptShape, {&rowIn, &keptOut});
    const Shape row{len};
    Space rowSpace = makeSpace(row, {&unit});
    const A *src = static_cast<const A *>(partials.get());
    const int64_t segments = ops::reduceSegments(len);
    if (segments <= 1) {
      launchReduceRows<K, A, T, A>(keptRows, nOut, rowSpace, len, 1, src, out,
                                   stream);
      return;
    }
    std::shared_ptr<void> next = allocatePartials<A>(pool, nOut, segments);
    launchReduceRows<K, A, A, A>(keptRows, nOut, rowSpace, len, segments, src,
                                 static_cast<A *>(next.get()), stream);
    partials = std::move(next);
    len = segments;
  }
}

/// A pass of a reduction that is not row-ordered: a thread per output walks
/// its elements of segment blockIdx.y, [s * segLen, min(nRed, (s + 1) *
/// segLen)), in order (adjacent threads read adjacent addresses). `kept`
/// spans the outputs (strides: in, out), `red` the reduced dims (strides:
/// in). With one segment the result goes to out[kept offset]; with several,
/// output o's partial of segment s to out[o * segments + s].
template <ReduceKind K, typename In, typename Out, typename A>
__global__ void reduceKernelT(Space kept, int64_t nOut, Space red, int64_t nRed,
                              int64_t segLen, const In *in, Out *out) {
  using R = ops::Reduce<K, A>;
  int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (o >= nOut)
    return;
  int64_t s = blockIdx.y;
  int64_t begin = s * segLen;
  int64_t end = begin + segLen < nRed ? begin + segLen : nRed;
  int64_t ko[2];
  offsets<2>(kept, o, ko);
  A acc = R::identity();
  for (int64_t r = begin; r < end; ++r) {
    int64_t ro[1];
    offsets<1>(red, r, ro);
    acc = R::combine(acc, static_cast<A>(load(in[ko[0] + ro[0]])));
  }
  if (gridDim.y == 1)
    out[ko[1]] = storeAcc<Out>(acc);
  else
    out[o * int64_t(gridDim.y) + s] = storeAcc<Out>(acc);
}

/// Launches pass 1 of reduceKernelT with the plan's segments.
template <ReduceKind K, typename In, typename Out, typename A>
void launchReduce(const ReduceLaunch &l, const Space &kept, int64_t nOut,
                  const Space &red, int64_t nRed, const In *in, Out *out,
                  cudaStream_t stream) {
  int64_t blocks = (nOut + 255) / 256;
  check(blocks <= 0x7fffffff && l.segments <= 65535, "reduce: launch of ",
        blocks, " x ", l.segments,
        " blocks exceeds the grid limits (2^31-1 x 65535)");
  dim3 grid(static_cast<unsigned>(blocks ? blocks : 1),
            static_cast<unsigned>(l.segments));
  int64_t segLen = l.segments > 1 ? l.segmentLength : nRed;
  reduceKernelT<K, In, Out, A>
      <<<grid, 256, 0, stream>>>(kept, nOut, red, nRed, segLen, in, out);
}

//===--- Fused rows -------------------------------------------------------//

/// A fused row chain (FusedRowsPlan) by value: the steps, which values are
/// full, and per reduction (and for a full result) the values each element
/// needs, as a bit mask over value ids.
struct FusedRowsProgram {
  struct Step {
    int kind; // MapKind; for a reduction, its ReduceKind
    int a, b; // value ids; b is -1 for one operand
    double scalar;
    bool reduce;
    bool full;
    /// A reduction: the full values (inputs and map steps, bit = value id)
    /// that its operand's element depends on, all computed per element.
    uint32_t need;
  };
  int inputs = 0;
  int count = 0;
  Step step[kMaxFusedSteps];
  bool fullInput[kMaxFusedInputs];
  int64_t rowStride[kMaxFusedInputs];
  uint32_t resultNeed = 0; // a full result: what its element depends on
  int64_t rows = 0;
  int64_t rowLength = 0;
  /// 0, as a kernel argument the compiler cannot see through (fusedRound).
  uint64_t zero = 0;
};

/// The full values of element r of the row at `off` that `need` lists, in
/// id order (each step's operands are computed before it): full inputs are
/// loaded, map steps computed and rounded as the unfused map stores them.
/// Row values in v are set already.
template <typename T>
__device__ void fusedRowsElement(const FusedRowsProgram &f,
                                 const FusedInputs<T> &in, const int64_t *off,
                                 int64_t r, uint32_t need,
                                 typename Compute<T>::type *v) {
  using C = typename Compute<T>::type;
  for (int id = 0; id < f.inputs + f.count; ++id) {
    if (!(need >> id & 1u))
      continue;
    if (id < f.inputs) {
      v[id] = load(in.p[id][off[id] + r * f.rowStride[id]]);
      continue;
    }
    const FusedRowsProgram::Step &st = f.step[id - f.inputs];
    v[id] =
        fusedRound<T>(applyFusedStep<C>(st.kind, v[st.a],
                                        st.b >= 0 ? v[st.b] : C(0), st.scalar),
                      f.zero);
  }
}

/// A reduction step of fusedRowsKernelT over the warp's row (every lane
/// calls it): ops::reduceCanonical of its operand's elements, each computed
/// by fusedRowsElement. Per 2048-element segment, lane j combines elements
/// j, j+32, ..., then warpTree; with several segments (at most
/// ops::kReduceSegment of them, checked on the host) lane s % 32 combines
/// segment s's partial, in order, and a last warpTree combines the lanes:
/// the canonical order's second level. Returns the result, rounded to T as
/// the unfused reduce stores it, in every lane.
template <ReduceKind K, typename T>
__device__ typename Compute<T>::type
fusedRowReduce(const FusedRowsProgram &f, const FusedInputs<T> &in,
               const int64_t *off, const FusedRowsProgram::Step &st,
               typename Compute<T>::type *v) {
  using C = typename Compute<T>::type;
  using A = typename ops::AccumType<C>::type;
  using R = ops::Reduce<K, A>;
  const int lane = threadIdx.x % ops::kReduceLanes;
  const int64_t n = f.rowLength;
  const int64_t segments = n > 0 ? ops::reduceSegments(n) : 1;
  A upper = R::identity(); // this lane's share of the segment partials
  A result = R::identity();
  for (int64_t sg = 0; sg < segments; ++sg) {
    const int64_t begin = sg * ops::kReduceSegment;
    const int64_t end =
        begin + ops::kReduceSegment < n ? begin + ops::kReduceSegment : n;
    A acc = R::identity();
    for (int64_t r = begin + lane; r < end; r += ops::kReduceLanes) {
      fusedRowsElement<T>(f, in, off, r, st.need, v);
      acc = R::combine(acc, static_cast<A>(v[st.a]));
    }
    acc = warpTree<K, A>(acc);
    if (segments == 1) {
      result = acc;
    } else {
      const A partial = __shfl_sync(0xffffffffu, acc, 0);
      if (sg % ops::kReduceLanes == lane)
        upper = R::combine(upper, partial);
    }
  }
  if (segments > 1)
    result = warpTree<K, A>(upper);
  result = __shfl_sync(0xffffffffu, result, 0);
  return load(store<T>(static_cast<C>(result)));
}

/// A fused row chain: one warp per row (a grid-stride loop over rows). Row
/// values are computed by every lane alike; full values are recomputed per
/// element from the inputs in each phase (up to a reduction, fusedRowReduce,
/// then the result), so no row buffer is needed. Values are held in the
/// compute type, each step rounded as the unfused op stores it.
template <typename T>
__global__ void fusedRowsKernelT(FusedSpace s, FusedRowsProgram f,
                                 FusedInputs<T> in, T *out) {
  using C = typename Compute<T>::type;
  const int lane = threadIdx.x % ops::kReduceLanes;
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  const int64_t n = f.rowLength;
  for (int64_t row = blockIdx.x * int64_t(kWarpsPerBlock) +
                     threadIdx.x / ops::kReduceLanes;
       row < f.rows; row += warps) {
    int64_t off[kMaxFusedInputs + 1];
    fusedOffsets(s, f.inputs + 1, row, off);
    C v[kMaxFusedInputs + kMaxFusedSteps];
    for (int k = 0; k < f.inputs; ++k)
      v[k] = f.fullInput[k] ? C(0) : load(in.p[k][off[k]]);
    for (int j = 0; j < f.count; ++j) {
      const FusedRowsProgram::Step &st = f.step[j];
      const int id = f.inputs + j;
      if (st.full)
        continue; // computed per element where needed
      if (!st.reduce) {
        v[id] = fusedRound<T>(applyFusedStep<C>(st.kind, v[st.a],
                                                st.b >= 0 ? v[st.b] : C(0),
                                                st.scalar),
                              f.zero);
        continue;
      }
      switch (static_cast<ReduceKind>(st.kind)) {
      case ReduceKind::Sum:
        v[id] = fusedRowReduce<ReduceKind::Sum, T>(f, in, off, st, v);
        break;
      case ReduceKind::Max:
        v[id] = fusedRowReduce<ReduceKind::Max, T>(f, in, off, st, v);
        break;
      case ReduceKind::Min:
        v[id] = fusedRowReduce<ReduceKind::Min, T>(f, in, off, st, v);
        break;
      }
    }
    const int last = f.inputs + f.count - 1;
    if (!f.step[f.count - 1].full) {
      if (lane == 0)
        out[off[f.inputs]] = store<T>(v[last]);
      continue;
    }
    for (int64_t r = lane; r < n; r += ops::kReduceLanes) {
      fusedRowsElement<T>(f, in, off, r, f.resultNeed, v);
      out[off[f.inputs] + r] = store<T>(v[last]);
    }
  }
}

template <typename T>
__global__ void embedKernelT(Space s, int64_t n, const int32_t *ids,
                             const T *table, T *out, int64_t rowOffset,
                             int64_t rows, int64_t rowStride) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets<3>(s, i, off);
    int64_t r = static_cast<int64_t>(ids[off[0]]) - rowOffset;
    out[off[2]] =
        (r >= 0 && r < rows) ? table[r * rowStride + off[1]] : store<T>(0.0f);
  }
}

/// embedKernelT's walk with the roles reversed: each update element is
/// added into its id's table row. Threads adding into one row race, hence
/// atomicAdd (f32 and f64 only; the order of the additions, so the last
/// bits of a row that several ids share, varies from run to run).
template <typename T>
__global__ void scatterAddKernelT(Space s, int64_t n, const int32_t *ids,
                                  const T *updates, T *table, int64_t rowOffset,
                                  int64_t rows, int64_t rowStride) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets<3>(s, i, off);
    int64_t r = ops::blockIndex(ids[off[0]], rowOffset, rows);
    if (r >= 0)
      atomicAdd(&table[r * rowStride + off[1]], updates[off[2]]);
  }
}

template <typename T>
__global__ void oneHotKernelT(Space s, int64_t n, const int32_t *ids, T *out,
                              int64_t offset, int64_t columns,
                              int64_t vocabStride) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[1];
    offsets<1>(s, i, off);
    bool hit = ops::blockIndex(ids[off[0]], offset, columns) ==
               (i / vocabStride) % columns;
    out[i] = store<T>(hit ? 1.0f : 0.0f);
  }
}

template <typename T>
__global__ void iotaKernelT(int64_t n, T *out, int64_t first) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = store<T>(static_cast<typename Compute<T>::type>(first + i));
}

template <typename T>
__global__ void randomKernelT(RandomPlan p, bool normal, uint64_t seed,
                              T *out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < p.count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t idx[4], rest = i;
    for (int k = 3; k >= 0; --k) {
      idx[k] = p.first[k] + rest % p.shape[k];
      rest /= p.shape[k];
    }
    out[i] = ops::randomValue<T>(normal, seed, idx);
  }
}

/// convert: one thread per element, ops::convertValue (as the CPU loop).
template <typename From, typename To>
__global__ void convertKernelT(int64_t n, const typename From::Storage *in,
                               typename To::Storage *out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = ops::convertValue<From, To>(in[i]);
}

/// pad_fill: one thread per element, its merged indices from the linear
/// index, the predicate and the select of ElementOps.h (as the CPU loop).
template <typename U>
__global__ void padFillKernelT(PadFillPlan p, const U *in, U *out) {
  const U fill = static_cast<U>(p.fill);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < p.count;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t idx[PadFillPlan::kMaxRank], rest = i;
    for (int d = p.rank - 1; d >= 0; --d) {
      idx[d] = rest % p.shape[d];
      rest /= p.shape[d];
    }
    out[i] = ops::padFillValue<U>(ops::padInside(p.rank, idx, p.keep.data()),
                                  in[i], fill);
  }
}

/// cumsum: one thread per line (outer, inner), adjacent threads on adjacent
/// inner indices (coalesced); each walks its line in the plan's order with
/// ops::cumsumStep in the compute type (float for f32/f16/bf16, double for
/// f64), the sequence of additions of the CPU loop. Each element is read
/// before it is written, so in place works.
template <typename T>
__global__ void cumsumKernelT(CumsumPlan p, const T *in, T *out) {
  using C = typename Compute<T>::type;
  for (int64_t l = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; l < p.lines;
       l += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (l / p.inner) * p.n * p.inner + l % p.inner;
    C acc = C(0);
    for (int64_t k = 0; k < p.n; ++k) {
      const int64_t off =
          base + ops::cumsumPosition(k, p.n, p.reverse) * p.inner;
      out[off] = store<T>(ops::cumsumStep<C>(acc, load(in[off]), p.exclusive));
    }
  }
}

/// top-k: one thread per line (outer, inner), adjacent threads on adjacent
/// inner indices (coalesced). Pass j of k scans the line for the first
/// element in ops::topKBefore's order among those after pass j-1's pick;
/// the order is strict and total, so pass j picks the j-th element of the
/// CPU's partial sort. Compares in the compute type (float for
/// f32/f16/bf16, double for f64) and copies the picked element of `src`
/// (the operand or the payload) bit for bit as U, an unsigned integer of
/// the element's width. O(k n) per line: meant for small k.
template <typename T, typename U>
__global__ void topKKernelT(TopKPlan p, const T *x, const U *src, U *out) {
  using C = typename Compute<T>::type;
  for (int64_t l = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; l < p.lines;
       l += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = l / p.inner, i = l % p.inner;
    const int64_t base = o * p.n * p.inner + i;
    C prev = C(0);
    int64_t prevIdx = -1;
    for (int64_t j = 0; j < p.k; ++j) {
      C bestV = C(0);
      int64_t best = -1;
      for (int64_t t = 0; t < p.n; ++t) {
        const C v = load(x[base + t * p.inner]);
        if (prevIdx >= 0 && !ops::topKBefore<C>(prev, prevIdx, v, t))
          continue; // picked already
        if (best < 0 || ops::topKBefore<C>(v, t, bestV, best)) {
          bestV = v;
          best = t;
        }
      }
      out[o * p.k * p.inner + j * p.inner + i] = src[base + best * p.inner];
      prev = bestV;
      prevIdx = best;
    }
  }
}

template <typename F> void dispatchType(DType dtype, const char *op, F &&f) {
  switch (dtype) {
  case DType::F32:
    return f(float());
  case DType::F64:
    return f(double());
  case DType::F16:
    return f(__half());
  case DType::BF16:
    return f(__nv_bfloat16());
  default:
    fail(op, " of ", dtypeName(dtype), " is not supported on the cuda backend");
  }
}

} // namespace

void CudaBackend::copyStrided(const CopyPlan &plan, DType dtype,
                              const void *src, void *dst) {
  int64_t n = plan.numElements();
  if (n == 0)
    return;
  std::size_t es = dtypeSize(dtype);
  if (plan.isContiguous()) {
    WEFT_CUDA_CHECK(
        cudaMemcpyAsync(static_cast<char *>(dst) + plan.dstOffset * es,
                        static_cast<const char *>(src) + plan.srcOffset * es,
                        n * es, cudaMemcpyDeviceToDevice, stream_));
    return;
  }
  Space s = makeSpace(plan.shape, {&plan.srcStrides, &plan.dstStrides});
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    copyKernel<T><<<gridFor(n), 256, 0, stream_>>>(
        s, n, static_cast<const T *>(src) + plan.srcOffset,
        static_cast<T *>(dst) + plan.dstOffset);
  };
  if (es == 2)
    launch(uint16_t());
  else if (es == 4)
    launch(uint32_t());
  else
    launch(uint64_t());
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::mapKernel(MapKind kind, const MapPlan &plan, DType dtype,
                            const void *a, const void *b, void *out,
                            double scalar) {
  int64_t n = numElements(plan.shape);
  if (n == 0)
    return;
  std::vector<int64_t> zeros(plan.shape.size(), 0);
  Space s = makeSpace(
      plan.shape,
      {&plan.inStrides[0], b ? &plan.inStrides[1] : &zeros, &plan.outStrides});
  dispatchType(dtype, "map", [&](auto zero) {
    using T = decltype(zero);
    ops::dispatchMap(kind, [&]<MapKind K>() {
      mapKernelT<K, T><<<gridFor(n), 256, 0, stream_>>>(
          s, n, static_cast<const T *>(a), static_cast<const T *>(b),
          static_cast<T *>(out), scalar);
    });
  });
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::fusedMapKernel(const FusedMapPlan &plan, DType dtype,
                                 const std::vector<const void *> &inputs,
                                 void *out) {
  const int numInputs = static_cast<int>(plan.inShapes.size());
  const int numSteps = static_cast<int>(plan.steps.size());
  check(numInputs >= 1 && numInputs <= kMaxFusedInputs &&
            static_cast<int>(inputs.size()) == numInputs && numSteps >= 1 &&
            numSteps <= kMaxFusedSteps,
        "fused_map '", plan.spec, "': ", inputs.size(), " buffers for ",
        numInputs, " inputs and ", numSteps, " steps");
  int64_t n = numElements(plan.shape);
  if (n == 0)
    return;
  check(plan.shape.size() <= kMaxRank,
        "cuda kernels support rank <= ", kMaxRank, " after merging dims, got ",
        plan.shape.size());
  FusedSpace s;
  s.rank = static_cast<int>(plan.shape.size());
  for (int d = 0; d < s.rank; ++d) {
    s.shape[d] = plan.shape[d];
    for (int k = 0; k < numInputs; ++k)
      s.stride[k][d] = plan.inStrides[k][d];
    s.stride[numInputs][d] = plan.outStrides[d];
  }
  FusedProgram f;
  f.inputs = numInputs;
  f.count = numSteps;
  for (int j = 0; j < numSteps; ++j) {
    const FusedStep &st = plan.steps[j];
    f.step[j] = {static_cast<int>(st.kind), st.a, isBinary(st.kind) ? st.b : -1,
                 st.scalar};
  }
  dispatchType(dtype, "fused_map", [&](auto zero) {
    using T = decltype(zero);
    FusedInputs<T> in{};
    for (int k = 0; k < numInputs; ++k)
      in.p[k] = static_cast<const T *>(inputs[k]);
    fusedMapKernelT<T>
        <<<gridFor(n), 256, 0, stream_>>>(s, f, in, n, static_cast<T *>(out));
  });
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::reduceKernel(ReduceKind kind, const ReducePlan &plan,
                               DType dtype, const void *in, void *out) {
  if (plan.outElements == 0)
    return;
  // Split the plan's dims into kept (ordered by output stride, i.e. output
  // order) and reduced ones.
  std::vector<int> keptDims;
  Shape redShape;
  std::vector<int64_t> redIn;
  for (std::size_t d = 0; d < plan.shape.size(); ++d) {
    if (plan.outStrides[d] != 0) {
      keptDims.push_back(static_cast<int>(d));
    } else {
      redShape.push_back(plan.shape[d]);
      redIn.push_back(plan.inStrides[d]);
    }
  }
  std::sort(keptDims.begin(), keptDims.end(), [&](int x, int y) {
    return plan.outStrides[x] > plan.outStrides[y];
  });
  Shape keptShape;
  std::vector<int64_t> keptIn, keptOut;
  for (int d : keptDims) {
    keptShape.push_back(plan.shape[d]);
    keptIn.push_back(plan.inStrides[d]);
    keptOut.push_back(plan.outStrides[d]);
  }
  int64_t nRed = numElements(redShape);
  if (numElements(plan.shape) == 0) {
    // Nothing to reduce (a zero extent): mergeDims left one zero dim and no
    // kept dims, so fill the contiguous output with the identity, as the
    // CPU loop does.
    keptShape = {plan.outElements};
    keptIn = {0};
    keptOut = {1};
    redShape.clear();
    redIn.clear();
    nRed = 0;
  }
  Space kept = makeSpace(keptShape, {&keptIn, &keptOut});
  Space red = makeSpace(redShape, {&redIn});
  const bool rowOrdered = reduceRowOrdered(plan);
  const int64_t nOut = plan.outElements;
  ReduceLaunch l = planReduceLaunch(nOut, nRed, rowOrdered, residentThreads_);
  dispatchType(dtype, "reduce", [&](auto zero) {
    using T = decltype(zero);
    using A = typename ops::AccumType<typename Compute<T>::type>::type;
    const T *x = static_cast<const T *>(in);
    T *y = static_cast<T *>(out);
    ops::dispatchReduce(kind, [&]<ReduceKind K>() {
      if (rowOrdered && l.segments == 1) {
        launchReduceRows<K, T, T, A>(kept, nOut, red, nRed, 1, x, y, stream_);
        return;
      }
      if (rowOrdered) {
        // Pass 1: partials [nOut, segments] in the accumulation type, then
        // the passes over their rows.
        auto partials = allocatePartials<A>(*pool_, nOut, l.segments);
        launchReduceRows<K, T, A, A>(kept, nOut, red, nRed, l.segments, x,
                                     static_cast<A *>(partials.get()), stream_);
        reducePartialRows<K, T, A>(keptShape, keptOut, nOut,
                                   std::move(partials), l.segments, y, *pool_,
                                   stream_);
        return;
      }
      if (l.segments == 1) {
        launchReduce<K, T, T, A>(l, kept, nOut, red, nRed, x, y, stream_);
        return;
      }
      // A thread per (output, segment), then the partials' rows in the
      // canonical order. Segments are only planned when nOut <
      // residentThreads_, so nOut * segments stays small.
      auto partials = allocatePartials<A>(*pool_, nOut, l.segments);
      launchReduce<K, T, A, A>(l, kept, nOut, red, nRed, x,
                               static_cast<A *>(partials.get()), stream_);
      reducePartialRows<K, T, A>(keptShape, keptOut, nOut, std::move(partials),
                                 l.segments, y, *pool_, stream_);
    });
  });
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::fusedRowsKernel(const FusedRowsPlan &plan, DType dtype,
                                  const std::vector<const void *> &inputs,
                                  void *out) {
  // Backend::fusedRows checked the plan's structure.
  const int numInputs = static_cast<int>(plan.inShapes.size());
  const int numSteps = static_cast<int>(plan.steps.size());
  check(static_cast<int>(inputs.size()) == numInputs, "fused_rows '", plan.spec,
        "': ", inputs.size(), " buffers for ", numInputs, " inputs");
  if (plan.rows == 0)
    return;
  check(plan.rowLength <= ops::kReduceSegment * ops::kReduceSegment,
        "fused_rows '", plan.spec, "': rows of ", plan.rowLength,
        " elements are longer than the cuda kernel's limit of 2048 x 2048 = ",
        ops::kReduceSegment * ops::kReduceSegment,
        " (two levels of the canonical reduction order)");
  check(plan.keptShape.size() <= kMaxRank,
        "cuda kernels support rank <= ", kMaxRank, " after merging dims, got ",
        plan.keptShape.size(), " kept dims");
  FusedSpace s;
  s.rank = static_cast<int>(plan.keptShape.size());
  for (int d = 0; d < s.rank; ++d) {
    s.shape[d] = plan.keptShape[d];
    for (int k = 0; k < numInputs; ++k)
      s.stride[k][d] = plan.inKeptStrides[k][d];
    s.stride[numInputs][d] = plan.outKeptStrides[d];
  }
  FusedRowsProgram f;
  f.inputs = numInputs;
  f.count = numSteps;
  f.rows = plan.rows;
  f.rowLength = plan.rowLength;
  // need[id]: the full values that full value id's element depends on.
  std::vector<uint32_t> need(numInputs + numSteps, 0);
  for (int k = 0; k < numInputs; ++k) {
    f.fullInput[k] = plan.full[k];
    f.rowStride[k] = plan.inRowStrides[k];
    if (plan.full[k])
      need[k] = 1u << k;
  }
  for (int j = 0; j < numSteps; ++j) {
    const FusedRowStep &st = plan.steps[j];
    const int id = numInputs + j;
    FusedRowsProgram::Step &ps = f.step[j];
    ps.reduce = st.reduce;
    ps.full = plan.full[id];
    ps.kind =
        st.reduce ? static_cast<int>(st.reduceKind) : static_cast<int>(st.kind);
    ps.a = st.a;
    ps.b = !st.reduce && isBinary(st.kind) ? st.b : -1;
    ps.scalar = st.scalar;
    ps.need = st.reduce ? need[st.a] : 0;
    if (ps.full)
      need[id] = 1u << id | need[ps.a] | (ps.b >= 0 ? need[ps.b] : 0u);
  }
  f.resultNeed = need.back();
  dispatchType(dtype, "fused_rows", [&](auto zero) {
    using T = decltype(zero);
    FusedInputs<T> in{};
    for (int k = 0; k < numInputs; ++k)
      in.p[k] = static_cast<const T *>(inputs[k]);
    fusedRowsKernelT<T>
        <<<warpGridFor(plan.rows), kWarpsPerBlock * 32, 0, stream_>>>(
            s, f, in, static_cast<T *>(out));
  });
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::embedKernel(const EmbedPlan &plan, DType dtype,
                              const int32_t *ids, const void *table, void *out,
                              int64_t rowOffset) {
  int64_t n = numElements(plan.shape);
  if (n == 0)
    return;
  Space s = makeSpace(plan.shape,
                      {&plan.idsStrides, &plan.tableStrides, &plan.outStrides});
  dispatchType(dtype, "embed", [&](auto zero) {
    using T = decltype(zero);
    embedKernelT<T><<<gridFor(n), 256, 0, stream_>>>(
        s, n, ids, static_cast<const T *>(table), static_cast<T *>(out),
        rowOffset, plan.rows, plan.rowStride);
  });
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::scatterAddKernel(const EmbedPlan &plan, DType dtype,
                                   const int32_t *ids, const void *updates,
                                   void *table, int64_t rowOffset) {
  int64_t n = numElements(plan.shape);
  if (n == 0)
    return;
  Space s = makeSpace(plan.shape,
                      {&plan.idsStrides, &plan.tableStrides, &plan.outStrides});
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    scatterAddKernelT<T><<<gridFor(n), 256, 0, stream_>>>(
        s, n, ids, static_cast<const T *>(updates), static_cast<T *>(table),
        rowOffset, plan.rows, plan.rowStride);
  };
  if (dtype == DType::F32)
    launch(float());
  else if (dtype == DType::F64)
    launch(double());
  else
    fail("scatter_add of ", dtypeName(dtype),
         " is not supported on the cuda backend (f32, f64)");
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::oneHotKernel(const OneHotPlan &plan, DType dtype,
                               const int32_t *ids, void *out, int64_t offset) {
  int64_t n = numElements(plan.outShape);
  if (n == 0)
    return;
  Space s = makeSpace(plan.outShape, {&plan.idsStrides});
  dispatchType(dtype, "one_hot", [&](auto zero) {
    using T = decltype(zero);
    oneHotKernelT<T><<<gridFor(n), 256, 0, stream_>>>(
        s, n, ids, static_cast<T *>(out), offset, plan.columns,
        plan.vocabStride);
  });
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::iotaKernel(DType dtype, int64_t n, void *out, int64_t first) {
  if (n == 0)
    return;
  if (dtype == DType::I32) {
    iotaKernelT<int32_t><<<gridFor(n), 256, 0, stream_>>>(
        n, static_cast<int32_t *>(out), first);
  } else {
    dispatchType(dtype, "iota", [&](auto zero) {
      using T = decltype(zero);
      iotaKernelT<T>
          <<<gridFor(n), 256, 0, stream_>>>(n, static_cast<T *>(out), first);
    });
  }
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::randomKernel(const RandomPlan &plan, DType dtype,
                               RandomKind kind, uint64_t seed, void *out) {
  if (plan.count == 0)
    return;
  bool normal = kind == RandomKind::Normal;
  if (dtype == DType::F32)
    randomKernelT<float><<<gridFor(plan.count), 256, 0, stream_>>>(
        plan, normal, seed, static_cast<float *>(out));
  else if (dtype == DType::F64)
    randomKernelT<double><<<gridFor(plan.count), 256, 0, stream_>>>(
        plan, normal, seed, static_cast<double *>(out));
  else
    fail("random of ", dtypeName(dtype),
         " is not supported on the cuda backend (f32, f64)");
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::convertKernel(DType from, DType to, int64_t count,
                                const void *in, void *out) {
  bool ok = ops::dispatchConvert(from, to, [&](auto f, auto t) {
    using From = decltype(f);
    using To = decltype(t);
    convertKernelT<From, To><<<gridFor(count), 256, 0, stream_>>>(
        count, static_cast<const typename From::Storage *>(in),
        static_cast<typename To::Storage *>(out));
  });
  check(ok, "convert from ", dtypeName(from), " to ", dtypeName(to),
        " is not supported on the cuda backend (f32, f64, f16, bf16)");
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::padFillKernel(const PadFillPlan &plan, const void *in,
                                void *out) {
  if (plan.count == 0)
    return;
  auto launch = [&](auto zero) {
    using U = decltype(zero);
    padFillKernelT<U><<<gridFor(plan.count), 256, 0, stream_>>>(
        plan, static_cast<const U *>(in), static_cast<U *>(out));
  };
  switch (dtypeSize(plan.dtype)) {
  case 2:
    launch(uint16_t());
    break;
  case 4:
    launch(uint32_t());
    break;
  case 8:
    launch(uint64_t());
    break;
  default:
    fail("pad_fill of ", dtypeName(plan.dtype),
         " is not supported on the cuda backend");
  }
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::cumsumKernel(const CumsumPlan &plan, const void *in,
                               void *out) {
  if (plan.count == 0)
    return;
  dispatchType(plan.dtype, "cumsum", [&](auto zero) {
    using T = decltype(zero);
    cumsumKernelT<T><<<gridFor(plan.lines), 256, 0, stream_>>>(
        plan, static_cast<const T *>(in), static_cast<T *>(out));
  });
  WEFT_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::topKKernel(const TopKPlan &plan, const void *x,
                             const void *payload, void *out) {
  if (plan.outCount == 0)
    return;
  const void *src = payload ? payload : x;
  dispatchType(plan.dtype, "top_k", [&](auto zero) {
    using T = decltype(zero);
    using U = std::conditional_t<
        sizeof(T) == 2, uint16_t,
        std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
    topKKernelT<T, U><<<gridFor(plan.lines), 256, 0, stream_>>>(
        plan, static_cast<const T *>(x), static_cast<const U *>(src),
        static_cast<U *>(out));
  });
  WEFT_CUDA_CHECK(cudaGetLastError());
}

} // namespace weft::rt

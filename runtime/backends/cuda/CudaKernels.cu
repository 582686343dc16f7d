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

template <typename T> struct Compute { using type = T; };
template <> struct Compute<__half> { using type = float; };
template <> struct Compute<__nv_bfloat16> { using type = float; };

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
#define WEFT_CASE(KIND)                                                        \
  case MapKind::KIND:                                                          \
    return ops::Map<MapKind::KIND, C>::apply(x, y, s);
    WEFT_MAP_KINDS_BUT_SHIFT(WEFT_CASE)
    WEFT_CASE(Shift)
#undef WEFT_CASE
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
__device__ typename Compute<T>::type
fusedRound(typename Compute<T>::type x, uint64_t zero) {
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
__global__ void fusedMapKernelT(FusedSpace s, FusedProgram f,
                                FusedInputs<T> in, int64_t n, T *out) {
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

/// A reduction pass (planReduceLaunch): `Team` threads share an output
/// (blockDim.x = 256, 256 / Team outputs per block), blockIdx.y is the
/// segment of the reduced range [s * segLen, min(nRed, (s + 1) * segLen)).
/// `kept` spans the outputs (strides: in, out), `red` the reduced dims
/// (strides: in). With one segment the result goes to out[kept offset];
/// with several, output o's partial of segment s to out[o * segments + s].
template <ReduceKind K, typename In, typename Out, typename A, int Team>
__global__ void reduceKernelT(Space kept, int64_t nOut, Space red,
                              int64_t nRed, int64_t segLen, const In *in,
                              Out *out) {
  using R = ops::Reduce<K, A>;
  constexpr int kPerBlock = 256 / Team;
  int lane = threadIdx.x % Team;
  int64_t o = blockIdx.x * int64_t(kPerBlock) + threadIdx.x / Team;
  int64_t s = blockIdx.y;
  int64_t begin = s * segLen;
  int64_t end = begin + segLen < nRed ? begin + segLen : nRed;
  int64_t ko[2] = {0, 0};
  A acc = R::identity();
  if (o < nOut) {
    offsets<2>(kept, o, ko);
    for (int64_t r = begin + lane; r < end; r += Team) {
      int64_t ro[1];
      offsets<1>(red, r, ro);
      acc = R::combine(acc, static_cast<A>(load(in[ko[0] + ro[0]])));
    }
  }
  if constexpr (Team > 1) {
    // The tree: within each warp, then (a block's team) across warps.
    for (int d = 16; d > 0; d /= 2)
      acc = R::combine(acc, __shfl_down_sync(0xffffffffu, acc, d));
    if constexpr (Team > 32) {
      __shared__ A warpAcc[Team / 32];
      if (lane % 32 == 0)
        warpAcc[lane / 32] = acc;
      __syncthreads();
      if (lane == 0)
        for (int w = 1; w < Team / 32; ++w)
          acc = R::combine(acc, warpAcc[w]);
    }
  }
  if (lane != 0 || o >= nOut)
    return;
  if (gridDim.y == 1)
    out[ko[1]] = storeAcc<Out>(acc);
  else
    out[o * int64_t(gridDim.y) + s] = storeAcc<Out>(acc);
}

/// Launches one pass of reduceKernelT with the plan's team and segments.
template <ReduceKind K, typename In, typename Out, typename A>
void launchReduce(const ReduceLaunch &l, const Space &kept, int64_t nOut,
                  const Space &red, int64_t nRed, const In *in, Out *out,
                  cudaStream_t stream) {
  int64_t perBlock = 256 / l.team;
  int64_t blocks = (nOut + perBlock - 1) / perBlock;
  check(blocks <= 0x7fffffff && l.segments <= 65535,
        "reduce: launch of ", blocks, " x ", l.segments, " blocks too large");
  dim3 grid(static_cast<unsigned>(blocks ? blocks : 1),
            static_cast<unsigned>(l.segments));
  int64_t segLen = l.segments > 1 ? l.segmentLength : nRed;
  switch (l.team) {
  case 1:
    reduceKernelT<K, In, Out, A, 1>
        <<<grid, 256, 0, stream>>>(kept, nOut, red, nRed, segLen, in, out);
    break;
  case 32:
    reduceKernelT<K, In, Out, A, 32>
        <<<grid, 256, 0, stream>>>(kept, nOut, red, nRed, segLen, in, out);
    break;
  default:
    reduceKernelT<K, In, Out, A, 256>
        <<<grid, 256, 0, stream>>>(kept, nOut, red, nRed, segLen, in, out);
    break;
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
                                  const T *updates, T *table,
                                  int64_t rowOffset, int64_t rows,
                                  int64_t rowStride) {
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
  check(plan.shape.size() <= kMaxRank, "cuda kernels support rank <= ",
        kMaxRank, " after merging dims, got ", plan.shape.size());
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
    fusedMapKernelT<T><<<gridFor(n), 256, 0, stream_>>>(
        s, f, in, n, static_cast<T *>(out));
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
  // The reduced elements are contiguous when the innermost reduced dim has
  // stride 1 (mergeDims fused the reduced dims that can be).
  bool contiguous = !redIn.empty() && redIn.back() == 1;
  int64_t nOut = plan.outElements;
  ReduceLaunch l =
      planReduceLaunch(nOut, nRed, contiguous, residentThreads_);
  dispatchType(dtype, "reduce", [&](auto zero) {
    using T = decltype(zero);
    using A = typename ops::AccumType<typename Compute<T>::type>::type;
    ops::dispatchReduce(kind, [&]<ReduceKind K>() {
      if (l.segments == 1) {
        launchReduce<K, T, T, A>(l, kept, nOut, red, nRed,
                                 static_cast<const T *>(in),
                                 static_cast<T *>(out), stream_);
        return;
      }
      // Pass 1: partials [nOut, segments] in the accumulation type; pass 2
      // combines each output's row of partials. The scratch buffer goes back
      // to the pool after the launches: later work on this stream runs after
      // them.
      // Segments are only planned when nOut * team < residentThreads_, so
      // nOut * segments * sizeof(A) < 2^31 * 4096 * 8 cannot overflow.
      auto partials = pool_->allocate(static_cast<std::size_t>(nOut) *
                                      static_cast<std::size_t>(l.segments) *
                                      sizeof(A));
      A *part = static_cast<A *>(partials.get());
      launchReduce<K, T, A, A>(l, kept, nOut, red, nRed,
                               static_cast<const T *>(in), part, stream_);
      std::vector<int64_t> rowIn(keptShape.size()), rowRed{1};
      int64_t stride = l.segments;
      for (std::size_t d = keptShape.size(); d-- > 0;) {
        rowIn[d] = stride;
        stride *= keptShape[d];
      }
      Space keptRows = makeSpace(keptShape, {&rowIn, &keptOut});
      Shape segShape{l.segments};
      Space segs = makeSpace(segShape, {&rowRed});
      ReduceLaunch l2 =
          planReduceLaunch(nOut, l.segments, true, residentThreads_);
      l2.segments = 1;
      launchReduce<K, A, T, A>(l2, keptRows, nOut, segs, l.segments, part,
                               static_cast<T *>(out), stream_);
    });
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

void CudaBackend::iotaKernel(DType dtype, int64_t n, void *out,
                             int64_t first) {
  if (n == 0)
    return;
  if (dtype == DType::I32) {
    iotaKernelT<int32_t><<<gridFor(n), 256, 0, stream_>>>(
        n, static_cast<int32_t *>(out), first);
  } else {
    dispatchType(dtype, "iota", [&](auto zero) {
      using T = decltype(zero);
      iotaKernelT<T><<<gridFor(n), 256, 0, stream_>>>(
          n, static_cast<T *>(out), first);
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

//===- ElementPlans.h - Plans of maps, reductions and embeds ----*- C++ -*-===//
//
// Each plan reduces an index-letter op to strides over one iteration space,
// which is all a CPU loop or a CUDA kernel needs.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_ELEMENTPLANS_H
#define WEFT_RT_ELEMENTPLANS_H

#include "weft/rt/DType.h"
#include "weft/rt/Kinds.h"

#include <array>
#include <string>
#include <vector>

namespace weft::rt {

/// out[i] = f(in0[i . inStrides[0]], in1[i . inStrides[1]]) over the dense
/// result index space `shape`. A stride is 0 where an operand lacks the
/// letter (broadcast).
struct MapPlan {
  std::string spec;
  std::vector<Shape> inShapes;
  Shape outShape;
  Shape shape;                                 // simplified iteration space
  std::vector<std::vector<int64_t>> inStrides; // per operand, per dim
  std::vector<int64_t> outStrides;             // dense, per dim
};

/// Every operand letter must be a result letter. A result letter in no
/// operand broadcasts the result along it and takes its size from
/// `outShape` (which, when given, must agree with the operands).
MapPlan planMap(const std::string &spec, const std::vector<Shape> &inShapes,
                const Shape *outShape = nullptr);

/// A fused chain of elementwise maps (weft.fused_map, made by
/// --weft-fuse-elementwise): one pass over the iteration space `shape`
/// computes every step per element and writes only the last. Value ids:
/// i < number of inputs is input i (read at its strides, 0 where it lacks a
/// letter); inputs + j is step j's result. A step reads values of lower id
/// only; `b` is -1 for a unary kind; `scalar` is scale/shift's constant.
/// Each step's result is rounded to the tensor dtype, as the unfused map
/// stores it, so a fused chain gives the unfused chain's bits.
struct FusedStep {
  MapKind kind = MapKind::Add;
  int a = 0;
  int b = -1;
  double scalar = 0.0;
};
struct FusedMapPlan {
  std::string spec; // "btd,d,btd->btd": one operand per input
  std::vector<Shape> inShapes;
  Shape outShape;
  Shape shape;                                 // merged iteration space
  std::vector<std::vector<int64_t>> inStrides; // per input, per dim
  std::vector<int64_t> outStrides;             // dense, per dim
  std::vector<FusedStep> steps;                // the last one is the result
};
/// Limits of one fused op (the pass stops growing a group at them).
constexpr int kMaxFusedInputs = 8;
constexpr int kMaxFusedSteps = 16;

/// Plans a fused chain: as planMap for 1..kMaxFusedInputs operands (every
/// operand letter a result letter, broadcast letters sized by `outShape`),
/// and checks the steps (1..kMaxFusedSteps; kinds' arity, ids in range and
/// lower than the step's own).
FusedMapPlan planFusedMap(const std::string &spec,
                          const std::vector<Shape> &inShapes,
                          const Shape &outShape, std::vector<FusedStep> steps);

/// out[o] = reduce over the dims with outStride 0 of in. Iteration space is
/// the input's dims in input order (simplified).
struct ReducePlan {
  std::string spec;
  Shape inShape;
  Shape outShape;
  Shape shape;
  std::vector<int64_t> inStrides;
  std::vector<int64_t> outStrides; // 0 on reduced dims
  int64_t outElements = 1;
  int64_t reducedElements = 1; // elements combined into each output
};

/// Result letters must be a subset of the input letters, in any order.
ReducePlan planReduce(const std::string &spec, const Shape &inShape);

/// How a device with `deviceThreads` resident threads splits a reduction
/// (the CUDA backend launches it; tests check it on the CPU, and
/// ReduceLaunchTest replays its order with ElementOps.h's combine):
/// - `team` threads (1, 32 or 256) share one output, each taking every
///   team-th reduced element, then combine in a tree. A team is used when
///   the reduced elements are contiguous (`reducedContiguous`) and there are
///   more of them than a warp; otherwise one thread per output walks its
///   elements while the adjacent threads read adjacent addresses.
/// - When the outputs alone cannot fill the device, the reduced range is cut
///   into `segments` pieces of `segmentLength` (the last may be shorter,
///   none is empty): pass 1 writes one partial per (output, segment) in the
///   accumulation type, pass 2 combines each output's partials in order.
/// The split depends on the sizes only, so a result is reproducible.
struct ReduceLaunch {
  int team = 1;
  int64_t segments = 1;
  int64_t segmentLength = 0;
};
ReduceLaunch planReduceLaunch(int64_t outElements, int64_t reducedElements,
                              bool reducedContiguous, int64_t deviceThreads);

/// out[i] = table[(ids[i . idsStrides] - offset) * rowStride +
///                i . tableStrides] when the id is in [offset, offset+rows),
/// else 0.
struct EmbedPlan {
  std::string spec;
  Shape idsShape, tableShape, outShape;
  Shape shape; // iteration space = dense result
  std::vector<int64_t> idsStrides;
  std::vector<int64_t> tableStrides;
  std::vector<int64_t> outStrides;
  int64_t rows = 0;      // local table rows (extent of the vocab letter)
  int64_t rowStride = 0; // table stride of the vocab letter
  /// Fast path: result = ids letters then the table's row letters in
  /// order, table = vocab letter first: each id copies rowElements
  /// contiguous values.
  bool rowCopy = false;
  int64_t rowElements = 0;
  int64_t numIds = 0;
};

/// "bt,vd->btd": operand 0 holds int32 ids, operand 1 the table; exactly one
/// table letter (the vocab letter) is in neither the ids nor the result, and
/// the result letters are the union of the ids letters and the other table
/// letters. Table letters shared with the ids are batch letters (a gather
/// along a letter, "bt,btv->bt": each (b, t) picks its own row's element).
EmbedPlan planEmbed(const std::string &spec, const Shape &idsShape,
                    const Shape &tableShape);

/// scatter_add "ids,updates->vd", the transpose of embed "ids,vd->updates":
/// the plan of that embed (its `table` is the scatter's result, its `out`
/// the updates), so both walk the same index space.
EmbedPlan planScatterAdd(const std::string &spec, const Shape &idsShape,
                         const Shape &updatesShape, const Shape &resultShape);

/// one_hot "ids->out": out[i] = (ids[i . idsStrides] - offset ==
/// (i / vocabStride) % columns), the vocabulary letter being the out letter
/// the ids lack.
struct OneHotPlan {
  std::string spec;
  Shape idsShape, outShape;
  std::vector<int64_t> idsStrides; // over outShape
  int64_t columns = 0;             // local extent of the vocabulary letter
  int64_t vocabStride = 0;         // dense out stride of that letter
};

OneHotPlan planOneHot(const std::string &spec, const Shape &idsShape,
                      const Shape &outShape);

/// weft.random's block: the local shape padded to 4 dimensions with 1s and
/// the global index of its first element along each (0 for the padding).
/// Element (i0, i1, i2, i3) of the block draws from the counter
/// (first[0] + i0, ..., first[3] + i3).
struct RandomPlan {
  std::array<int64_t, 4> shape{1, 1, 1, 1};
  std::array<int64_t, 4> first{0, 0, 0, 0};
  int64_t count = 1;
};

/// `first` has one entry per dimension of `shape` (at most 4), and every
/// global index first[k] + shape[k] - 1 fits a 32-bit counter word.
RandomPlan planRandom(const Shape &shape, const std::vector<int64_t> &first);

/// pad_fill, the op of uneven shards: a dim of logical size n split over k
/// devices is padded to a multiple of k, the pads at the end of the global
/// dim. out[i] = in[i] where first[d] + i[d] < valid[d] for every dim d
/// (`first` the global index of the block's first element, `valid` the
/// logical global size), else the fill. keep[d] = clamp(valid[d] - first[d],
/// 0, extent) counts the leading positions of dim d inside the logical
/// tensor. A dim absorbs the fully kept dims inside it (i[d] < keep[d] over
/// extent E of the inner dims is j < keep[d] * E over the merged extent), so
/// a block padded along one dim is one dim here.
struct PadFillPlan {
  static constexpr int kMaxRank = 8;
  DType dtype = DType::F32;
  int rank = 1; // merged dims, >= 1
  std::array<int64_t, kMaxRank> shape{};
  std::array<int64_t, kMaxRank> keep{};
  int64_t count = 0;  // elements of the block
  int64_t inside = 0; // of them inside the logical tensor
  /// The fill in `dtype`, as the element's bits in the low bytes (rounded
  /// here once, so every backend writes the same bits).
  uint64_t fill = 0;
};

/// `first` and `valid` have one entry per dim of `shape`, all >= 0, and
/// first[d] + shape[d] must not overflow. An i32 fill is clamped to the
/// int32 range and truncated toward zero (a NaN is an error). Throws Error
/// when the merged dims exceed PadFillPlan::kMaxRank.
PadFillPlan planPadFill(DType dtype, const Shape &shape,
                        const std::vector<int64_t> &first,
                        const std::vector<int64_t> &valid, double fill);

/// cumsum along dimension `dim`: the operand viewed as [outer, n, inner]
/// around it (outer the product of the extents before `dim`, inner of those
/// after), each of its outer * inner lines of n elements (inner apart in
/// memory) summed sequentially from its first element (from its last for
/// `reverse`). Inclusive: y[i] = sum_{j<=i} x[j]; exclusive: y[i] =
/// sum_{j<i} x[j], so y[0] = 0 (reverse: j>=i and j>i). Plain values only,
/// so the plan passes to a CUDA kernel by value.
struct CumsumPlan {
  DType dtype = DType::F32;
  int dim = 0;
  bool exclusive = false;
  bool reverse = false;
  int64_t outer = 1; // product of the extents before dim
  int64_t n = 1;     // the extent of dim (the line length)
  int64_t inner = 1; // product of the extents after dim (the line stride)
  /// outer * inner and outer * n * inner; both 0 for an empty tensor (a 0
  /// extent anywhere), whose plan does nothing (its outer or inner is 0
  /// where the product would overflow int64).
  int64_t lines = 0;
  int64_t count = 0;
};

/// `dtype` is f32, f64, f16 or bf16 (f16/bf16 and f32 accumulate in float,
/// f64 in double); 0 <= dim < rank (a rank-0 tensor has no dim); extents
/// >= 0 and the element and byte counts fit in int64. Throws Error
/// otherwise.
CumsumPlan planCumsum(DType dtype, const Shape &shape, int dim, bool exclusive,
                      bool reverse);

/// top-k along dimension `dim`: the operand viewed as [outer, n, inner]
/// around it, as for cumsum; in each of its outer * inner lines of n
/// elements (inner apart in memory) the k largest, in the order of
/// ops::topKBefore (descending value, NaN above every number, ties to the
/// lower index). The result is [outer, k, inner]: its j-th element of a
/// line is the operand's (or the payload's) element at the j-th selected
/// position. Plain values only, so the plan passes to a CUDA kernel by
/// value.
struct TopKPlan {
  DType dtype = DType::F32;
  int dim = 0;
  int64_t outer = 1; // product of the extents before dim
  int64_t n = 1;     // the extent of dim (the line length), >= k
  int64_t inner = 1; // product of the extents after dim (the line stride)
  int64_t k = 1;     // elements selected per line, 1 <= k <= n
  /// outer * inner, outer * n * inner (the operand's elements) and
  /// outer * k * inner (the result's); all 0 for an empty tensor (a 0
  /// extent other than dim's), whose plan does nothing (its outer or inner
  /// is 0 where the product would overflow int64).
  int64_t lines = 0;
  int64_t count = 0;
  int64_t outCount = 0;
};

/// `dtype` is f32, f64, f16 or bf16 (compared in float; f64 in double);
/// 0 <= dim < rank (a rank-0 tensor has no dim); 1 <= k <= shape[dim];
/// extents >= 0 and the element and byte counts fit in int64. Throws Error
/// otherwise.
TopKPlan planTopK(DType dtype, const Shape &shape, int dim, int k);

} // namespace weft::rt

#endif // WEFT_RT_ELEMENTPLANS_H

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

/// A fused chain of maps and row reductions (weft.fused_rows, made by
/// --weft-fuse-elementwise): softmax, RMSNorm, LayerNorm in one pass over
/// each row. The iteration space is kept x row: the kept letters (outer)
/// and the row letters `rowLetters` (the trailing letters of the space,
/// merged into one dimension of `rowLength` elements). A value is either
/// *full* (one element per (row, position): an input holding the row
/// letters, a map of at least one full value) or a *row value* (one per
/// row: an input without row letters, a reduction, a map of row values).
/// Value ids as in FusedMapPlan: i < inputs is input i, inputs + j step j.
/// A reduction step reads one full value and combines its row in
/// ops::reduceCanonical's order, accumulating in ops::AccumType and
/// rounding to the tensor dtype, as the unfused weft.reduce stores it; a map
/// step rounds to the dtype too, so the fused op gives the unfused chain's
/// bits. The last step is the result: full (outShape = kept + row letters)
/// or a row value (outShape = the kept letters).
///
/// The unfused chain stores every full step as a dense tensor (kept + row
/// letters), whose reduction is row-ordered (reduceRowOrdered): the same
/// canonical order. A reduction reading a full *input* directly matches the
/// unfused weft.reduce of that input when its row stride is 1 (the row
/// letters trailing, as the compiler always makes them); of an input read at
/// another stride (planFusedRows accepts one) the unfused reduce is not
/// row-ordered, and the fused result still follows the canonical order.
struct FusedRowStep {
  bool reduce = false;                     // a row reduction of value `a`
  ReduceKind reduceKind = ReduceKind::Sum; // when reduce
  MapKind kind = MapKind::Add;             // when !reduce
  int a = 0;
  int b = -1; // -1: unary (and always for a reduction)
  double scalar = 0.0;
};
/// The row reduction `k` of value `a`.
inline FusedRowStep fusedRowReduce(ReduceKind k, int a) {
  return FusedRowStep{true, k, MapKind::Add, a, -1, 0.0};
}
/// The map `k` of value `a` (and `b`; -1 for one operand) with the constant
/// `s` of MapKind::Scale and MapKind::Shift.
inline FusedRowStep fusedRowMap(MapKind k, int a, int b = -1, double s = 0.0) {
  return FusedRowStep{false, ReduceKind::Sum, k, a, b, s};
}
/// Softmax over the row of a chain's one input (value 0): max, sub, exp,
/// sum, div, the chain --weft-fuse-rows makes of it (values 1 to 5).
inline std::vector<FusedRowStep> fusedSoftmaxSteps() {
  return {fusedRowReduce(ReduceKind::Max, 0), fusedRowMap(MapKind::Sub, 0, 1),
          fusedRowMap(MapKind::Exp, 2), fusedRowReduce(ReduceKind::Sum, 3),
          fusedRowMap(MapKind::Div, 3, 4)};
}
/// Softmax of input 0 plus input 1 (attention's additive mask): add, then
/// fusedSoftmaxSteps' chain on the sum (values 2 to 7).
inline std::vector<FusedRowStep> fusedMaskedSoftmaxSteps() {
  return {
      fusedRowMap(MapKind::Add, 0, 1),    fusedRowReduce(ReduceKind::Max, 2),
      fusedRowMap(MapKind::Sub, 2, 3),    fusedRowMap(MapKind::Exp, 4),
      fusedRowReduce(ReduceKind::Sum, 5), fusedRowMap(MapKind::Div, 5, 6)};
}

struct FusedRowsPlan {
  std::string spec;       // "bhts,bht->bhts": operand letters -> result
  std::string rowLetters; // "s"
  std::vector<Shape> inShapes;
  Shape outShape;
  /// The kept dims in result order, merged where adjacent dims' strides
  /// merge for every input and the result (as planMap merges), extent-1
  /// dims dropped; outer to inner (empty: one row).
  Shape keptShape;
  std::vector<std::vector<int64_t>> inKeptStrides; // per input, per kept dim
  std::vector<int64_t> outKeptStrides;             // per kept dim
  int64_t rows = 1;                                // product of keptShape
  int64_t rowLength = 1; // product of the row letters' sizes
  /// Per input: stride along the merged row; 0 for a row value (an input
  /// without the row letters).
  std::vector<int64_t> inRowStrides;
  /// 1 when the result is full (its row is contiguous), 0 when it is a row
  /// value.
  int64_t outRowStride = 0;
  std::vector<FusedRowStep> steps; // the last one is the result
  /// Per value id (inputs, then steps): true when full.
  std::vector<bool> full;
};

/// Plans a fused row chain. `spec`'s result letters are the kept letters
/// followed by `rowLetters` when the result is full, the kept letters alone
/// when it is a row value; every kept letter is in some input. Every input
/// holds either all row letters or none, and no letter outside the kept and
/// row letters; a kept letter an input lacks is broadcast (stride 0). A full
/// input's row letters must merge into one stride: its trailing letters in
/// `rowLetters`' order (stride 1; what the compiler emits) or, say, a
/// transposed operand "sb" for rows "s" (stride = b's extent). Checks the
/// steps (1..kMaxFusedSteps, 1..kMaxFusedInputs inputs, kinds and arity, ids
/// in range and lower than the step's own, a reduction of a full value,
/// every input read, the last step full exactly when the result holds the
/// row letters) and that the space's elements and f64 bytes fit in int64.
/// Errors name the spec.
FusedRowsPlan planFusedRows(const std::string &spec,
                            const std::string &rowLetters,
                            const std::vector<Shape> &inShapes,
                            std::vector<FusedRowStep> steps);

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

/// Whether a reduction is *row-ordered*: after the plan's dims are merged,
/// the innermost reduced dim (outStride 0) has input stride 1, so each
/// output's elements are rows of contiguous runs (softmax's max and sum over
/// "bhts->bht", RMSNorm's "btd->bt", a loss's "ij->"). Both backends combine
/// a row-ordered reduction in ops::reduceCanonical's order over the reduced
/// index order (row-major over the reduced dims in input order), so the CPU
/// and the CUDA backend agree bit for bit. Any other reduction (over outer
/// letters only, as a bias gradient "bd->d", or with nothing to reduce)
/// combines each output's elements sequentially in that order, from the
/// identity, in ops::AccumType: the CPU's row-accumulating loop and the
/// CUDA backend's thread per output, which agree while the CUDA backend does
/// not cut the range into segments (planReduceLaunch).
bool reduceRowOrdered(const ReducePlan &plan);

/// How the CUDA backend launches a reduction (tests check it on the CPU, and
/// ReduceLaunchTest replays its order with ElementOps.h's combine):
/// - Row-ordered (`rowOrdered`): ops::reduceCanonical's order. One warp
///   (`team` = 32) per (output, segment of `segmentLength` =
///   min(reducedElements, ops::kReduceSegment) elements), its lane j taking
///   the segment's elements j, j+32, ... and the tree of __shfl_down_sync.
///   With `segments` > 1, pass 1 writes the partials [outputs, segments] in
///   the accumulation type; each further pass reduces those rows by the
///   same rule (partials of partials) until one value per output is left:
///   `passes` launches in all. Independent of the device.
/// - Otherwise one thread per output (`team` = 1) walks its elements in
///   order while adjacent threads read adjacent addresses. When the outputs
///   alone cannot fill the device (`deviceThreads` resident threads), the
///   reduced range is cut into `segments` pieces of `segmentLength` (the
///   last may be shorter, none is empty): pass 1 writes one partial per
///   (output, segment), and the row-ordered passes combine each output's
///   row of partials in ops::reduceCanonical's order (`passes` in all). The
///   split depends on the sizes and the device's thread count only, so a
///   result is reproducible on one device; unsplit, it is the CPU's
///   sequential order.
struct ReduceLaunch {
  int team = 1;
  int64_t segments = 1;
  int64_t segmentLength = 0;
  int passes = 1;
};
ReduceLaunch planReduceLaunch(int64_t outElements, int64_t reducedElements,
                              bool rowOrdered, int64_t deviceThreads);

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

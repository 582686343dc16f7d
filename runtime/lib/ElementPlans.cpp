//===- ElementPlans.cpp - Plans of maps, reductions and embeds ------------===//

#include "weft/rt/ElementPlans.h"
#include "weft/rt/CopyPlan.h"
#include "weft/rt/EinsumSpec.h"
#include "weft/rt/Error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace weft::rt {

/// Strides of operand `letters` (dense `shape`) along the dims of `space`.
static std::vector<int64_t> stridesIn(const std::string &space,
                                      const std::string &letters,
                                      const Shape &shape) {
  auto dense = rowMajorStrides(shape);
  std::vector<int64_t> s(space.size(), 0);
  for (std::size_t d = 0; d < space.size(); ++d) {
    auto pos = letters.find(space[d]);
    if (pos != std::string::npos)
      s[d] = dense[pos];
  }
  return s;
}

static Shape shapeOf(const std::string &letters,
                     const std::map<char, int64_t> &sizes) {
  Shape s;
  for (char c : letters)
    s.push_back(sizes.at(c));
  return s;
}

MapPlan planMap(const std::string &specText,
                const std::vector<Shape> &inShapes, const Shape *outShape) {
  EinsumSpec spec = EinsumSpec::parse(specText, 1, 2);
  auto sizes = spec.letterSizes(inShapes);
  if (outShape) {
    check(outShape->size() == spec.output.size(), "map spec '", specText,
          "': the result has ", spec.output.size(), " letters but rank ",
          outShape->size());
    for (std::size_t d = 0; d < spec.output.size(); ++d) {
      char c = spec.output[d];
      auto [it, inserted] = sizes.emplace(c, (*outShape)[d]);
      check((*outShape)[d] >= 0 && it->second == (*outShape)[d], "map spec '",
            specText, "': result letter '", c, "' has size ", (*outShape)[d],
            " but ", it->second, " in an operand");
    }
  }
  for (char c : spec.output)
    check(sizes.count(c), "map spec '", specText, "': result letter '", c,
          "' is in no operand (a broadcast letter needs the result shape)");
  for (const auto &in : spec.inputs)
    for (char c : in)
      check(spec.output.find(c) != std::string::npos, "map spec '", specText,
            "': operand letter '", c,
            "' missing from the result (use a reduce to drop letters)");
  MapPlan p;
  p.spec = spec.str();
  p.inShapes = inShapes;
  p.outShape = shapeOf(spec.output, sizes);
  p.shape = p.outShape;
  p.outStrides = rowMajorStrides(p.outShape);
  for (std::size_t i = 0; i < inShapes.size(); ++i)
    p.inStrides.push_back(stridesIn(spec.output, spec.inputs[i], inShapes[i]));
  std::vector<std::vector<int64_t> *> all{&p.outStrides};
  for (auto &s : p.inStrides)
    all.push_back(&s);
  mergeDims(p.shape, all);
  return p;
}

FusedMapPlan planFusedMap(const std::string &specText,
                          const std::vector<Shape> &inShapes,
                          const Shape &outShape, std::vector<FusedStep> steps) {
  EinsumSpec spec = EinsumSpec::parse(specText, 1, kMaxFusedInputs);
  auto sizes = spec.letterSizes(inShapes);
  check(outShape.size() == spec.output.size(), "fused_map spec '", specText,
        "': the result has ", spec.output.size(), " letters but rank ",
        outShape.size());
  int64_t count = 1;
  for (std::size_t d = 0; d < spec.output.size(); ++d) {
    char c = spec.output[d];
    auto [it, inserted] = sizes.emplace(c, outShape[d]);
    check(outShape[d] >= 0 && it->second == outShape[d], "fused_map spec '",
          specText, "': result letter '", c, "' has size ", outShape[d],
          " but ", it->second, " in an operand");
    check(!__builtin_mul_overflow(count, outShape[d], &count),
          "fused_map spec '", specText, "': the result ",
          shapeToString(outShape), " has more than 2^63 elements");
  }
  // The widest dtype (f64) must fit in bytes too.
  int64_t bytes = 0;
  check(!__builtin_mul_overflow(count, int64_t(8), &bytes), "fused_map spec '",
        specText, "': the result ", shapeToString(outShape), " is too large");
  for (const auto &in : spec.inputs)
    for (char c : in)
      check(spec.output.find(c) != std::string::npos, "fused_map spec '",
            specText, "': operand letter '", c,
            "' missing from the result (use a reduce to drop letters)");

  const int inputs = static_cast<int>(spec.inputs.size());
  const int numSteps = static_cast<int>(steps.size());
  check(numSteps >= 1 && numSteps <= kMaxFusedSteps, "fused_map spec '",
        specText, "': has ", numSteps, " steps, expected 1 to ",
        kMaxFusedSteps);
  std::vector<bool> read(inputs, false);
  for (int j = 0; j < numSteps; ++j) {
    const FusedStep &s = steps[j];
    const int kind = static_cast<int>(s.kind);
    check(kind >= 0 && kind <= static_cast<int>(MapKind::Shift),
          "fused_map spec '", specText, "': step ", j, " has invalid kind ",
          kind);
    // Values 0..inputs+j-1 exist when step j runs.
    const int known = inputs + j;
    auto checkId = [&](int id, const char *which) {
      check(id >= 0 && id < known, "fused_map spec '", specText, "': step ",
            j, " (", mapKindName(s.kind), ") reads value ", id, " as its ",
            which, " operand, but only values 0 to ", known - 1,
            " exist before it (", inputs, " inputs, then earlier steps)");
      if (id < inputs)
        read[id] = true;
    };
    checkId(s.a, "first");
    if (isBinary(s.kind))
      checkId(s.b, "second");
    else
      check(s.b == -1, "fused_map spec '", specText, "': step ", j, " (",
            mapKindName(s.kind), ") is unary but has a second operand ", s.b,
            " (expected -1)");
  }
  for (int i = 0; i < inputs; ++i)
    check(read[i], "fused_map spec '", specText, "': input ", i, " '",
          spec.inputs[i], "' is read by no step");

  FusedMapPlan p;
  p.spec = spec.str();
  p.inShapes = inShapes;
  p.outShape = outShape;
  p.shape = outShape;
  p.outStrides = rowMajorStrides(outShape);
  for (int i = 0; i < inputs; ++i)
    p.inStrides.push_back(stridesIn(spec.output, spec.inputs[i], inShapes[i]));
  std::vector<std::vector<int64_t> *> all{&p.outStrides};
  for (auto &s : p.inStrides)
    all.push_back(&s);
  mergeDims(p.shape, all);
  p.steps = std::move(steps);
  return p;
}

ReducePlan planReduce(const std::string &specText, const Shape &inShape) {
  EinsumSpec spec = EinsumSpec::parse(specText, 1, 1);
  auto sizes = spec.letterSizes({inShape});
  for (char c : spec.output)
    check(sizes.count(c), "reduce spec '", specText, "': result letter '", c,
          "' is not an input letter");
  ReducePlan p;
  p.spec = spec.str();
  p.inShape = inShape;
  p.outShape = shapeOf(spec.output, sizes);
  p.outElements = numElements(p.outShape);
  p.reducedElements = 1;
  for (char c : spec.inputs[0])
    if (spec.output.find(c) == std::string::npos)
      p.reducedElements *= sizes.at(c);
  p.shape = inShape;
  p.inStrides = rowMajorStrides(inShape);
  p.outStrides = stridesIn(spec.inputs[0], spec.output, p.outShape);
  mergeDims(p.shape, {&p.inStrides, &p.outStrides});
  return p;
}

ReduceLaunch planReduceLaunch(int64_t outElements, int64_t reducedElements,
                              bool reducedContiguous, int64_t deviceThreads) {
  check(outElements >= 0 && reducedElements >= 0 && deviceThreads > 0,
        "planReduceLaunch: negative sizes or no device threads");
  // Below these the plain thread-per-output loop is as fast.
  constexpr int64_t kWarp = 32, kBlock = 256;
  constexpr int64_t kMinPerThread = 16;   // elements each thread combines
  constexpr int64_t kMaxSegments = 4096;  // partials per output
  ReduceLaunch l;
  l.segmentLength = reducedElements;
  if (outElements == 0 || reducedElements <= kWarp)
    return l;
  if (reducedContiguous)
    l.team = reducedElements >= 8 * kBlock ? kBlock : kWarp;
  // Threads of pass 1 without a split; outElements * team cannot overflow
  // (outElements counts a tensor's elements, team <= 256).
  int64_t busy = outElements * l.team;
  if (busy >= deviceThreads)
    return l;
  int64_t want = (deviceThreads + busy - 1) / busy;
  int64_t most = reducedElements / (l.team * kMinPerThread);
  int64_t segments = std::max<int64_t>(
      1, std::min({want, most, kMaxSegments}));
  l.segmentLength = (reducedElements + segments - 1) / segments;
  l.segments = (reducedElements + l.segmentLength - 1) / l.segmentLength;
  return l;
}

EmbedPlan planEmbed(const std::string &specText, const Shape &idsShape,
                    const Shape &tableShape) {
  EinsumSpec spec = EinsumSpec::parse(specText, 2, 2);
  const std::string &ids = spec.inputs[0], &table = spec.inputs[1];
  auto sizes = spec.letterSizes({idsShape, tableShape});
  // The gather: the table's letters are the looked-up (vocabulary) letter,
  // batch letters shared with the ids, and kept letters.
  char vocab = 0;
  for (char c : table) {
    if (ids.find(c) != std::string::npos ||
        spec.output.find(c) != std::string::npos)
      continue;
    check(vocab == 0, "embed spec '", specText,
          "': the table must have exactly one letter in neither the ids nor "
          "the result (the vocabulary letter)");
    vocab = c;
  }
  check(vocab != 0, "embed spec '", specText,
        "': every table letter is in the ids or the result (no vocabulary "
        "letter)");
  for (char c : ids)
    check(spec.output.find(c) != std::string::npos, "embed spec '", specText,
          "': ids letter '", c, "' missing from the result");
  for (char c : spec.output)
    check(sizes.count(c), "embed spec '", specText, "': result letter '", c,
          "' is in no operand");
  EmbedPlan p;
  p.spec = spec.str();
  p.idsShape = idsShape;
  p.tableShape = tableShape;
  p.outShape = shapeOf(spec.output, sizes);
  p.shape = p.outShape;
  p.outStrides = rowMajorStrides(p.outShape);
  p.idsStrides = stridesIn(spec.output, ids, idsShape);
  p.tableStrides = stridesIn(spec.output, table, tableShape);
  auto tableDense = rowMajorStrides(tableShape);
  p.rows = sizes.at(vocab);
  p.rowStride = tableDense[table.find(vocab)];
  std::string rest = table;
  rest.erase(rest.find(vocab), 1);
  p.rowCopy = table[0] == vocab && spec.output == ids + rest;
  p.rowElements = numElements(shapeOf(rest, sizes));
  p.numIds = numElements(idsShape);
  return p;
}

EmbedPlan planScatterAdd(const std::string &specText, const Shape &idsShape,
                         const Shape &updatesShape,
                         const Shape &resultShape) {
  EinsumSpec spec = EinsumSpec::parse(specText, 2, 2);
  EmbedPlan p = planEmbed(spec.inputs[0] + "," + spec.output + "->" +
                              spec.inputs[1],
                          idsShape, resultShape);
  check(p.outShape == updatesShape, "scatter_add spec '", specText,
        "': the updates have shape ", shapeToString(updatesShape),
        " but the spec gives ", shapeToString(p.outShape));
  return p;
}

OneHotPlan planOneHot(const std::string &specText, const Shape &idsShape,
                      const Shape &outShape) {
  EinsumSpec spec = EinsumSpec::parse(specText, 1, 1);
  const std::string &ids = spec.inputs[0];
  check(ids.size() == idsShape.size() && spec.output.size() == outShape.size(),
        "one_hot spec '", specText, "' does not match the shapes ",
        shapeToString(idsShape), " -> ", shapeToString(outShape));
  size_t vocab = std::string::npos;
  for (size_t i = 0; i < spec.output.size(); ++i)
    if (ids.find(spec.output[i]) == std::string::npos) {
      check(vocab == std::string::npos, "one_hot spec '", specText,
            "': the result must have exactly one letter the ids lack");
      vocab = i;
    }
  check(vocab != std::string::npos && spec.output.size() == ids.size() + 1,
        "one_hot spec '", specText,
        "': the result must be the ids' letters plus one vocabulary letter");
  for (size_t i = 0; i < ids.size(); ++i) {
    size_t at = spec.output.find(ids[i]);
    check(at != std::string::npos && outShape[at] == idsShape[i],
          "one_hot spec '", specText, "': ids letter '", ids[i],
          "' has a different size in the result");
  }
  OneHotPlan p;
  p.spec = spec.str();
  p.idsShape = idsShape;
  p.outShape = outShape;
  p.idsStrides = stridesIn(spec.output, ids, idsShape);
  p.columns = outShape[vocab];
  p.vocabStride = rowMajorStrides(outShape)[vocab];
  return p;
}

RandomPlan planRandom(const Shape &shape, const std::vector<int64_t> &first) {
  check(shape.size() <= 4 && first.size() == shape.size(),
        "random: a result of ", shape.size(), " dimensions with ",
        first.size(), " block offsets (at most 4 dimensions, one each)");
  RandomPlan p;
  for (size_t k = 0; k < shape.size(); ++k) {
    check(shape[k] >= 0 && first[k] >= 0 &&
              first[k] + shape[k] <= (int64_t(1) << 32),
          "random: dimension ", k, " covers indices [", first[k], ", ",
          first[k] + shape[k], "), beyond a 32-bit counter word");
    p.shape[k] = shape[k];
    p.first[k] = first[k];
  }
  p.count = numElements(shape);
  return p;
}

PadFillPlan planPadFill(DType dtype, const Shape &shape,
                        const std::vector<int64_t> &first,
                        const std::vector<int64_t> &valid, double fill) {
  check(first.size() == shape.size() && valid.size() == shape.size(),
        "pad_fill: a block of ", shape.size(), " dimensions with ",
        first.size(), " block offsets and ", valid.size(),
        " logical sizes (one each)");
  PadFillPlan p;
  p.dtype = dtype;
  int64_t count = 1, inside = 1;
  std::vector<int64_t> keep(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t end = 0;
    check(shape[d] >= 0 && first[d] >= 0 && valid[d] >= 0 &&
              !__builtin_add_overflow(first[d], shape[d], &end),
          "pad_fill: dimension ", d, " has extent ", shape[d],
          ", block offset ", first[d], " and logical size ", valid[d],
          " (each must be >= 0, the block's end must fit in int64)");
    keep[d] = std::min(shape[d], std::max<int64_t>(0, valid[d] - first[d]));
    check(!__builtin_mul_overflow(count, shape[d], &count),
          "pad_fill: the block ", shapeToString(shape),
          " has more than 2^63 elements");
    inside *= keep[d]; // <= count
  }
  // Bytes must fit too (the tensor exists, but the plan stands alone).
  int64_t bytes = 0;
  check(!__builtin_mul_overflow(count, static_cast<int64_t>(dtypeSize(dtype)),
                                &bytes),
        "pad_fill: the block ", shapeToString(shape), " of ",
        dtypeName(dtype), " is too large");
  p.count = count;
  p.inside = inside;
  if (inside == count || inside == 0) {
    // All inside (or an empty block) or all padding: one dim.
    p.rank = 1;
    p.shape[0] = count;
    p.keep[0] = inside;
  } else {
    // Innermost first: a dim absorbs the merged dim inside it when that one
    // is fully kept; extent-1 dims inside the tensor drop out.
    std::vector<std::pair<int64_t, int64_t>> dims; // (extent, keep)
    for (size_t i = shape.size(); i-- > 0;) {
      if (shape[i] == 1 && keep[i] == 1)
        continue;
      if (!dims.empty() && dims.back().first == dims.back().second) {
        int64_t e = dims.back().first;
        dims.back() = {shape[i] * e, keep[i] * e};
      } else {
        dims.emplace_back(shape[i], keep[i]);
      }
    }
    check(dims.size() <= static_cast<size_t>(PadFillPlan::kMaxRank),
          "pad_fill: the block ", shapeToString(shape), " with logical sizes ",
          shapeToString(valid), " at ", shapeToString(first), " has ",
          dims.size(), " padded dimensions after merging (at most ",
          PadFillPlan::kMaxRank, ")");
    p.rank = static_cast<int>(dims.size());
    for (int d = 0; d < p.rank; ++d) {
      p.shape[d] = dims[dims.size() - 1 - d].first;
      p.keep[d] = dims[dims.size() - 1 - d].second;
    }
  }
  switch (dtype) {
  case DType::F32: {
    float f = static_cast<float>(fill);
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    p.fill = b;
    break;
  }
  case DType::F64:
    std::memcpy(&p.fill, &fill, sizeof fill);
    break;
  case DType::F16:
    p.fill = floatToHalf(static_cast<float>(fill));
    break;
  case DType::BF16:
    p.fill = floatToBFloat16(static_cast<float>(fill));
    break;
  case DType::I32: {
    check(!std::isnan(fill), "pad_fill: an i32 tensor cannot be filled with "
                             "NaN");
    double c = std::clamp(fill, -2147483648.0, 2147483647.0);
    p.fill = static_cast<uint32_t>(static_cast<int32_t>(c));
    break;
  }
  }
  return p;
}

namespace {
/// A tensor seen as [outer, n, inner] lines along `dim` (cumsum, top_k):
/// the checks both ops share, with `op` naming the op in messages.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1, count = 0, lines = 0;
  bool empty = false;
};

Lines splitLines(const char *op, const char *verb, DType dtype,
                 const Shape &shape, int dim) {
  check(dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
            dtype == DType::BF16,
        op, " of ", dtypeName(dtype), " is not supported (f32, f64, f16, bf16)");
  const int rank = static_cast<int>(shape.size());
  check(rank > 0, op, ": a rank-0 tensor has no dimension to ", verb,
        " along");
  if (dim < 0 || dim >= rank)
    fail(op, ": dim ", dim, " is out of range for ", shapeToString(shape),
         " (0 <= dim < ", rank, ")");
  Lines l;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] < 0)
      fail(op, ": dimension ", d, " of ", shapeToString(shape),
           " has a negative extent");
    l.empty = l.empty || shape[d] == 0;
  }
  // Products of extents: an empty tensor's may overflow (then 0: its plan
  // does nothing); a non-empty tensor's are divisors of its element count,
  // which is checked.
  auto product = [&](int from, int to) {
    int64_t r = 1;
    for (int d = from; d < to; ++d)
      if (__builtin_mul_overflow(r, shape[d], &r))
        return int64_t(0);
    return r;
  };
  if (!l.empty) {
    l.count = 1;
    for (int d = 0; d < rank; ++d)
      if (__builtin_mul_overflow(l.count, shape[d], &l.count))
        fail(op, ": ", shapeToString(shape), " has more than 2^63 elements");
    int64_t bytes = 0;
    if (__builtin_mul_overflow(l.count,
                               static_cast<int64_t>(dtypeSize(dtype)), &bytes))
      fail(op, ": ", shapeToString(shape), " of ", dtypeName(dtype),
           " is too large");
  }
  l.outer = product(0, dim);
  l.n = shape[dim];
  l.inner = product(dim + 1, rank);
  l.lines = l.empty ? 0 : l.outer * l.inner;
  return l;
}
/// Copies the line decomposition into a plan (CumsumPlan, TopKPlan).
template <typename Plan> void setLines(Plan &p, const Lines &l) {
  p.outer = l.outer;
  p.n = l.n;
  p.inner = l.inner;
  p.count = l.count;
  p.lines = l.lines;
}
} // namespace

CumsumPlan planCumsum(DType dtype, const Shape &shape, int dim, bool exclusive,
                      bool reverse) {
  Lines l = splitLines("cumsum", "sum", dtype, shape, dim);
  CumsumPlan p;
  p.dtype = dtype;
  p.dim = dim;
  p.exclusive = exclusive;
  p.reverse = reverse;
  setLines(p, l);
  return p;
}

TopKPlan planTopK(DType dtype, const Shape &shape, int dim, int k) {
  Lines l = splitLines("top_k", "select", dtype, shape, dim);
  if (k < 1 || k > shape[dim])
    fail("top_k: k = ", k, " is out of range for dim ", dim, " of ",
         shapeToString(shape), " (1 <= k <= ", shape[dim], ")");
  TopKPlan p;
  p.dtype = dtype;
  p.dim = dim;
  p.k = k;
  setLines(p, l);
  p.outCount = l.empty ? 0 : p.lines * p.k;
  return p;
}

} // namespace weft::rt

//===- ElementPlans.cpp - Plans of maps, reductions and embeds ------------===//

#include "weft/rt/ElementPlans.h"
#include "weft/rt/CopyPlan.h"
#include "weft/rt/EinsumSpec.h"
#include "weft/rt/ElementOps.h"
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

MapPlan planMap(const std::string &specText, const std::vector<Shape> &inShapes,
                const Shape *outShape) {
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
    check(kind >= 0 && kind < kNumMapKinds, "fused_map spec '", specText,
          "': step ", j, " has invalid kind ", kind);
    // Values 0..inputs+j-1 exist when step j runs.
    const int known = inputs + j;
    auto checkId = [&](int id, const char *which) {
      check(id >= 0 && id < known, "fused_map spec '", specText, "': step ", j,
            " (", mapKindName(s.kind), ") reads value ", id, " as its ", which,
            " operand, but only values 0 to ", known - 1, " exist before it (",
            inputs, " inputs, then earlier steps)");
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

FusedRowsPlan planFusedRows(const std::string &specText,
                            const std::string &rowLetters,
                            const std::vector<Shape> &inShapes,
                            std::vector<FusedRowStep> steps) {
  EinsumSpec spec = EinsumSpec::parse(specText, 1, kMaxFusedInputs);
  const std::string what =
      "fused_rows spec '" + specText + "' (rows '" + rowLetters + "')";
  auto sizes = spec.letterSizes(inShapes);
  auto isRow = [&](char c) { return rowLetters.find(c) != std::string::npos; };

  // The row letters, the result's layout and each input's.
  check(!rowLetters.empty(), what, ": names no row letter");
  for (std::size_t i = 0; i < rowLetters.size(); ++i) {
    char c = rowLetters[i];
    check((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), what,
          ": row letter '", c, "' is not a letter");
    check(rowLetters.find(c, i + 1) == std::string::npos, what,
          ": row letter '", c, "' is repeated");
  }
  const std::string &result = spec.output;
  const bool fullResult = std::any_of(result.begin(), result.end(), isRow);
  std::string kept = result;
  if (fullResult) {
    check(result.size() >= rowLetters.size() &&
              result.compare(result.size() - rowLetters.size(),
                             rowLetters.size(), rowLetters) == 0,
          what, ": the result '", result, "' holds row letters but not '",
          rowLetters, "' as its trailing letters");
    kept.resize(result.size() - rowLetters.size());
  }
  const int inputs = static_cast<int>(spec.inputs.size());
  std::vector<bool> full(inputs, false);
  for (int i = 0; i < inputs; ++i) {
    const std::string &letters = spec.inputs[i];
    std::size_t rowCount = 0;
    for (char c : letters) {
      if (isRow(c)) {
        ++rowCount;
        continue;
      }
      check(kept.find(c) != std::string::npos, what, ": input ", i, " '",
            letters, "': letter '", c,
            "' is neither a kept letter of the result nor a row letter");
    }
    check(rowCount == 0 || rowCount == rowLetters.size(), what, ": input ", i,
          " '", letters, "' holds some of the row letters '", rowLetters,
          "' but not all (a full input holds all, a row value none)");
    full[i] = rowCount != 0;
  }
  check(std::find(full.begin(), full.end(), true) != full.end(), what,
        ": no input holds the row letters (nothing gives the row its length)");
  for (char c : kept)
    check(sizes.count(c), what, ": result letter '", c, "' is in no input");

  // Sizes: rows x rowLength elements, and their f64 bytes, fit in int64.
  int64_t rows = 1, rowLength = 1, count = 0, bytes = 0;
  for (char c : kept)
    check(!__builtin_mul_overflow(rows, sizes.at(c), &rows), what,
          ": the kept letters have more than 2^63 elements");
  for (char c : rowLetters)
    check(!__builtin_mul_overflow(rowLength, sizes.at(c), &rowLength), what,
          ": a row has more than 2^63 elements");
  check(!__builtin_mul_overflow(rows, rowLength, &count), what, ": ", rows,
        " rows of ", rowLength, " elements are more than 2^63 elements");
  check(!__builtin_mul_overflow(count, int64_t(8), &bytes), what, ": ", rows,
        " rows of ", rowLength, " elements are too large");

  // The steps: a value is full when it is a full input or a map of a full
  // value; a reduction makes a row value.
  const int numSteps = static_cast<int>(steps.size());
  check(numSteps >= 1 && numSteps <= kMaxFusedSteps, what, ": has ", numSteps,
        " steps, expected 1 to ", kMaxFusedSteps);
  std::vector<bool> read(inputs, false);
  for (int j = 0; j < numSteps; ++j) {
    const FusedRowStep &s = steps[j];
    std::string name;
    if (s.reduce) {
      const int kind = static_cast<int>(s.reduceKind);
      check(kind >= 0 && kind <= static_cast<int>(ReduceKind::Min), what,
            ": step ", j, " is a reduction of invalid kind ", kind);
      name = std::string("row_") + reduceKindName(s.reduceKind);
    } else {
      const int kind = static_cast<int>(s.kind);
      check(kind >= 0 && kind < kNumMapKinds, what, ": step ", j,
            " has invalid kind ", kind);
      name = mapKindName(s.kind);
    }
    // Values 0..inputs+j-1 exist when step j runs.
    const int known = inputs + j;
    auto checkId = [&](int id, const char *which) {
      check(id >= 0 && id < known, what, ": step ", j, " (", name,
            ") reads value ", id, " as its ", which,
            " operand, but only values 0 to ", known - 1, " exist before it (",
            inputs, " inputs, then earlier steps)");
      if (id < inputs)
        read[id] = true;
    };
    checkId(s.a, "first");
    const bool binary = !s.reduce && isBinary(s.kind);
    if (binary)
      checkId(s.b, "second");
    else
      check(s.b == -1, what, ": step ", j, " (", name,
            ") takes one operand but has a second operand ", s.b,
            " (expected -1)");
    if (s.reduce)
      check(full[s.a], what, ": step ", j, " (", name, ") reduces value ", s.a,
            ", a row value (it has no row to reduce)");
    full.push_back(s.reduce ? false : full[s.a] || (binary && full[s.b]));
  }
  for (int i = 0; i < inputs; ++i)
    check(read[i], what, ": input ", i, " '", spec.inputs[i],
          "' is read by no step");
  check(full.back() == fullResult, what, ": the last step is ",
        full.back() ? "full" : "a row value", " but the result '", result,
        fullResult ? "' holds the row letters" : "' lacks the row letters");

  FusedRowsPlan p;
  p.spec = spec.str();
  p.rowLetters = rowLetters;
  p.inShapes = inShapes;
  p.outShape = shapeOf(result, sizes);
  p.keptShape = shapeOf(kept, sizes);
  p.rows = rows;
  p.rowLength = rowLength;
  p.outRowStride = fullResult ? 1 : 0;
  p.outKeptStrides = rowMajorStrides(p.outShape);
  p.outKeptStrides.resize(kept.size());
  for (int i = 0; i < inputs; ++i) {
    const std::string &letters = spec.inputs[i];
    p.inKeptStrides.push_back(stridesIn(kept, letters, inShapes[i]));
    int64_t rowStride = 0;
    if (full[i]) {
      // The row letters, in rowLetters' order, as one stride; extent-1
      // letters have no say (an empty row reads nothing).
      std::vector<int64_t> st = stridesIn(rowLetters, letters, inShapes[i]);
      rowStride = 1;
      bool first = true;
      for (std::size_t k = 0; k < rowLetters.size() && rowLength > 0; ++k) {
        int64_t n = sizes.at(rowLetters[k]);
        if (n == 1)
          continue;
        check(first || rowStride == st[k] * n, what, ": input ", i, " '",
              letters, "': its row letters do not merge into one stride ",
              "(they must be adjacent, in the order '", rowLetters, "')");
        rowStride = st[k];
        first = false;
      }
    }
    p.inRowStrides.push_back(rowStride);
  }
  std::vector<std::vector<int64_t> *> all{&p.outKeptStrides};
  for (auto &s : p.inKeptStrides)
    all.push_back(&s);
  mergeDims(p.keptShape, all);
  p.steps = std::move(steps);
  p.full = std::move(full);
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

bool reduceRowOrdered(const ReducePlan &plan) {
  // The innermost dim with outStride 0 (mergeDims fused the reduced dims
  // that can be, and dropped extent-1 dims).
  for (std::size_t d = plan.shape.size(); d-- > 0;)
    if (plan.outStrides[d] == 0)
      return plan.inStrides[d] == 1;
  return false;
}

ReduceLaunch planReduceLaunch(int64_t outElements, int64_t reducedElements,
                              bool rowOrdered, int64_t deviceThreads) {
  check(outElements >= 0 && reducedElements >= 0 && deviceThreads > 0,
        "planReduceLaunch: negative sizes or no device threads");
  ReduceLaunch l;
  l.segmentLength = reducedElements;
  if (outElements == 0)
    return l;
  if (rowOrdered) {
    // ops::reduceCanonical: a warp per (output, segment).
    l.team = ops::kReduceLanes;
    l.segmentLength = std::min(reducedElements, ops::kReduceSegment);
    l.segments = std::max<int64_t>(1, ops::reduceSegments(reducedElements));
  } else if (reducedElements > 32 && outElements < deviceThreads) {
    // One thread per output, the range split to fill the device (below 32
    // elements the plain loop is as fast).
    constexpr int64_t kMinPerThread = 16;  // elements each thread combines
    constexpr int64_t kMaxSegments = 4096; // partials per output
    int64_t want = (deviceThreads + outElements - 1) / outElements;
    int64_t most = reducedElements / kMinPerThread;
    int64_t segments =
        std::max<int64_t>(1, std::min({want, most, kMaxSegments}));
    l.segmentLength = (reducedElements + segments - 1) / segments;
    l.segments = (reducedElements + l.segmentLength - 1) / l.segmentLength;
  }
  // Pass 1 leaves `segments` partials per output; each row-ordered pass
  // over them leaves one per 2048.
  for (int64_t m = l.segments; m > 1; m = ops::reduceSegments(m))
    ++l.passes;
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
                         const Shape &updatesShape, const Shape &resultShape) {
  EinsumSpec spec = EinsumSpec::parse(specText, 2, 2);
  EmbedPlan p =
      planEmbed(spec.inputs[0] + "," + spec.output + "->" + spec.inputs[1],
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
        "random: a result of ", shape.size(), " dimensions with ", first.size(),
        " block offsets (at most 4 dimensions, one each)");
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
        "pad_fill: the block ", shapeToString(shape), " of ", dtypeName(dtype),
        " is too large");
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
        op, " of ", dtypeName(dtype),
        " is not supported (f32, f64, f16, bf16)");
  const int rank = static_cast<int>(shape.size());
  check(rank > 0, op, ": a rank-0 tensor has no dimension to ", verb, " along");
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
    if (__builtin_mul_overflow(l.count, static_cast<int64_t>(dtypeSize(dtype)),
                               &bytes))
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

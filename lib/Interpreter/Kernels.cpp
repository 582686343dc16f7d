//===- Kernels.cpp - naive loops for the index-letter ops -----------------===//

#include "weft/Interpreter/Kernels.h"
#include "weft/rt/ElementOps.h"

#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

namespace {
/// A loop nest over `letters` (one loop per letter, the last fastest) that
/// keeps the offset of every tensor in `terms` current: a tensor whose term
/// lacks a letter does not move along it (broadcast or reduction).
class LetterLoop {
public:
  LetterLoop(StringRef letters, ArrayRef<int64_t> sizes,
             ArrayRef<std::pair<StringRef, ArrayRef<int64_t>>> terms)
      : sizes(sizes.begin(), sizes.end()) {
    assert(letters.size() == sizes.size());
    for (auto [term, shape] : terms) {
      SmallVector<int64_t> shapeStrides = rowMajorStrides(shape);
      SmallVector<int64_t> perLetter;
      for (char c : letters) {
        size_t pos = term.find(c);
        perLetter.push_back(pos == StringRef::npos ? 0 : shapeStrides[pos]);
      }
      strides.push_back(std::move(perLetter));
    }
  }

  /// Calls `row(offsets, n, innerStrides)` once per row of the nest: the
  /// points `offsets + k * innerStrides`, k < n, along the last letter. Rows
  /// come in row-major order (the last letter fastest), so a reduction that
  /// walks each row in order adds in the same order as `run` does.
  template <typename Row> void runRows(Row row) const {
    int64_t total = numElements(sizes);
    if (total == 0)
      return;
    size_t numLetters = sizes.size(), numTerms = strides.size();
    SmallVector<int64_t, 4> offsets(numTerms, 0), innerStrides(numTerms, 0);
    if (numLetters == 0) {
      row(ArrayRef<int64_t>(offsets), int64_t(1),
          ArrayRef<int64_t>(innerStrides));
      return;
    }
    size_t last = numLetters - 1;
    int64_t inner = sizes[last];
    for (size_t t = 0; t < numTerms; ++t)
      innerStrides[t] = strides[t][last];
    SmallVector<int64_t> idx(numLetters, 0);
    for (int64_t n = 0; n < total; n += inner) {
      row(ArrayRef<int64_t>(offsets), inner, ArrayRef<int64_t>(innerStrides));
      for (int64_t l = static_cast<int64_t>(last) - 1; l >= 0; --l) {
        for (size_t t = 0; t < numTerms; ++t)
          offsets[t] += strides[t][l];
        if (++idx[l] < sizes[l])
          break;
        for (size_t t = 0; t < numTerms; ++t)
          offsets[t] -= strides[t][l] * sizes[l];
        idx[l] = 0;
      }
    }
  }

  /// Calls `fn(offsets)` for every point of the nest, in row-major order
  /// (the last letter fastest).
  template <typename Fn> void run(Fn fn) const {
    SmallVector<int64_t, 4> cur(strides.size(), 0);
    runRows([&](ArrayRef<int64_t> offsets, int64_t n,
                ArrayRef<int64_t> innerStrides) {
      for (size_t t = 0; t < cur.size(); ++t)
        cur[t] = offsets[t];
      for (int64_t k = 0; k < n; ++k) {
        fn(ArrayRef<int64_t>(cur));
        for (size_t t = 0; t < cur.size(); ++t)
          cur[t] += innerStrides[t];
      }
    });
  }

private:
  SmallVector<int64_t> sizes;
  SmallVector<SmallVector<int64_t>> strides;
};
} // namespace

/// Size of every letter of `letters`, read off the terms' shapes.
static SmallVector<int64_t>
letterSizes(StringRef letters,
            ArrayRef<std::pair<StringRef, ArrayRef<int64_t>>> terms) {
  SmallVector<int64_t> sizes;
  for (char c : letters) {
    int64_t size = -1;
    for (auto [term, shape] : terms) {
      size_t pos = term.find(c);
      if (pos != StringRef::npos) {
        size = shape[pos];
        break;
      }
    }
    assert(size >= 0 && "letter absent from every term");
    sizes.push_back(size);
  }
  return sizes;
}

/// The result's and the operands' letters with their shapes, result first.
static SmallVector<std::pair<StringRef, ArrayRef<int64_t>>>
termsOf(const IndexSpec &spec, ArrayRef<const Tensor *> inputs,
        ArrayRef<int64_t> resultShape) {
  assert(inputs.size() == spec.inputs.size() &&
         (inputs.size() == 1 || inputs.size() == 2));
  SmallVector<std::pair<StringRef, ArrayRef<int64_t>>> terms;
  terms.push_back({spec.result, resultShape});
  for (auto [term, t] : llvm::zip(spec.inputs, inputs))
    terms.push_back({term, t->getShape()});
  return terms;
}

Tensor mlir::weft::interp::einsum(const IndexSpec &spec,
                                  ArrayRef<const Tensor *> inputs,
                                  ArrayRef<int64_t> resultShape) {
  SmallVector<std::pair<StringRef, ArrayRef<int64_t>>> terms =
      termsOf(spec, inputs, resultShape);
  std::string letters = spec.allLetters();
  LetterLoop loop(letters, letterSizes(letters, terms), terms);
  Tensor result(resultShape, 0.0);
  MutableArrayRef<double> out = result.getData();
  ArrayRef<double> a = inputs[0]->getData();
  if (inputs.size() == 1) {
    loop.run([&](ArrayRef<int64_t> o) { out[o[0]] += a[o[1]]; });
  } else {
    // The hot loop of every interpreted program: one row at a time, with
    // the strides in registers (the same products added in the same order
    // as one point at a time).
    ArrayRef<double> b = inputs[1]->getData();
    loop.runRows([&](ArrayRef<int64_t> o, int64_t n, ArrayRef<int64_t> s) {
      double *po = out.data() + o[0];
      const double *pa = a.data() + o[1], *pb = b.data() + o[2];
      const int64_t so = s[0], sa = s[1], sb = s[2];
      for (int64_t k = 0; k < n; ++k)
        po[k * so] += pa[k * sa] * pb[k * sb];
    });
  }
  return result;
}

namespace {
/// MapKinds.def's expressions in double with libm's functions: the
/// interpreter is the oracle, so it does not use the runtime's own f64
/// exp, log and tanh (DoubleMath.h, which ElementOps.h's double overloads
/// call on the host); this is the formula numpy evaluates too
/// (test/numpy).
namespace libm {
inline double fexp(double x) { return std::exp(x); }
inline double flog(double x) { return std::log(x); }
inline double flog1p(double x) { return std::log1p(x); }
inline double fsqrt(double x) { return std::sqrt(x); }
inline double ftanh(double x) { return std::tanh(x); }
inline double fsin(double x) { return std::sin(x); }
inline double fcos(double x) { return std::cos(x); }
using T = double;
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr)          \
  double apply##Enum(double a, double b, double s) {                           \
    (void)a;                                                                   \
    (void)b;                                                                   \
    (void)s;                                                                   \
    return expr;                                                               \
  }
#include "weft/rt/MapKinds.def"
} // namespace libm
} // namespace

double mlir::weft::interp::applyMap(MapKind kind, double x, double y,
                                    double scalar) {
  // (Not `scalar` inside the macro: that is one of its parameters.)
  const double constant = scalar;
  switch (static_cast<::weft::rt::MapKind>(kind)) {
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr)          \
  case ::weft::rt::MapKind::Enum:                                              \
    return libm::apply##Enum(x, y, constant);
#include "weft/rt/MapKinds.def"
  }
  return 0.0; // unreachable: every kind has a case
}

Tensor mlir::weft::interp::map(MapKind kind, double scalar,
                               const IndexSpec &spec,
                               ArrayRef<const Tensor *> inputs,
                               ArrayRef<int64_t> resultShape) {
  SmallVector<std::pair<StringRef, ArrayRef<int64_t>>> terms =
      termsOf(spec, inputs, resultShape);
  // A map never reduces: the result's letters index everything.
  LetterLoop loop(spec.result, resultShape, terms);
  Tensor result(resultShape);
  MutableArrayRef<double> out = result.getData();
  ArrayRef<double> a = inputs[0]->getData();
  if (inputs.size() == 1) {
    loop.run([&](ArrayRef<int64_t> o) {
      out[o[0]] = applyMap(kind, a[o[1]], 0.0, scalar);
    });
  } else {
    ArrayRef<double> b = inputs[1]->getData();
    loop.run([&](ArrayRef<int64_t> o) {
      out[o[0]] = applyMap(kind, a[o[1]], b[o[2]], scalar);
    });
  }
  return result;
}

Tensor mlir::weft::interp::reduce(ReductionKind kind, const IndexSpec &spec,
                                  const Tensor &input,
                                  ArrayRef<int64_t> resultShape) {
  assert(spec.inputs.size() == 1);
  SmallVector<std::pair<StringRef, ArrayRef<int64_t>>> terms = {
      {spec.result, resultShape}, {spec.inputs[0], input.getShape()}};
  std::string letters = spec.allLetters();
  LetterLoop loop(letters, letterSizes(letters, terms), terms);
  double init = 0.0;
  if (kind == ReductionKind::Max)
    init = -std::numeric_limits<double>::infinity();
  else if (kind == ReductionKind::Min)
    init = std::numeric_limits<double>::infinity();
  Tensor result(resultShape, init);
  MutableArrayRef<double> out = result.getData();
  ArrayRef<double> in = input.getData();
  switch (kind) {
  case ReductionKind::Sum:
    loop.run([&](ArrayRef<int64_t> o) { out[o[0]] += in[o[1]]; });
    break;
  case ReductionKind::Max:
    loop.run([&](ArrayRef<int64_t> o) {
      double v = in[o[1]];
      if (v > out[o[0]] || std::isnan(v))
        out[o[0]] = v;
    });
    break;
  case ReductionKind::Min:
    loop.run([&](ArrayRef<int64_t> o) {
      double v = in[o[1]];
      if (v < out[o[0]] || std::isnan(v))
        out[o[0]] = v;
    });
    break;
  }
  return result;
}

/// Reads an id, or records it in `bad` when it is not an integer in
/// [0, vocab).
static bool readId(double raw, int64_t index, int64_t vocab, int64_t &id,
                   BadId &bad) {
  id = static_cast<int64_t>(raw);
  if (raw == static_cast<double>(id) && id >= 0 && id < vocab)
    return true;
  bad.index = index;
  bad.value = id;
  return false;
}

FailureOr<Tensor> mlir::weft::interp::embed(const IndexSpec &spec,
                                            const Tensor &ids,
                                            const Tensor &table, char lookedUp,
                                            ArrayRef<int64_t> resultShape,
                                            int64_t firstRow, int64_t vocab,
                                            BadId &bad) {
  assert(spec.inputs.size() == 2);
  StringRef tableLetters = spec.inputs[1];
  size_t vDim = tableLetters.find(lookedUp);
  assert(vDim != StringRef::npos);
  int64_t rows = table.getShape()[vDim];
  int64_t rowStride = rowMajorStrides(table.getShape())[vDim];
  // Loop over the result; the table's offset along its other letters (the
  // batch letters shared with the ids, the kept ones) comes with the loop,
  // the looked-up letter's from the id.
  SmallVector<std::pair<StringRef, ArrayRef<int64_t>>> terms = {
      {spec.result, resultShape},
      {spec.inputs[0], ids.getShape()},
      {tableLetters, table.getShape()}};
  LetterLoop loop(spec.result, resultShape, terms);

  Tensor result(resultShape, 0.0);
  MutableArrayRef<double> out = result.getData();
  ArrayRef<double> in = ids.getData();
  ArrayRef<double> tableData = table.getData();
  bool ok = true;
  loop.run([&](ArrayRef<int64_t> o) {
    if (!ok)
      return;
    int64_t id;
    if (!readId(in[o[1]], o[1], vocab, id, bad)) {
      ok = false;
      return;
    }
    int64_t row = id - firstRow;
    if (row < 0 || row >= rows)
      return;
    out[o[0]] = tableData[o[2] + row * rowStride];
  });
  if (!ok)
    return failure();
  return result;
}

FailureOr<Tensor>
mlir::weft::interp::scatterAdd(const IndexSpec &spec, const Tensor &ids,
                               const Tensor &updates, char lookedUp,
                               ArrayRef<int64_t> resultShape, int64_t firstRow,
                               int64_t vocab, BadId &bad) {
  assert(spec.inputs.size() == 2);
  StringRef upd = spec.inputs[1];
  size_t vDim = StringRef(spec.result).find(lookedUp);
  assert(vDim != StringRef::npos);
  int64_t rows = resultShape[vDim];
  int64_t rowStride = rowMajorStrides(resultShape)[vDim];
  // Loop over the updates, adding each into the row of its id.
  SmallVector<std::pair<StringRef, ArrayRef<int64_t>>> terms = {
      {upd, updates.getShape()},
      {spec.inputs[0], ids.getShape()},
      {spec.result, resultShape}};
  LetterLoop loop(upd, updates.getShape(), terms);

  Tensor result(resultShape, 0.0);
  MutableArrayRef<double> out = result.getData();
  ArrayRef<double> in = ids.getData(), values = updates.getData();
  bool ok = true;
  loop.run([&](ArrayRef<int64_t> o) {
    int64_t id;
    if (!ok || !readId(in[o[1]], o[1], vocab, id, bad)) {
      ok = false;
      return;
    }
    int64_t row = id - firstRow;
    if (row < 0 || row >= rows)
      return;
    out[o[2] + row * rowStride] += values[o[0]];
  });
  if (!ok)
    return failure();
  return result;
}

FailureOr<Tensor> mlir::weft::interp::oneHot(const IndexSpec &spec,
                                             const Tensor &ids,
                                             ArrayRef<int64_t> resultShape,
                                             int64_t firstColumn, int64_t vocab,
                                             BadId &bad) {
  StringRef res = spec.result, idLetters = spec.inputs[0];
  size_t vocabPos = StringRef::npos;
  for (auto [i, c] : llvm::enumerate(res))
    if (!idLetters.contains(c))
      vocabPos = i;
  assert(vocabPos != StringRef::npos);
  int64_t columns = resultShape[vocabPos];
  int64_t vocabStride = rowMajorStrides(resultShape)[vocabPos];
  SmallVector<std::pair<StringRef, ArrayRef<int64_t>>> terms = {
      {res, resultShape}, {idLetters, ids.getShape()}};
  LetterLoop loop(res, resultShape, terms);
  Tensor result(resultShape, 0.0);
  MutableArrayRef<double> out = result.getData();
  ArrayRef<double> in = ids.getData();
  bool ok = true;
  loop.run([&](ArrayRef<int64_t> o) {
    int64_t id;
    if (!ok || !readId(in[o[1]], o[1], vocab, id, bad)) {
      ok = false;
      return;
    }
    int64_t v = (o[0] / vocabStride) % columns;
    out[o[0]] = (id - firstColumn == v) ? 1.0 : 0.0;
  });
  if (!ok)
    return failure();
  return result;
}

//===- EinsumPlan.cpp - Einsum to (batched, strided) GEMM -----------------===//
//
// Letters split into batch (A, B, result), m (A, result), n (B, result) and
// k (A, B). Letters found in one operand only are summed out first. Extent-1
// letters are dropped (they never constrain a layout). For each candidate
// order of every group (the orders the operands already use), every split
// of the batch order into an outer loop and an inner strided batch, and both
// operand orders of the GEMM, an operand "fits" when each of its groups
// (outer and inner batch separately) is adjacent in memory in that order
// and one of its matrix groups is innermost; every operand that does not fit is
// permuted to the canonical layout [batch, m, k] / [batch, k, n] / [batch, m,
// n]. The cheapest choice (fewest elements copied, then fewest copies, then one
// batch level, then no swap, then the earliest candidate) wins.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/EinsumSpec.h"
#include "weft/rt/Error.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace weft::rt {

namespace {

/// Letters of a dense tensor with their strides, extent-1 letters dropped.
struct Operand {
  std::string letters;
  std::vector<int64_t> strides;
  int64_t elements = 1;
};

Operand squeezed(const std::string &letters, const Shape &shape) {
  Operand op;
  auto strides = rowMajorStrides(shape);
  for (std::size_t d = 0; d < letters.size(); ++d) {
    op.elements *= shape[d];
    if (shape[d] != 1) {
      op.letters += letters[d];
      op.strides.push_back(strides[d]);
    }
  }
  return op;
}

Operand dense(const std::string &letters,
              const std::map<char, int64_t> &sizes) {
  Shape shape;
  for (char c : letters)
    shape.push_back(sizes.at(c));
  return squeezed(letters, shape);
}

/// The letters of `group` in the order `op` stores them.
std::string orderIn(const Operand &op, const std::string &group) {
  std::string s;
  for (char c : op.letters)
    if (group.find(c) != std::string::npos)
      s += c;
  return s;
}

/// Stride of `order` as one flattened dim of `op`: the letters must be
/// adjacent in that order. -1 for an empty group (any stride works).
std::optional<int64_t> groupStride(const Operand &op, const std::string &order,
                                   const std::map<char, int64_t> &sizes) {
  if (order.empty())
    return -1;
  auto first = op.letters.find(order[0]);
  if (first == std::string::npos ||
      op.letters.compare(first, order.size(), order) != 0)
    return std::nullopt;
  for (std::size_t i = 0; i + 1 < order.size(); ++i)
    if (op.strides[first + i] !=
        op.strides[first + i + 1] * sizes.at(order[i + 1]))
      return std::nullopt;
  return op.strides[first + order.size() - 1];
}

struct MatrixFit {
  bool ok = false;
  bool trans = false;
  int64_t ld = 1;
};

/// A natural [rows, cols] matrix whose row and column groups have strides
/// sR, sC (-1: empty group). Prefers the untransposed form.
MatrixFit fitMatrix(int64_t rows, int64_t cols, int64_t sR, int64_t sC,
                    bool allowTrans) {
  MatrixFit f;
  if (cols <= 1 || sC == 1) {
    f.ok = true;
    f.ld = rows <= 1 ? std::max<int64_t>(cols, 1) : sR;
    if (f.ld >= std::max<int64_t>(cols, 1))
      return f;
  }
  f = MatrixFit();
  if (allowTrans && (rows <= 1 || sR == 1)) {
    f.ok = true;
    f.trans = true;
    f.ld = cols <= 1 ? std::max<int64_t>(rows, 1) : sC;
    if (f.ld >= std::max<int64_t>(rows, 1))
      return f;
  }
  return MatrixFit();
}

struct OperandFit {
  bool ok = false;
  MatrixFit matrix;
  int64_t batchStride = 0, outerStride = 0;
};

/// Fits `op` as an outer batch of batches of [rows, cols] matrices with the
/// given group orders (`outer` may be empty: one batch level).
OperandFit fitOperand(const Operand &op, const std::string &outer,
                      const std::string &batch, const std::string &rowOrder,
                      const std::string &colOrder, int64_t rows, int64_t cols,
                      const std::map<char, int64_t> &sizes, bool allowTrans) {
  OperandFit f;
  auto so = groupStride(op, outer, sizes);
  auto sb = groupStride(op, batch, sizes);
  auto sr = groupStride(op, rowOrder, sizes);
  auto sc = groupStride(op, colOrder, sizes);
  if (!so || !sb || !sr || !sc)
    return f;
  f.matrix = fitMatrix(rows, cols, *sr, *sc, allowTrans);
  f.ok = f.matrix.ok;
  f.batchStride = *sb < 0 ? 0 : *sb;
  f.outerStride = *so < 0 ? 0 : *so;
  return f;
}

std::vector<std::string> candidates(const std::string &group,
                                    std::vector<const Operand *> ops) {
  std::vector<std::string> out;
  for (const Operand *op : ops) {
    std::string o = orderIn(*op, group);
    if (std::find(out.begin(), out.end(), o) == out.end())
      out.push_back(o);
  }
  return out;
}

int64_t product(const std::string &letters,
                const std::map<char, int64_t> &sizes) {
  int64_t p = 1;
  for (char c : letters)
    p *= sizes.at(c);
  return p;
}

/// Copy from dense `src` (letters `srcLetters`, shape `srcShape`) into the
/// dense order `dstLetters` (extent-1 letters may be absent).
CopyPlan permutePlan(const std::string &srcLetters, const Shape &srcShape,
                     const std::string &dstLetters,
                     const std::map<char, int64_t> &sizes) {
  auto srcStrides = rowMajorStrides(srcShape);
  CopyPlan p;
  for (char c : dstLetters) {
    p.shape.push_back(sizes.at(c));
    p.srcStrides.push_back(srcStrides[srcLetters.find(c)]);
  }
  p.dstStrides = rowMajorStrides(p.shape);
  p.simplify();
  return p;
}

/// Dense strides of `to` letters inside a dense tensor with `from` letters.
std::vector<int64_t> stridesOf(const std::string &to, const std::string &from,
                               const Shape &fromShape) {
  auto dense = rowMajorStrides(fromShape);
  std::vector<int64_t> s;
  for (char c : to)
    s.push_back(dense[from.find(c)]);
  return s;
}

EinsumPlan planUnary(const EinsumSpec &spec, const Shape &aShape, DType dtype) {
  auto sizes = spec.letterSizes({aShape});
  for (char c : spec.output)
    check(sizes.count(c), "einsum spec '", spec.str(), "': result letter '", c,
          "' is not an operand letter");
  EinsumPlan p;
  p.spec = spec.str();
  p.dtype = dtype;
  p.unary = true;
  p.aShape = aShape;
  for (char c : spec.output)
    p.outShape.push_back(sizes.at(c));
  if (spec.output.size() == spec.inputs[0].size()) {
    p.unaryIsCopy = true;
    p.unaryCopy.shape = p.outShape;
    p.unaryCopy.srcStrides = stridesOf(spec.output, spec.inputs[0], aShape);
    p.unaryCopy.dstStrides = rowMajorStrides(p.outShape);
    p.unaryCopy.simplify();
  } else {
    p.unaryReduce = planReduce(spec.str(), aShape);
    p.flops = numElements(aShape);
  }
  return p;
}

} // namespace

EinsumPlan planEinsum(const std::string &specText, const Shape &aShape,
                      DType dtype) {
  EinsumSpec spec = EinsumSpec::parse(specText, 1, 1);
  return planUnary(spec, aShape, dtype);
}

EinsumPlan planEinsum(const std::string &specText, const Shape &aShape,
                      const Shape &bShape, DType dtype) {
  EinsumSpec spec = EinsumSpec::parse(specText, 2, 2);
  auto sizes = spec.letterSizes({aShape, bShape});
  const std::string &la = spec.inputs[0], &lb = spec.inputs[1],
                    &lc = spec.output;
  for (char c : lc)
    check(sizes.count(c), "einsum spec '", spec.str(), "': result letter '", c,
          "' is in no operand");

  EinsumPlan p;
  p.spec = spec.str();
  p.dtype = dtype;
  p.aShape = aShape;
  p.bShape = bShape;
  for (char c : lc)
    p.outShape.push_back(sizes.at(c));

  auto in = [](const std::string &s, char c) {
    return s.find(c) != std::string::npos;
  };
  // Stage 1: letters of one operand only, absent from the result.
  std::string a1, b1;
  for (char c : la)
    if (in(lb, c) || in(lc, c))
      a1 += c;
  for (char c : lb)
    if (in(la, c) || in(lc, c))
      b1 += c;
  Shape a1Shape, b1Shape;
  for (char c : a1)
    a1Shape.push_back(sizes.at(c));
  for (char c : b1)
    b1Shape.push_back(sizes.at(c));
  if (a1 != la) {
    p.reduceA = true;
    p.reduceAPlan = planReduce(la + "->" + a1, aShape);
    p.tempAElements = numElements(a1Shape);
    p.flops += numElements(aShape);
  }
  if (b1 != lb) {
    p.reduceB = true;
    p.reduceBPlan = planReduce(lb + "->" + b1, bShape);
    p.tempBElements = numElements(b1Shape);
    p.flops += numElements(bShape);
  }

  // Groups, over letters of extent > 1 only.
  std::string batch, mg, ng, kg;
  for (const auto &[c, n] : sizes) {
    if (n == 1)
      continue;
    bool inA = in(a1, c), inB = in(b1, c), inC = in(lc, c);
    if (inA && inB && inC)
      batch += c;
    else if (inA && inC)
      mg += c;
    else if (inB && inC)
      ng += c;
    else if (inA && inB)
      kg += c;
  }
  int64_t M = product(mg, sizes), N = product(ng, sizes),
          K = product(kg, sizes), B = product(batch, sizes);
  int64_t kAll = 1;
  for (const auto &[c, n] : sizes)
    if (in(a1, c) && in(b1, c) && !in(lc, c))
      kAll *= n;
  if (numElements(p.outShape) == 0 || kAll == 0) {
    p.gemm.m = p.gemm.n = p.gemm.k = 0;
    p.gemm.batch = 0;
    return p; // the executor zero-fills the result
  }

  Operand A = squeezed(a1, a1Shape), Bop = squeezed(b1, b1Shape),
          C = squeezed(lc, p.outShape);
  auto bCands = candidates(batch, {&C, &A, &Bop});
  auto mCands = candidates(mg, {&C, &A});
  auto nCands = candidates(ng, {&C, &Bop});
  auto kCands = candidates(kg, {&A, &Bop});

  // The batch order `b` is split into an outer part (a loop over strided
  // batched GEMMs) and the inner batch: split 0 is one batch level; a split
  // lets batch letters that are not adjacent in memory (b and h of
  // q[b,t,h,k]) avoid a copy, and is used only when it saves one.
  struct Choice {
    std::string b, m, n, k;
    bool swap = false;
    std::size_t split = 0; // b = outer (b[0, split)) + inner
    bool fitA = false, fitB = false, fitC = false;
    std::string outer() const { return b.substr(0, split); }
    std::string inner() const { return b.substr(split); }
  };
  std::optional<Choice> best;
  std::tuple<int64_t, int, int, int> bestKey;
  for (const auto &ob : bCands)
    for (std::size_t split = 0; split < std::max<std::size_t>(ob.size(), 1);
         ++split)
      for (const auto &om : mCands)
        for (const auto &on : nCands)
          for (const auto &ok : kCands)
            for (bool swap : {false, true}) {
              Choice ch{ob, om, on, ok, swap, split};
              std::string bo = ch.outer(), bi = ch.inner();
              ch.fitA = fitOperand(A, bo, bi, om, ok, M, K, sizes, true).ok;
              ch.fitB = fitOperand(Bop, bo, bi, ok, on, K, N, sizes, true).ok;
              ch.fitC =
                  swap ? fitOperand(C, bo, bi, on, om, N, M, sizes, false).ok
                       : fitOperand(C, bo, bi, om, on, M, N, sizes, false).ok;
              int64_t cost = (ch.fitA ? 0 : A.elements) +
                             (ch.fitB ? 0 : Bop.elements) +
                             (ch.fitC ? 0 : C.elements);
              int copies = !ch.fitA + !ch.fitB + !ch.fitC;
              // A swap only helps when C fits with it.
              if (swap && !ch.fitC)
                continue;
              auto key =
                  std::make_tuple(cost, copies, split ? 1 : 0, swap ? 1 : 0);
              if (!best || key < bestKey) {
                best = ch;
                bestKey = key;
              }
            }
  const Choice &ch = *best;
  const std::string outer = ch.outer(), inner = ch.inner();

  // Stage 2 and 4: permutations into canonical layouts.
  Operand Aeff = A, Beff = Bop, Ceff = C;
  if (!ch.fitA) {
    p.permuteA = true;
    p.permAPlan = permutePlan(a1, a1Shape, ch.b + ch.m + ch.k, sizes);
    p.tempAElements = std::max(p.tempAElements, A.elements);
    Aeff = dense(ch.b + ch.m + ch.k, sizes);
  }
  if (!ch.fitB) {
    p.permuteB = true;
    p.permBPlan = permutePlan(b1, b1Shape, ch.b + ch.k + ch.n, sizes);
    p.tempBElements = std::max(p.tempBElements, Bop.elements);
    Beff = dense(ch.b + ch.k + ch.n, sizes);
  }
  if (!ch.fitC) {
    std::string canon = ch.b + ch.m + ch.n; // never swapped (see above)
    Shape canonShape;
    for (char c : canon)
      canonShape.push_back(sizes.at(c));
    p.permuteOut = true;
    p.permOutPlan.shape = canonShape;
    p.permOutPlan.srcStrides = rowMajorStrides(canonShape);
    p.permOutPlan.dstStrides = stridesOf(canon, lc, p.outShape);
    p.permOutPlan.simplify();
    p.tempOutElements = C.elements;
    Ceff = dense(canon, sizes);
  }
  OperandFit fa = fitOperand(Aeff, outer, inner, ch.m, ch.k, M, K, sizes, true);
  OperandFit fb = fitOperand(Beff, outer, inner, ch.k, ch.n, K, N, sizes, true);
  OperandFit fc =
      ch.swap ? fitOperand(Ceff, outer, inner, ch.n, ch.m, N, M, sizes, false)
              : fitOperand(Ceff, outer, inner, ch.m, ch.n, M, N, sizes, false);
  check(fa.ok && fb.ok && fc.ok, "internal error planning einsum '", spec.str(),
        "'");

  GemmPlan &g = p.gemm;
  g.k = K;
  g.outerBatch = product(outer, sizes);
  g.batch = B / g.outerBatch;
  g.ldc = fc.matrix.ld;
  g.strideC = fc.batchStride;
  g.outerStrideC = fc.outerStride;
  p.swapOperands = ch.swap;
  if (!ch.swap) {
    g.m = M;
    g.n = N;
    g.transA = fa.matrix.trans;
    g.lda = fa.matrix.ld;
    g.strideA = fa.batchStride;
    g.outerStrideA = fa.outerStride;
    g.transB = fb.matrix.trans;
    g.ldb = fb.matrix.ld;
    g.strideB = fb.batchStride;
    g.outerStrideB = fb.outerStride;
  } else {
    // C^T[N,M] = B^T[N,K] A^T[K,M].
    g.m = N;
    g.n = M;
    g.transA = !fb.matrix.trans;
    g.lda = fb.matrix.ld;
    g.strideA = fb.batchStride;
    g.outerStrideA = fb.outerStride;
    g.transB = !fa.matrix.trans;
    g.ldb = fa.matrix.ld;
    g.strideB = fa.batchStride;
    g.outerStrideB = fa.outerStride;
  }
  p.flops += 2 * M * N * K * B;
  return p;
}

std::string GemmPlan::str() const {
  std::ostringstream os;
  os << "gemm m=" << m << " n=" << n << " k=" << k << " transA=" << transA
     << " transB=" << transB << " lda=" << lda << " ldb=" << ldb
     << " ldc=" << ldc << " strideA=" << strideA << " strideB=" << strideB
     << " strideC=" << strideC << " batch=" << batch;
  if (outerBatch != 1)
    os << " outerBatch=" << outerBatch << " outerStrideA=" << outerStrideA
       << " outerStrideB=" << outerStrideB << " outerStrideC=" << outerStrideC;
  return os.str();
}

std::string EinsumPlan::str() const {
  std::ostringstream os;
  os << "einsum " << spec << " " << dtypeName(dtype) << "\n";
  if (unary) {
    os << (unaryIsCopy ? "  " + unaryCopy.str()
                       : "  reduce sum " + unaryReduce.spec)
       << "\n";
    return os.str();
  }
  if (reduceA)
    os << "  reduce A " << reduceAPlan.spec << "\n";
  if (reduceB)
    os << "  reduce B " << reduceBPlan.spec << "\n";
  if (permuteA)
    os << "  permute A " << permAPlan.str() << "\n";
  if (permuteB)
    os << "  permute B " << permBPlan.str() << "\n";
  os << "  " << (swapOperands ? "swapped " : "") << gemm.str() << "\n";
  if (permuteOut)
    os << "  permute out " << permOutPlan.str() << "\n";
  return os.str();
}

} // namespace weft::rt

//===- WeftGradients.cpp - DifferentiableOpInterface of the weft ops ------===//
//
// The reverse-mode rule of every global-view op, as ordinary weft ops. A
// rule gets dL/dy (`gy`, the result's shape) and builds dL/dx for each
// operand. Letters make the rules short: an operand's gradient lives in its
// own letters, a contribution computed in the result's letters is summed
// onto them (the transpose of broadcasting), and a letter that an operand
// has but the computation of its gradient does not is broadcast back.
// docs/autodiff.md lists every rule.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::weft;

namespace {

/// A value with the letters that index its dimensions.
struct Term {
  Value value;
  std::string letters;
};

/// Builds weft ops over letters whose sizes come from the differentiated op.
class GradBuilder {
public:
  GradBuilder(OpBuilder &b, Operation *op) : b(b), loc(op->getLoc()) {
    elementType = getElementTypeOrSelf(op->getResult(0).getType());
  }

  /// Records the sizes of `letters` from the shape of `type`.
  void addSizes(StringRef letters, Type type) {
    auto shape = cast<RankedTensorType>(type).getShape();
    for (auto [i, c] : llvm::enumerate(letters))
      sizes[c] = shape[i];
  }

  /// The element type of the values built from here on.
  void setElementType(Type type) { elementType = type; }

  RankedTensorType typeOf(StringRef letters) const {
    SmallVector<int64_t> shape;
    for (char c : letters)
      shape.push_back(sizes.lookup(c));
    return RankedTensorType::get(shape, elementType);
  }

  static std::string spec(ArrayRef<Term> ins, StringRef out) {
    std::string s;
    for (auto [i, t] : llvm::enumerate(ins))
      s += (i ? "," : "") + t.letters;
    return s + "->" + out.str();
  }

  Value map(MapKind kind, ArrayRef<Term> ins, StringRef out,
            std::optional<double> scalar = std::nullopt) {
    SmallVector<Value> values;
    for (const Term &t : ins)
      values.push_back(t.value);
    FloatAttr s = scalar ? b.getF64FloatAttr(*scalar) : FloatAttr();
    return MapOp::create(b, loc, typeOf(out), kind, spec(ins, out), values, s);
  }

  Value einsum(ArrayRef<Term> ins, StringRef out) {
    SmallVector<Value> values;
    for (const Term &t : ins)
      values.push_back(t.value);
    return EinsumOp::create(b, loc, typeOf(out), spec(ins, out), values);
  }

  Value reduce(ReductionKind kind, Term in, StringRef out) {
    return ReduceOp::create(b, loc, typeOf(out), kind, spec({in}, out),
                            in.value);
  }

  /// `g` (letters `from`) summed onto `to`, a subset of `from` in any order:
  /// the transpose of broadcasting. `g` itself when the letters are equal.
  Value sumTo(Term g, StringRef to) {
    if (g.letters == to)
      return g.value;
    return reduce(ReductionKind::Sum, g, to);
  }

  /// `g` (letters `from`) broadcast to `to`, a superset of `from` in any
  /// order. `g` itself when the letters are equal.
  Value broadcastTo(Term g, StringRef to) {
    if (g.letters == to)
      return g.value;
    return map(MapKind::Scale, {g}, to, 1.0);
  }

private:
  OpBuilder &b;
  Location loc;
  Type elementType;
  llvm::DenseMap<char, int64_t> sizes;
};

/// Letters of operand 0, 1, ... and of the result of an index-letter op.
SmallVector<std::string, 3> lettersOf(Operation *op) {
  return cast<ShardingRuleOpInterface>(op).getTensorLetters();
}

GradBuilder makeBuilder(OpBuilder &b, Operation *op,
                        ArrayRef<std::string> letters) {
  GradBuilder g(b, op);
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    g.addSizes(letters[i], v.getType());
  g.addSizes(letters.back(), op->getResult(0).getType());
  return g;
}

} // namespace

//===----------------------------------------------------------------------===//
// einsum: each operand's gradient is an einsum of gy with the other operand
//===----------------------------------------------------------------------===//

LogicalResult EinsumOp::buildGradients(OpBuilder &b, Value gy,
                                       SmallVectorImpl<Value> &grads) {
  SmallVector<std::string, 3> letters = lettersOf(*this);
  GradBuilder g = makeBuilder(b, *this, letters);
  const std::string &out = letters.back();
  unsigned n = getInputs().size();
  for (unsigned i = 0; i < n; ++i) {
    const std::string &mine = letters[i];
    if (n == 1) {
      // y = sum over the letters absent from y: broadcast gy back.
      grads.push_back(g.broadcastTo({gy, out}, mine));
      continue;
    }
    const std::string &other = letters[1 - i];
    // dL/dx[mine] = sum over every other letter of gy[out] * other[other];
    // a letter only x has was summed on x alone: broadcast it back.
    std::string reached;
    for (char c : mine)
      if (StringRef(out).contains(c) || StringRef(other).contains(c))
        reached.push_back(c);
    Value partial = g.einsum({{gy, out}, {getInputs()[1 - i], other}}, reached);
    grads.push_back(g.broadcastTo({partial, reached}, mine));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// map: a local derivative times gy, summed onto the operand's letters
//===----------------------------------------------------------------------===//

LogicalResult MapOp::buildGradients(OpBuilder &b, Value gy,
                                    SmallVectorImpl<Value> &grads) {
  SmallVector<std::string, 3> letters = lettersOf(*this);
  GradBuilder g = makeBuilder(b, *this, letters);
  const std::string out = letters.back();
  const Term dy{gy, out};
  const Term y{getResult(), out};
  const Term x{getInputs()[0], letters[0]};
  const double c = getScalar() ? getScalar()->convertToDouble() : 0.0;

  // Contributions to each operand's gradient, in the result's letters
  // (null: none, the map is constant in that operand).
  SmallVector<Value, 2> contrib(getInputs().size());
  auto M = [&](MapKind k, ArrayRef<Term> ins,
               std::optional<double> s = std::nullopt) {
    return g.map(k, ins, out, s);
  };
  // Unary kinds: gy times f'(x). `fx` is f(x) in x's letters (the result
  // itself when it has exactly x's letters).
  auto fx = [&]() -> Term {
    if (x.letters == out)
      return y;
    return {g.map(getKind(), {x}, x.letters,
                  getScalar() ? std::optional(c) : std::nullopt),
            x.letters};
  };
  auto X = [&](MapKind k, ArrayRef<Term> ins,
               std::optional<double> s = std::nullopt) -> Term {
    return {g.map(k, ins, x.letters, s), x.letters};
  };
  auto times = [&](Term d) { return M(MapKind::Mul, {dy, d}); };

  switch (getKind()) {
  case MapKind::Add:
    contrib = {gy, gy};
    break;
  case MapKind::Sub:
    contrib = {gy, M(MapKind::Neg, {dy})};
    break;
  case MapKind::Mul: {
    Term z{getInputs()[1], letters[1]};
    contrib = {M(MapKind::Mul, {dy, z}), M(MapKind::Mul, {dy, x})};
    break;
  }
  case MapKind::Div: {
    Term z{getInputs()[1], letters[1]};
    // d/dz (x / z) = -y / z.
    Value gyy = M(MapKind::Mul, {dy, y});
    contrib = {M(MapKind::Div, {dy, z}),
               M(MapKind::Neg, {{M(MapKind::Div, {{gyy, out}, z}), out}})};
    break;
  }
  case MapKind::Max:
  case MapKind::Min: {
    // The chosen operand gets gy; a tie goes to the first operand.
    Term z{getInputs()[1], letters[1]};
    bool isMax = getKind() == MapKind::Max;
    Value first = M(isMax ? MapKind::Ge : MapKind::Le, {x, z});
    Value second = M(isMax ? MapKind::Lt : MapKind::Gt, {x, z});
    contrib = {times({first, out}), times({second, out})};
    break;
  }
  case MapKind::Gt:
  case MapKind::Ge:
  case MapKind::Lt:
  case MapKind::Le:
  case MapKind::Eq:
  case MapKind::Ne:
  case MapKind::Sign:
  case MapKind::Step:
    break; // Piecewise constant: no gradient.
  case MapKind::Neg:
    contrib = {M(MapKind::Neg, {dy})};
    break;
  case MapKind::Scale:
    contrib = {M(MapKind::Scale, {dy}, c)};
    break;
  case MapKind::Shift:
    contrib = {gy};
    break;
  case MapKind::Exp:
    contrib = {times(fx())};
    break;
  case MapKind::Log:
    contrib = {M(MapKind::Div, {dy, x})};
    break;
  case MapKind::Sqrt: // 0.5 / sqrt(x)
    contrib = {M(MapKind::Div, {{M(MapKind::Scale, {dy}, 0.5), out}, fx()})};
    break;
  case MapKind::Rsqrt: { // -0.5 rsqrt(x)^3
    Term f = fx();
    Term cube = X(MapKind::Mul, {X(MapKind::Square, {f}), f});
    contrib = {times(X(MapKind::Scale, {cube}, -0.5))};
    break;
  }
  case MapKind::Square:
    contrib = {times(X(MapKind::Scale, {x}, 2.0))};
    break;
  case MapKind::Tanh: // 1 - tanh(x)^2
    contrib = {times(X(MapKind::Shift,
                       {X(MapKind::Neg, {X(MapKind::Square, {fx()})})}, 1.0))};
    break;
  case MapKind::Relu:
    contrib = {times(X(MapKind::Step, {x}))};
    break;
  case MapKind::Abs:
    contrib = {times(X(MapKind::Sign, {x}))};
    break;
  case MapKind::Sin: // cos x
    contrib = {times(X(MapKind::Cos, {x}))};
    break;
  case MapKind::Cos: // -sin x
    contrib = {times(X(MapKind::Neg, {X(MapKind::Sin, {x})}))};
    break;
  case MapKind::Sigmoid: { // s (1 - s)
    Term s = fx();
    contrib = {times(
        X(MapKind::Mul, {s, X(MapKind::Shift, {X(MapKind::Neg, {s})}, 1.0)}))};
    break;
  }
  case MapKind::Softplus: // sigmoid(x)
    contrib = {times(X(MapKind::Sigmoid, {x}))};
    break;
  case MapKind::Silu: { // s (1 + x (1 - s)), s = sigmoid(x)
    Term s = X(MapKind::Sigmoid, {x});
    Term oneMinus = X(MapKind::Shift, {X(MapKind::Neg, {s})}, 1.0);
    Term inner = X(MapKind::Shift, {X(MapKind::Mul, {x, oneMinus})}, 1.0);
    contrib = {times(X(MapKind::Mul, {s, inner}))};
    break;
  }
  case MapKind::Gelu: {
    // gelu(x) = 0.5 x (1 + t), t = tanh(u), u = k0 (x + k1 x^3):
    // gelu'(x) = 0.5 (1 + t) + 0.5 k0 x (1 - t^2) (1 + 3 k1 x^2).
    const double k0 = std::sqrt(2.0 / M_PI), k1 = 0.044715;
    Term x2 = X(MapKind::Square, {x});
    Term x3 = X(MapKind::Mul, {x2, x});
    Term u = X(MapKind::Scale,
               {X(MapKind::Add, {x, X(MapKind::Scale, {x3}, k1)})}, k0);
    Term t = X(MapKind::Tanh, {u});
    Term a = X(MapKind::Scale, {X(MapKind::Shift, {t}, 1.0)}, 0.5);
    Term sech2 =
        X(MapKind::Shift, {X(MapKind::Neg, {X(MapKind::Square, {t})})}, 1.0);
    Term poly = X(MapKind::Shift, {X(MapKind::Scale, {x2}, 3.0 * k1)}, 1.0);
    Term bterm =
        X(MapKind::Scale,
          {X(MapKind::Mul, {X(MapKind::Mul, {x, sech2}), poly})}, 0.5 * k0);
    contrib = {times(X(MapKind::Add, {a, bterm}))};
    break;
  }
  }
  contrib.resize(getInputs().size());
  for (auto [i, cv] : llvm::enumerate(contrib))
    grads.push_back(cv ? g.sumTo({cv, out}, letters[i]) : Value());
  return success();
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::buildGradients(OpBuilder &b, Value gy,
                                       SmallVectorImpl<Value> &grads) {
  SmallVector<std::string, 3> letters = lettersOf(*this);
  GradBuilder g = makeBuilder(b, *this, letters);
  const std::string &in = letters[0], &out = letters[1];
  if (getKind() == ReductionKind::Sum) {
    grads.push_back(g.broadcastTo({gy, out}, in));
    return success();
  }
  // max / min: gy goes to the elements equal to the result, shared equally
  // among ties (as JAX does), so the gradient sums to gy.
  Value mask = g.map(MapKind::Eq, {{getInput(), in}, {getResult(), out}}, in);
  Value count = g.reduce(ReductionKind::Sum, {mask, in}, out);
  Value share = g.map(MapKind::Div, {{gy, out}, {count, out}}, out);
  grads.push_back(g.map(MapKind::Mul, {{mask, in}, {share, out}}, in));
  return success();
}

//===----------------------------------------------------------------------===//
// softmax: the normalization's rule, through the exp and the sum at once
//===----------------------------------------------------------------------===//

std::optional<std::pair<Value, Value>>
mlir::weft::buildSoftmaxGradient(OpBuilder &b, MapOp div, Value gp) {
  if (div.getKind() != MapKind::Div || div.getInputs().size() != 2)
    return std::nullopt;
  SmallVector<std::string, 3> letters = lettersOf(div);
  if (letters.size() != 3 || letters[0] != letters[2] ||
      letters[1] == letters[0])
    return std::nullopt;
  Value e = div.getInputs()[0], s = div.getInputs()[1];
  auto sum = s.getDefiningOp<ReduceOp>();
  if (!sum || sum.getKind() != ReductionKind::Sum || sum.getInput() != e)
    return std::nullopt;
  SmallVector<std::string, 3> sumLetters = lettersOf(sum);
  if (sumLetters.size() != 2 || sumLetters[0] != letters[0] ||
      sumLetters[1] != letters[1])
    return std::nullopt;
  auto exp = e.getDefiningOp<MapOp>();
  if (!exp || exp.getKind() != MapKind::Exp || exp.getInputs().size() != 1)
    return std::nullopt;
  SmallVector<std::string, 3> expLetters = lettersOf(exp);
  if (expLetters.size() != 2 || expLetters[0] != expLetters[1])
    return std::nullopt;
  // dL/de_i = gp_i / s and dL/ds = -sum_j gp_j e_j / s^2 give, through
  // de/dz = e, dL/dz = p * (gp - sum_j gp_j p_j).
  GradBuilder g = makeBuilder(b, div, letters);
  const std::string &full = letters[0], &kept = letters[1];
  Value p = div.getResult();
  Value gpp = g.map(MapKind::Mul, {{gp, full}, {p, full}}, full);
  Value dot = g.reduce(ReductionKind::Sum, {gpp, full}, kept);
  Value centred = g.map(MapKind::Sub, {{gp, full}, {dot, kept}}, full);
  Value gz = g.map(MapKind::Mul, {{p, full}, {centred, full}}, full);
  return std::make_pair(exp.getInputs()[0], gz);
}

//===----------------------------------------------------------------------===//
// embed, shard, constant
//===----------------------------------------------------------------------===//

LogicalResult EmbedOp::buildGradients(OpBuilder &b, Value gy,
                                      SmallVectorImpl<Value> &grads) {
  // ids: none (integers). table: the result's gradient added into the rows
  // the ids picked, a scatter-add "ids,result->vd".
  SmallVector<std::string, 3> letters = lettersOf(*this);
  const std::string &ids = letters[0], &table = letters[1], &out = letters[2];
  std::string spec = ids + "," + out + "->" + table;
  grads.push_back(Value());
  grads.push_back(ScatterAddOp::create(
      b, getLoc(), withoutSharding(getTable().getType()), spec, getIds(), gy,
      FlatSymbolRefAttr(), ArrayAttr()));
  return success();
}

LogicalResult ScatterAddOp::buildGradients(OpBuilder &b, Value gy,
                                           SmallVectorImpl<Value> &grads) {
  // ids: none. updates: the rows of the result's gradient the ids pick,
  // an embed "ids,vd->updates".
  SmallVector<std::string, 3> letters = lettersOf(*this);
  const std::string &ids = letters[0], &updates = letters[1], &out = letters[2];
  std::string spec = ids + "," + out + "->" + updates;
  grads.push_back(Value());
  grads.push_back(
      EmbedOp::create(b, getLoc(), withoutSharding(getUpdates().getType()),
                      spec, getIds(), gy, FlatSymbolRefAttr(), ArrayAttr()));
  return success();
}

LogicalResult OneHotOp::buildGradients(OpBuilder &, Value,
                                       SmallVectorImpl<Value> &grads) {
  grads.push_back(Value()); // Integer ids: no gradient.
  return success();
}

LogicalResult IotaOp::buildGradients(OpBuilder &, Value,
                                     SmallVectorImpl<Value> &) {
  return success(); // No operands.
}

LogicalResult RandomOp::buildGradients(OpBuilder &, Value,
                                       SmallVectorImpl<Value> &grads) {
  if (getOffset())
    grads.push_back(Value()); // The offset keys the draw: no gradient.
  return success();
}

LogicalResult SliceOp::buildGradients(OpBuilder &b, Value gy,
                                      SmallVectorImpl<Value> &grads) {
  // The cotangent at `start`, zeros before and after: a concat.
  auto inType = withoutSharding(getInput().getType());
  if (!isa<FloatType>(inType.getElementType())) {
    grads.push_back(Value()); // Integers carry no gradient.
    return success();
  }
  int64_t dim = getDim(), start = getStart();
  int64_t n = cast<RankedTensorType>(getType()).getDimSize(dim);
  auto zeros = [&](int64_t extent) {
    SmallVector<int64_t> shape(inType.getShape());
    shape[dim] = extent;
    return ConstantOp::create(
        b, getLoc(), RankedTensorType::get(shape, inType.getElementType()),
        b.getF64FloatAttr(0.0));
  };
  SmallVector<Value> parts;
  if (start > 0)
    parts.push_back(zeros(start));
  parts.push_back(gy);
  if (int64_t after = inType.getDimSize(dim) - start - n; after > 0)
    parts.push_back(zeros(after));
  grads.push_back(
      parts.size() == 1
          ? gy
          : ConcatOp::create(b, getLoc(), inType, parts, dim).getResult());
  return success();
}

LogicalResult ConcatOp::buildGradients(OpBuilder &b, Value gy,
                                       SmallVectorImpl<Value> &grads) {
  // Each operand's range of the cotangent.
  int64_t dim = getDim(), offset = 0;
  for (Value in : getInputs()) {
    auto type = withoutSharding(in.getType());
    if (!isa<FloatType>(type.getElementType()))
      grads.push_back(Value());
    else
      grads.push_back(SliceOp::create(b, getLoc(), type, gy, dim, offset));
    offset += type.getDimSize(dim);
  }
  return success();
}

LogicalResult ReshapeOp::buildGradients(OpBuilder &b, Value gy,
                                        SmallVectorImpl<Value> &grads) {
  // The inverse reshape: the spec's two sides swapped.
  auto [in, out] = getSpec().split("->");
  auto inType = cast<RankedTensorType>(getInput().getType());
  grads.push_back(ReshapeOp::create(
      b, getLoc(),
      RankedTensorType::get(inType.getShape(), inType.getElementType()),
      (out + "->" + in).str(), gy));
  return success();
}

LogicalResult TopKOp::buildGradients(OpBuilder &b, Value gy,
                                     SmallVectorImpl<Value> &grads) {
  // The cotangent goes to the selected positions: sel = top_k(x, payload =
  // positions), hot[.., j, .., i] = (sel_j == i), dx = einsum(gy, hot). A
  // payload form routes it to the payload (x only chooses). Positions are
  // an iota, exact in f32 and f64 but not in bf16 (above 256) or f16 (above
  // 2048): a bf16 or f16 input is widened to f32 (exactly, so the same
  // elements are chosen, ties included) to choose the positions, and the
  // one-hot (0 and 1, exact in any type) is narrowed back for the einsum.
  auto in = cast<RankedTensorType>(getInput().getType());
  Type elt = in.getElementType();
  const bool narrow = !elt.isF32() && !elt.isF64();
  Type posElt = narrow ? Type(b.getF32Type()) : elt;
  int64_t d = getDim();
  GradBuilder g(b, *this);
  std::string x = placeholderLetters(in);
  std::string sel = x;
  sel[d] = kSelectedLetter;
  std::string line(1, x[d]);
  g.addSizes(x, in);
  g.addSizes(sel, getType());
  g.setElementType(posElt);
  Value input = getInput();
  if (narrow)
    input = ConvertOp::create(b, getLoc(), g.typeOf(x), input);
  Value iota = IotaOp::create(b, getLoc(), g.typeOf(line), FlatSymbolRefAttr(),
                              ArrayAttr());
  Value positions = g.broadcastTo({iota, line}, x);
  Value chosen = TopKOp::create(b, getLoc(), g.typeOf(sel), input, positions,
                                getDimAttr(), getKAttr());
  std::string hot = sel + line;
  Value oneHot = g.map(MapKind::Eq, {{chosen, sel}, {iota, line}}, hot);
  g.setElementType(elt);
  if (narrow)
    oneHot = ConvertOp::create(b, getLoc(), g.typeOf(hot), oneHot);
  Value dx = g.einsum({{gy, sel}, {oneHot, hot}}, x);
  if (getPayload())
    grads.push_back(Value()); // x only chooses: piecewise constant.
  grads.push_back(dx);
  return success();
}

LogicalResult CumsumOp::buildGradients(OpBuilder &b, Value gy,
                                       SmallVectorImpl<Value> &grads) {
  // y[i] = sum_{j <= i} x[j], so dx[j] = sum_{i >= j} dy[i]: the same scan
  // the other way (exclusive stays exclusive).
  auto op = CumsumOp::create(b, getLoc(), gy.getType(), gy, getDimAttr(),
                             getExclusiveAttr(),
                             getReverse() ? UnitAttr() : b.getUnitAttr());
  grads.push_back(op.getResult());
  return success();
}

LogicalResult PadFillOp::buildGradients(OpBuilder &b, Value gy,
                                        SmallVectorImpl<Value> &grads) {
  // The kept elements pass their cotangent through; the filled ones do not
  // depend on the input: zero there.
  grads.push_back(PadFillOp::create(b, getLoc(), gy.getType(), gy,
                                    getValidAttr(), b.getF64FloatAttr(0.0),
                                    FlatSymbolRefAttr(), ArrayAttr()));
  return success();
}

LogicalResult ShardOp::buildGradients(OpBuilder &b, Value gy,
                                      SmallVectorImpl<Value> &grads) {
  // The cotangent passes through unconstrained: the transpose of a layout
  // change A -> B is B -> A, and A (the operand's layout) is not known
  // before propagation. Constraining the cotangent to B, as JAX transposes
  // with_sharding_constraint, turns the backward of a sequence-parallel
  // all-gather (a partial cotangent constrained to the gathered layout)
  // into an all-reduce where a reduce-scatter suffices (docs/autodiff.md).
  grads.push_back(gy);
  return success();
}

LogicalResult ConstantOp::buildGradients(OpBuilder &, Value,
                                         SmallVectorImpl<Value> &) {
  return success(); // No operands.
}

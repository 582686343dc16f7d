//===- Optimizer.cpp - a training step from a loss and its gradients -----===//
//
// --weft-optimizer: appends the optimizer state and the step/lr arguments to
// a function built by --weft-autodiff, replaces its gradient results by the
// updated parameters and state, and builds the update from weft maps and
// reductions (Passes.td, docs/training.md). Nothing here is special to the
// partitioner: an update is elementwise in its parameter's letters, so it
// runs where the parameter lives, and the data-parallel gradient
// all-reduce that precedes it is derived by propagation as for any einsum.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/LossScaling.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <cfloat>
#include <cmath>
#include <cstdio>

#define DEBUG_TYPE "weft-optimizer"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTOPTIMIZER
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

/// The location name of ZeRO-1's constraint of an updated parameter to its
/// own layout (Optimizer.cpp writes it, PropagateSearch.cpp reads it): the
/// search lets that update be computed in the state's layout and gathered.
static constexpr llvm::StringLiteral kZero1GatherLoc =
    "ZeRO-1 all-gather of the updated shard";

using namespace mlir;
using namespace mlir::weft;

namespace {

struct OptimizerConfig {
  std::string kind;
  double lr, beta1, beta2, eps, weightDecay, momentum, clipNorm;
  std::string zeroAxis; // ZeRO-1: the axis the state is split over too

  /// The state tensors each parameter carries, by name prefix.
  SmallVector<StringRef, 2> statePrefixes() const {
    if (kind == "adamw")
      return {"m_", "v_"};
    if (momentum != 0)
      return {"mom_"};
    return {};
  }
};

/// Builds the maps of the update, all without sharding (propagation lays
/// them out) at one insertion point.
class UpdateBuilder {
public:
  UpdateBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}
  void setLoc(Location l) { loc = l; }

  /// kind(x) elementwise, with the scalar of scale / shift.
  Value unary(MapKind kind, Value x, double scalar = 0) {
    std::string l = placeholderLetters(x.getType());
    FloatAttr s =
        MapOp::takesScalar(kind) ? b.getF64FloatAttr(scalar) : FloatAttr();
    return MapOp::create(b, loc, withoutSharding(x.getType()), kind,
                         l + "->" + l, ValueRange{x}, s);
  }
  /// kind(x, y) elementwise; `y` has x's shape or is a scalar (broadcast).
  Value binary(MapKind kind, Value x, Value y) {
    std::string l = placeholderLetters(x.getType());
    std::string r = placeholderLetters(y.getType());
    return MapOp::create(b, loc, withoutSharding(x.getType()), kind,
                         l + "," + r + "->" + l, ValueRange{x, y}, FloatAttr());
  }
  Value scale(Value x, double c) { return unary(MapKind::Scale, x, c); }
  Value shift(Value x, double c) { return unary(MapKind::Shift, x, c); }
  /// sum(x * x) over every element: a rank-0 value.
  Value sumOfSquares(Value x) {
    std::string l = placeholderLetters(x.getType());
    auto type = withoutSharding(x.getType());
    return ReduceOp::create(
        b, loc, RankedTensorType::get({}, type.getElementType()),
        ReductionKind::Sum, l + "->", unary(MapKind::Square, x));
  }
  Value constant(Type elementType, double value) {
    return ConstantOp::create(b, loc, RankedTensorType::get({}, elementType),
                              b.getF64FloatAttr(value));
  }

private:
  OpBuilder &b;
  Location loc;
};

class TrainStepBuilder {
public:
  TrainStepBuilder(func::FuncOp func, const OptimizerConfig &config)
      : func(func), config(config) {}
  LogicalResult run();

private:
  /// The type of a state tensor of a parameter of type `type`: the same, or
  /// with ZeRO-1 also split over config.zeroAxis.
  FailureOr<Type> stateType(unsigned arg, Type type);

  func::FuncOp func;
  const OptimizerConfig &config;
  Mesh mesh;
};

FailureOr<Type> TrainStepBuilder::stateType(unsigned arg, Type type) {
  if (config.zeroAxis.empty())
    return type;
  StringRef axis = config.zeroAxis;
  auto t = cast<RankedTensorType>(type);
  ShardingAttr sharding = getSharding(t);
  SmallVector<SmallVector<StringRef>> dims(t.getRank());
  if (sharding)
    for (unsigned d = 0; d < t.getRank(); ++d)
      dims[d] = sharding.getDimAxes(d);
  Layout layout =
      sharding ? Layout::get(sharding) : Layout::getReplicated(t.getRank());
  if (llvm::is_contained(layout.getUsedAxes(), axis))
    return type; // Already split over it.
  int64_t size = mesh.getAxisSize(axis);
  for (unsigned d = 0; d < t.getRank(); ++d) {
    int64_t parts = mesh.getGroupSize(dims[d]) * size;
    if (t.getDimSize(d) % parts != 0)
      continue;
    dims[d].push_back(axis);
    return Type(RankedTensorType::get(t.getShape(), t.getElementType(),
                                      ShardingAttr::get(mesh.getRef(), dims)));
  }
  mlir::emitWarning(func.getArgument(arg).getLoc())
      << "--weft-optimizer zero1-axis=" << axis << ": no dimension of " << type
      << " divides by " << size
      << "; its optimizer state keeps the parameter's layout";
  return type;
}

LogicalResult TrainStepBuilder::run() {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  // Which results are gradients, of which argument.
  SmallVector<std::pair<unsigned, Value>> params; // (argument, gradient)
  for (unsigned r = 0; r < func.getNumResults(); ++r)
    if (auto of = func.getResultAttrOfType<IntegerAttr>(r, kGradOfAttr)) {
      int64_t i = of.getInt();
      if (r == 0 || i < 0 || i >= static_cast<int64_t>(func.getNumArguments()))
        return ret.emitError() << "--weft-optimizer: result #" << r
                               << " is marked weft.grad_of = " << i
                               << ", which is not a parameter argument";
      params.emplace_back(static_cast<unsigned>(i), ret.getOperand(r));
    }
  if (params.empty()) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (func.getArgAttr(i, kParamAttr))
        return func.emitError()
               << "--weft-optimizer: argument #" << i
               << " is a weft.param but the function has no gradient "
                  "results; run --weft-autodiff first";
    return success(); // Nothing is trained here.
  }
  if (func.getNumResults() != params.size() + 1)
    return ret.emitError() << "--weft-optimizer needs the loss followed by "
                              "the gradients only (the form --weft-autodiff "
                              "builds); the function has "
                           << func.getNumResults() << " results";
  if (failed(verifyGlobalView(func, "--weft-optimizer")))
    return failure();
  Value loss = ret.getOperand(0);
  auto lossType = dyn_cast<RankedTensorType>(loss.getType());
  if (!lossType || lossType.getRank() != 0)
    return ret.emitError() << "--weft-optimizer: result #0 must be the "
                              "scalar loss, not "
                           << loss.getType();
  Type elementType =
      cast<RankedTensorType>(func.getArgument(params[0].first).getType())
          .getElementType();
  for (auto [i, g] : params)
    if (cast<RankedTensorType>(func.getArgument(i).getType())
            .getElementType() != elementType)
      return func.emitError()
             << "--weft-optimizer: every parameter must have one element "
                "type; argument #"
             << i << " is " << func.getArgument(i).getType() << ", argument #"
             << params[0].first << " is "
             << func.getArgument(params[0].first).getType();

  // step and lr are rank-0 inputs of the parameters' type, which the
  // harness supplies in f32 or f64 only: a half-precision parameter is an
  // error here, not at run time (docs/precision.md).
  if (!elementType.isF32() && !elementType.isF64())
    return mlir::emitError(func.getArgument(params[0].first).getLoc())
           << "--weft-optimizer: the parameters are " << elementType
           << "; the optimizer state and its step and lr inputs must be f32 "
              "or f64 (keep the parameters f32 and compute in bf16 with "
              "weftc --precision=bf16-mixed)";

  // The harness reads the loss as f32 or f64 (a half-precision loss would
  // fail at run time) and the update mixes each parameter with its
  // gradient elementwise: a dtype the precision policy or the program got
  // wrong is an error here, at the value, not at an op the optimizer builds
  // or at run time (docs/precision.md).
  if (!lossType.getElementType().isF32() && !lossType.getElementType().isF64())
    return mlir::emitError(loss.getLoc())
           << "--weft-optimizer: the loss is " << lossType.getElementType()
           << "; the training harness reads an f32 or f64 loss (convert it "
              "to f32 before its last reduction: weft.convert)";
  for (auto [r, g] : llvm::enumerate(params)) {
    Type paramType = withoutSharding(func.getArgument(g.first).getType());
    Type gradType = withoutSharding(g.second.getType());
    if (paramType != gradType)
      return mlir::emitError(g.second.getLoc())
             << "--weft-optimizer: the gradient of argument #" << g.first
             << " (result #" << r + 1 << ") is " << gradType
             << " but the parameter is " << paramType
             << "; a gradient has its parameter's type (under weftc "
                "--precision the policy converts it back)";
  }

  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  OpBuilder b(ret);
  if (!config.zeroAxis.empty()) {
    SymbolTableCollection tables;
    FailureOr<MeshOp> meshOp = getFunctionMesh(func, tables);
    if (failed(meshOp))
      return failure();
    if (!*meshOp || !Mesh(*meshOp).getAxisIndex(config.zeroAxis))
      return func.emitError()
             << "--weft-optimizer zero1-axis=" << config.zeroAxis
             << ": the function's mesh has no such axis";
    mesh = Mesh(*meshOp);
  }
  // New arguments: the state of each parameter, then step and lr.
  struct Param {
    unsigned arg;
    Value grad;
    SmallVector<unsigned, 2> stateArgs;
    Type stateType; // the parameter's type, or ZeRO-1's split one
  };
  // Every new argument is inserted by one call: one at a time copies the
  // argument-attribute array each time (quadratic in the parameters).
  SmallVector<Param> ps;
  SmallVector<unsigned> newIndices;
  SmallVector<Type> newTypes;
  SmallVector<DictionaryAttr> newAttrs;
  SmallVector<Location> newLocs;
  unsigned next = func.getNumArguments();
  auto newArg = [&](Type type, ArrayRef<NamedAttribute> attrs) {
    newIndices.push_back(func.getNumArguments());
    newTypes.push_back(type);
    newAttrs.push_back(b.getDictionaryAttr(attrs));
    newLocs.push_back(loc);
    return next++;
  };
  for (auto [i, g] : params) {
    Param p{i, g, {}, {}};
    FailureOr<Type> stype = stateType(i, func.getArgument(i).getType());
    if (failed(stype))
      return failure();
    Type type = *stype;
    p.stateType = type;
    for (StringRef prefix : config.statePrefixes())
      p.stateArgs.push_back(newArg(
          type, {b.getNamedAttr(kStateOfAttr, b.getI64IntegerAttr(i)),
                 b.getNamedAttr(kNameAttr,
                                b.getStringAttr(
                                    (prefix + getArgNameOr(func, i)).str()))}));
    ps.push_back(p);
  }
  auto scalarType = RankedTensorType::get({}, elementType);
  auto hyper = [&](StringRef what) {
    return newArg(scalarType,
                  {b.getNamedAttr(kHyperparamAttr, b.getStringAttr(what)),
                   b.getNamedAttr(kNameAttr, b.getStringAttr(what))});
  };
  // A step the loss function already reads (weft.random's offset: a new
  // dropout mask every step) is the step: no second one.
  std::optional<unsigned> existingStep, lossScale;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto h = func.getArgAttrOfType<StringAttr>(i, kHyperparamAttr)) {
      // Dynamic loss scaling's input (--weft-precision=f16-mixed): the
      // harness feeds it like lr, in the parameters' type.
      if (h.getValue() == kLossScaleHyperparam && !lossScale &&
          func.getArgument(i).getType() != scalarType)
        return mlir::emitError(func.getArgument(i).getLoc())
               << "--weft-optimizer: the loss_scale argument #" << i << " is "
               << func.getArgument(i).getType() << "; it must be " << scalarType
               << " (the parameters' element type: the harness feeds it "
                  "like lr)";
      if (h.getValue() == kLossScaleHyperparam && !lossScale) {
        lossScale = i;
        continue;
      }
      if (h.getValue() != "step" || existingStep)
        return func.emitError()
               << "--weft-optimizer: argument #" << i
               << " is weft.hyperparam \"" << h.getValue()
               << "\"; a loss function may have one \"step\" argument and "
                  "no other hyperparameter (the optimizer adds \"lr\")";
      if (func.getArgument(i).getType() != scalarType)
        return func.emitError()
               << "--weft-optimizer: the step argument #" << i << " must be "
               << scalarType << " (the parameters' element type), not "
               << func.getArgument(i).getType();
      existingStep = i;
    }
  unsigned stepIndex = existingStep ? *existingStep : hyper("step");
  unsigned lrIndex = hyper("lr");
  if (failed(func.insertArguments(newIndices, newTypes, newAttrs, newLocs)))
    return failure();
  Value step = func.getArgument(stepIndex), lr = func.getArgument(lrIndex);

  UpdateBuilder u(b, loc);
  // One parameter's update ops: named so that weft-outline-layers outlines
  // equal updates into one function (docs/calls.md); lines are the
  // function's as before.
  auto updateLoc = [&](unsigned arg) -> Location {
    return NameLoc::get(b.getStringAttr(kUpdateLocPrefix + std::to_string(arg)),
                        loc);
  };
  // ZeRO-1: the update runs in the state's layout. The gradient and the
  // parameter are constrained to it (a reduce-scatter of the partial
  // gradient, a free local slice of the parameter); the new parameter's
  // constraint to its own layout below is the all-gather.
  auto inStateLayout = [&](const Param &p, Value v) -> Value {
    if (p.stateType == func.getArgument(p.arg).getType())
      return v;
    return ShardOp::create(b, loc, p.stateType, v);
  };
  // Dynamic loss scaling: whether every gradient is finite. Each element
  // is compared first (|g| <= the largest finite value: 0 for NaN and
  // infinities, 1 otherwise), so the reductions and their collectives see
  // only 0 and 1 and never depend on how a max treats NaN. One replicated
  // scalar: every rank reads the same reduced value and makes the
  // harness's skip-or-update decision alike.
  Value finite;
  if (lossScale) {
    double largest = elementType.isF32() ? double(FLT_MAX) : DBL_MAX;
    Value big = u.constant(elementType, largest);
    for (Param &p : ps) {
      std::string l = placeholderLetters(p.grad.getType());
      Value ok = u.binary(MapKind::Le, u.unary(MapKind::Abs, p.grad), big);
      Value all = ReduceOp::create(b, loc, scalarType, ReductionKind::Min,
                                   l + "->", ok);
      finite = finite ? u.binary(MapKind::Min, finite, all) : all;
    }
  }

  // Global-norm clipping: every gradient times min(1, c / (||g|| + 1e-6)).
  if (config.clipNorm > 0) {
    Value total;
    for (Param &p : ps) {
      Value s = u.sumOfSquares(p.grad);
      total = total ? u.binary(MapKind::Add, total, s) : s;
    }
    Value norm = u.shift(u.unary(MapKind::Sqrt, total), 1e-6);
    Value coef =
        u.binary(MapKind::Div, u.constant(elementType, config.clipNorm), norm);
    coef = u.binary(MapKind::Min, coef, u.constant(elementType, 1.0));
    for (Param &p : ps)
      p.grad = u.binary(MapKind::Mul, p.grad, coef);
  }

  SmallVector<Value> newValues; // per parameter: new param, new state...
  SmallVector<unsigned> updates;
  if (config.kind == "adamw") {
    // Scalars shared by every parameter: the decay factor 1 - lr * wd, the
    // step size lr / (1 - beta1^t) and 1 / sqrt(1 - beta2^t).
    auto biasCorrection = [&](double beta) {
      // 1 - beta^t = 1 - exp(t * ln(beta)).
      Value pow = u.unary(MapKind::Exp, u.scale(step, std::log(beta)));
      return u.shift(u.scale(pow, -1.0), 1.0);
    };
    Value decay = u.shift(u.scale(lr, -config.weightDecay), 1.0);
    Value stepSize = u.binary(MapKind::Div, lr, biasCorrection(config.beta1));
    Value invSqrtBc2 = u.unary(MapKind::Rsqrt, biasCorrection(config.beta2));
    for (Param &p : ps) {
      Value param = inStateLayout(p, func.getArgument(p.arg));
      Value m = func.getArgument(p.stateArgs[0]);
      Value g = inStateLayout(p, p.grad);
      u.setLoc(updateLoc(p.arg));
      Value v = func.getArgument(p.stateArgs[1]);
      Value m2 = u.binary(MapKind::Add, u.scale(m, config.beta1),
                          u.scale(g, 1.0 - config.beta1));
      Value v2 =
          u.binary(MapKind::Add, u.scale(v, config.beta2),
                   u.scale(u.unary(MapKind::Square, g), 1.0 - config.beta2));
      Value denom = u.shift(
          u.binary(MapKind::Mul, u.unary(MapKind::Sqrt, v2), invSqrtBc2),
          config.eps);
      Value delta =
          u.binary(MapKind::Mul, u.binary(MapKind::Div, m2, denom), stepSize);
      Value decayed = config.weightDecay != 0
                          ? u.binary(MapKind::Mul, param, decay)
                          : param;
      newValues.append({u.binary(MapKind::Sub, decayed, delta), m2, v2});
      updates.append({p.arg, p.stateArgs[0], p.stateArgs[1]});
      u.setLoc(loc);
    }
  } else {
    for (Param &p : ps) {
      Value param = inStateLayout(p, func.getArgument(p.arg));
      Value g = inStateLayout(p, p.grad);
      u.setLoc(updateLoc(p.arg));
      if (config.weightDecay != 0)
        g = u.binary(MapKind::Add, g, u.scale(param, config.weightDecay));
      Value dir = g;
      if (config.momentum != 0) {
        Value mom = func.getArgument(p.stateArgs[0]);
        dir = u.binary(MapKind::Add, u.scale(mom, config.momentum), g);
      }
      newValues.push_back(
          u.binary(MapKind::Sub, param, u.binary(MapKind::Mul, dir, lr)));
      updates.push_back(p.arg);
      if (config.momentum != 0) {
        newValues.push_back(dir);
        updates.push_back(p.stateArgs[0]);
      }
      u.setLoc(loc);
    }
  }

  // The results: the loss, then every updated argument in its own type
  // (sharding included: a parameter and its state stay where they live).
  SmallVector<Value> results{loss};
  if (finite)
    results.push_back(finite);
  for (auto [value, arg] : llvm::zip(newValues, updates)) {
    Type type = func.getArgument(arg).getType();
    // With ZeRO-1 this constraint is the all-gather of the updated shard,
    // named so: the global search computes a constrained value in its
    // constrained layout except here (docs/propagation.md).
    if (value.getType() != type)
      value = ShardOp::create(
          b,
          config.zeroAxis.empty()
              ? loc
              : Location(NameLoc::get(b.getStringAttr(kZero1GatherLoc), loc)),
          type, value);
    results.push_back(value);
  }
  DictionaryAttr lossAttrs = func.getResultAttrDict(0);
  ret->setOperands(results);
  func.setFunctionType(FunctionType::get(ctx, func.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  // All result attributes at once (one at a time is quadratic).
  SmallVector<DictionaryAttr> resultAttrs;
  NamedAttrList lossList(lossAttrs ? lossAttrs : DictionaryAttr::get(ctx));
  lossList.erase(kGradOfAttr);
  if (!lossList.get(kNameAttr))
    lossList.set(kNameAttr, b.getStringAttr("loss"));
  resultAttrs.push_back(lossList.getDictionary(ctx));
  if (finite)
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(kFiniteGradsAttr, b.getUnitAttr()),
         b.getNamedAttr(kNameAttr, b.getStringAttr("grads_finite"))}));
  for (unsigned arg : updates)
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(kUpdatesAttr,
                        b.getI64IntegerAttr(static_cast<int64_t>(arg))),
         b.getNamedAttr(kNameAttr,
                        b.getStringAttr("new_" + getArgNameOr(func, arg)))}));
  func.setAllResultAttrs(resultAttrs);
  SmallVector<NamedAttribute> cfg{
      b.getNamedAttr("kind", b.getStringAttr(config.kind)),
      b.getNamedAttr("lr", b.getF64FloatAttr(config.lr)),
      b.getNamedAttr("weight_decay", b.getF64FloatAttr(config.weightDecay)),
      b.getNamedAttr("clip_norm", b.getF64FloatAttr(config.clipNorm))};
  if (config.kind == "adamw")
    cfg.append({b.getNamedAttr("beta1", b.getF64FloatAttr(config.beta1)),
                b.getNamedAttr("beta2", b.getF64FloatAttr(config.beta2)),
                b.getNamedAttr("eps", b.getF64FloatAttr(config.eps))});
  else
    cfg.push_back(
        b.getNamedAttr("momentum", b.getF64FloatAttr(config.momentum)));
  if (!config.zeroAxis.empty())
    cfg.push_back(
        b.getNamedAttr("zero1_axis", b.getStringAttr(config.zeroAxis)));
  func->setAttr(kOptimizerAttr, b.getDictionaryAttr(cfg));
  WEFT_DEBUG(llvm::dbgs() << "weft-optimizer: " << config.kind << " over "
                          << ps.size() << " parameter(s)\n");
  return success();
}

struct WeftOptimizerPass
    : public mlir::weft::impl::WeftOptimizerBase<WeftOptimizerPass> {
  using WeftOptimizerBase::WeftOptimizerBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (kind != "adamw" && kind != "sgd") {
      func.emitError() << "--weft-optimizer: unknown kind '" << kind
                       << "' (expected adamw or sgd)";
      return signalPassFailure();
    }
    OptimizerConfig config{kind,        lr,       beta1,    beta2,   eps,
                           weightDecay, momentum, clipNorm, zeroAxis};
    if (config.weightDecay < 0)
      config.weightDecay = kind == "adamw" ? 0.01 : 0.0;
    auto bad = [&](const char *what, double v) {
      char text[32];
      std::snprintf(text, sizeof(text), "%g", v);
      func.emitError() << "--weft-optimizer: " << what << " = " << text
                       << " is out of range";
      signalPassFailure();
    };
    if (!(config.lr >= 0) || !std::isfinite(config.lr))
      return bad("lr", config.lr);
    if (!(config.beta1 > 0 && config.beta1 < 1))
      return bad("beta1", config.beta1);
    if (!(config.beta2 > 0 && config.beta2 < 1))
      return bad("beta2", config.beta2);
    if (!(config.eps > 0) || !std::isfinite(config.eps))
      return bad("eps", config.eps);
    if (!(config.weightDecay >= 0) || !std::isfinite(config.weightDecay))
      return bad("weight-decay", config.weightDecay);
    if (!(config.momentum >= 0 && config.momentum < 1))
      return bad("momentum", config.momentum);
    if (!(config.clipNorm >= 0) || !std::isfinite(config.clipNorm))
      return bad("clip-norm", config.clipNorm);
    if (failed(TrainStepBuilder(func, config).run()))
      signalPassFailure();
  }
};

} // namespace

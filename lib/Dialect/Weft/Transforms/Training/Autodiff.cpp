//===- Autodiff.cpp - reverse-mode gradients of a scalar loss -------------===//
//
// --weft-autodiff: walks the function body backwards from its loss, asks
// each op on a path from a `weft.param` argument to the loss for its
// DifferentiableOpInterface rule, accumulates the gradients of values used
// more than once, and appends one gradient result per parameter. The rules
// are in lib/Dialect/Weft/IR/WeftGradients.cpp; docs/autodiff.md. The same
// walk, seeded with a given cotangent instead of 1, writes the body of a
// `weft.vjp_of` declaration (differentiateWithCotangent, Vjp.h). A function
// that returns its own gradients (`weft.grad_of` results: a 1F1B pipeline,
// docs/pipeline.md) is checked and left as it is.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/LossScaling.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/Vjp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#define DEBUG_TYPE "weft-autodiff"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTAUTODIFF
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

class Differentiator {
public:
  /// With `withCotangent`, the last argument is the cotangent of the one
  /// result and every other argument is differentiated (a vjp body).
  explicit Differentiator(func::FuncOp func, bool withCotangent = false)
      : func(func), withCotangent(withCotangent) {}
  LogicalResult run();

private:
  /// The function already returns its gradients (`weft.grad_of` results):
  /// checks that they are the loss's form and names them.
  LogicalResult checkOwnGradients();

  /// Adds `g` to the gradient of `v` (a second use sums).
  void accumulate(OpBuilder &b, Location loc, Value v, Value g);

  func::FuncOp func;
  bool withCotangent;
  llvm::DenseMap<Value, Value> grads;
};

void Differentiator::accumulate(OpBuilder &b, Location loc, Value v, Value g) {
  auto [it, inserted] = grads.try_emplace(v, g);
  if (inserted)
    return;
  std::string l = placeholderLetters(v.getType());
  it->second = MapOp::create(b, loc, withoutSharding(v.getType()), MapKind::Add,
                             l + "," + l + "->" + l, ValueRange{it->second, g},
                             FloatAttr());
}

LogicalResult Differentiator::checkOwnGradients() {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  auto lossType = dyn_cast<RankedTensorType>(
      func.getNumResults() ? func.getResultTypes()[0] : Type());
  if (!lossType || lossType.getRank() != 0 ||
      func.getResultAttr(0, kGradOfAttr))
    return ret.emitError()
           << "--weft-autodiff: a function that returns its own gradients "
              "(weft.grad_of results) must return the scalar loss first";
  llvm::DenseMap<unsigned, unsigned> gradOf; // argument -> result
  SmallVector<DictionaryAttr> attrs;
  func.getAllResultAttrs(attrs);
  for (unsigned r = 1; r < func.getNumResults(); ++r) {
    auto of = func.getResultAttrOfType<IntegerAttr>(r, kGradOfAttr);
    if (!of)
      return ret.emitError()
             << "--weft-autodiff: result #" << r
             << " is not marked weft.grad_of; a function that returns its "
                "own gradients returns the loss and one gradient per "
                "weft.param argument only";
    int64_t i = of.getInt();
    if (i < 0 || i >= static_cast<int64_t>(func.getNumArguments()) ||
        !func.getArgAttr(i, kParamAttr))
      return ret.emitError() << "--weft-autodiff: result #" << r
                             << " is marked weft.grad_of = " << i
                             << ", which is not a weft.param argument";
    if (!gradOf.try_emplace(i, r).second)
      return ret.emitError()
             << "--weft-autodiff: results #" << gradOf[i] << " and #" << r
             << " are both the gradient of argument #" << i;
    Type argType = func.getArgument(i).getType();
    if (withoutSharding(argType) != withoutSharding(func.getResultTypes()[r]))
      return ret.emitError()
             << "--weft-autodiff: result #" << r << " ("
             << func.getResultTypes()[r] << ") is the gradient of argument #"
             << i << ", of type " << argType;
    if (!func.getResultAttr(r, kNameAttr)) {
      NamedAttrList list(attrs[r] ? attrs[r]
                                  : DictionaryAttr::get(func.getContext()));
      list.set(kNameAttr, StringAttr::get(func.getContext(),
                                          "grad_" + getArgNameOr(func, i)));
      attrs[r] = list.getDictionary(func.getContext());
    }
  }
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kParamAttr) && !gradOf.count(i))
      return ret.emitError()
             << "--weft-autodiff: the function returns its own gradients "
                "but none of argument #"
             << i << " (" << getArgNameOr(func, i) << "), a weft.param";
  // As --weft-autodiff does: a gradient takes its parameter's layout when
  // the parameter has one and the program leaves the gradient's open.
  OpBuilder b(ret);
  SmallVector<Type> resultTypes(func.getResultTypes());
  for (unsigned r = 1; r < func.getNumResults(); ++r) {
    unsigned i = func.getResultAttrOfType<IntegerAttr>(r, kGradOfAttr).getInt();
    auto type = cast<RankedTensorType>(func.getArgument(i).getType());
    Value g = ret.getOperand(r);
    if (!getSharding(type) || getSharding(g.getType()))
      continue;
    std::string what = "gradient of " + getArgNameOr(func, i);
    g = ShardOp::create(b, NameLoc::get(b.getStringAttr(what), ret.getLoc()),
                        type, g);
    ret.setOperand(r, g);
    resultTypes[r] = type;
  }
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getArgumentTypes(), resultTypes));
  func.setAllResultAttrs(attrs);
  return verifyGlobalView(func, "--weft-autodiff");
}

LogicalResult Differentiator::run() {
  SmallVector<unsigned> params;
  unsigned numArgs = func.getNumArguments() - (withCotangent ? 1 : 0);
  // A vjp differentiates every float argument; its integer ones (token ids)
  // have no gradient (ExpandVjp.cpp checked that there is nothing else).
  auto isFloatTensor = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && isa<FloatType>(rt.getElementType());
  };
  for (unsigned i = 0; i < numArgs; ++i)
    if (withCotangent ? isFloatTensor(func.getArgument(i).getType())
                      : bool(func.getArgAttr(i, kParamAttr)))
      params.push_back(i);
  if (!withCotangent)
    for (unsigned r = 0; r < func.getNumResults(); ++r)
      if (func.getResultAttr(r, kGradOfAttr))
        return checkOwnGradients();
  if (params.empty())
    return success(); // Nothing is trained here.
  if (failed(verifyGlobalView(func, "--weft-autodiff")))
    return failure();
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "--weft-autodiff needs a function of one block";
  for (unsigned i : params) {
    auto type = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return func.emitError()
             << "argument #" << i
             << (withCotangent ? " of a vjp's function has type "
                               : " is marked weft.param but has type ")
             << func.getArgument(i).getType()
             << ": only float tensors have gradients";
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (withCotangent) {
    Value cotangent = func.getArguments().back();
    if (ret.getNumOperands() != 1 ||
        withoutSharding(ret.getOperand(0).getType()) !=
            withoutSharding(cotangent.getType()))
      return ret.emitError() << "a vjp needs a function of one result, of "
                                "the cotangent's type "
                             << cotangent.getType();
  } else if (ret.getNumOperands() != 1 ||
             cast<RankedTensorType>(ret.getOperand(0).getType()).getRank() !=
                 0) {
    InFlightDiagnostic diag =
        ret.emitError() << "--weft-autodiff needs the function to return one "
                           "scalar loss (a rank-0 tensor); it returns ";
    if (ret.getNumOperands() != 1)
      diag << ret.getNumOperands() << " values";
    else
      diag << ret.getOperand(0).getType();
    return diag;
  }
  Value loss = ret.getOperand(0);

  // Ops on a path from a parameter: only they need gradient rules.
  llvm::DenseSet<Value> active;
  for (unsigned i : params)
    active.insert(func.getArgument(i));
  SmallVector<Operation *> order;
  for (Operation &op : func.getBody().front().without_terminator()) {
    order.push_back(&op);
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      for (Value r : op.getResults())
        active.insert(r);
  }

  // Values the loss depends on: a parameter outside this set gets a zero
  // gradient and a warning; one inside it whose rules all give no
  // contribution (a comparison) gets a zero gradient silently.
  llvm::DenseSet<Value> reachesLoss{loss};
  for (Operation *op : llvm::reverse(order))
    if (llvm::any_of(op->getResults(),
                     [&](Value r) { return reachesLoss.contains(r); }))
      for (Value v : op->getOperands())
        reachesLoss.insert(v);

  llvm::SmallPtrSet<Operation *, 32> forward;
  for (Operation *op : order)
    forward.insert(op);

  OpBuilder b(ret);
  Location loc = func.getLoc();
  if (withCotangent) {
    // The seed is the given cotangent (a vjp).
    if (active.contains(loss))
      grads[loss] = func.getArguments().back();
  } else if (active.contains(loss)) {
    // The seed, marked: dynamic loss scaling replaces it by the scale
    // (--weft-precision, LossScaling.h).
    auto seed =
        ConstantOp::create(b, ret.getLoc(), withoutSharding(loss.getType()),
                           b.getF64FloatAttr(1.0));
    seed->setAttr(kLossSeedAttr, b.getUnitAttr());
    grads[loss] = seed;
  }
  for (Operation *op : llvm::reverse(order)) {
    if (op->getNumResults() != 1 || !active.contains(op->getResult(0)))
      continue;
    auto it = grads.find(op->getResult(0));
    if (it == grads.end())
      continue; // Does not reach the loss.
    b.setInsertionPoint(ret);
    // A softmax's normalization: one rule through the div, the sum and the
    // exp, which reads the softmax's result alone (buildSoftmaxGradient).
    if (auto div = dyn_cast<MapOp>(op)) {
      if (auto softmax = buildSoftmaxGradient(b, div, it->second)) {
        if (active.contains(softmax->first))
          accumulate(b, op->getLoc(), softmax->first, softmax->second);
        continue;
      }
    }
    auto rule = dyn_cast<DifferentiableOpInterface>(op);
    if (!rule)
      return op->emitError() << "'" << op->getName()
                             << "' has no gradient rule (--weft-autodiff)";
    SmallVector<Value> operandGrads;
    if (failed(rule.buildGradients(b, it->second, operandGrads)))
      return failure();
    WEFT_DEBUG(llvm::dbgs() << "weft-autodiff: rule of " << op->getName()
                            << " at " << op->getLoc() << "\n");
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g && active.contains(operand))
        accumulate(b, op->getLoc(), operand, g);
  }

  // The new results: the loss, then one gradient per parameter.
  SmallVector<Value> results{loss};
  SmallVector<Type> resultTypes{loss.getType()};
  for (unsigned i : params) {
    BlockArgument arg = func.getArgument(i);
    auto type = cast<RankedTensorType>(arg.getType());
    Value g = grads.lookup(arg);
    if (!g) {
      if (!reachesLoss.contains(arg) && !withCotangent)
        mlir::emitWarning(arg.getLoc())
            << "parameter #" << i
            << " does not reach the loss: its gradient is zero";
      g = ConstantOp::create(b, loc, withoutSharding(type),
                             b.getF64FloatAttr(0.0));
    }
    // The gradient takes the parameter's layout when it has one; the
    // constraint's location names the parameter (comm report reasons). A
    // vjp's gradients are left to propagation: a pipeline sums one per
    // tick, and a constraint on each would resolve each partial sum.
    if (!withCotangent && getSharding(type) && g.getType() != type) {
      std::string what = "gradient of " + getArgNameOr(func, i);
      g = ShardOp::create(b, NameLoc::get(b.getStringAttr(what), loc), type, g);
    }
    results.push_back(g);
    resultTypes.push_back(g.getType());
  }
  SmallVector<DictionaryAttr> oldResultAttrs;
  func.getAllResultAttrs(oldResultAttrs);
  ret->setOperands(results);
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getArgumentTypes(), resultTypes));
  // One dictionary per new result, built first and set at once (setting
  // them one by one copies the whole array each time: quadratic in the
  // number of parameters), the loss's kept.
  SmallVector<DictionaryAttr> resultAttrs(
      resultTypes.size(), DictionaryAttr::get(func.getContext()));
  if (!oldResultAttrs.empty() && oldResultAttrs[0])
    resultAttrs[0] = oldResultAttrs[0];
  for (auto [k, i] : llvm::enumerate(params)) {
    NamedAttrList attrs;
    attrs.set(kGradOfAttr, b.getI64IntegerAttr(static_cast<int64_t>(i)));
    attrs.set(kNameAttr, b.getStringAttr("grad_" + getArgNameOr(func, i)));
    resultAttrs[k + 1] = attrs.getDictionary(func.getContext());
  }
  func.setAllResultAttrs(resultAttrs);
  // Rules build every operand's gradient; drop those nothing uses (the
  // gradients of inputs that are not parameters). Forward ops stay.
  SmallVector<Operation *> built;
  for (Operation &op : func.getBody().front().without_terminator())
    if (!forward.contains(&op))
      built.push_back(&op);
  for (Operation *op : llvm::reverse(built))
    if (isOpTriviallyDead(op))
      op->erase();
  return success();
}

} // namespace

LogicalResult mlir::weft::differentiateWithCotangent(func::FuncOp f) {
  if (f.getNumArguments() == 0)
    return f.emitError() << "a vjp needs the cotangent as the last argument";
  return Differentiator(f, /*withCotangent=*/true).run();
}

namespace {

struct WeftAutodiffPass
    : public mlir::weft::impl::WeftAutodiffBase<WeftAutodiffPass> {
  void runOnOperation() override {
    if (failed(Differentiator(getOperation()).run()))
      signalPassFailure();
  }
};

} // namespace

//===- Evaluator.cpp - evaluating a weft function -------------------------===//
//
// The driver: arguments in, each op through its EvaluableOpInterface model
// (EvaluationModels.cpp), results checked against their types, the returned
// values out. It knows no op but func.return.
//

#include "weft/Interpreter/Evaluator.h"
#include "weft/Interpreter/EvaluableOpInterface.h"
#include "weft/Interpreter/Random.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

#include "weft/Interpreter/EvaluableOpInterface.cpp.inc"

FailureOr<SmallVector<StringRef>>
EvalContext::getAxes(Operation *op, FlatSymbolRefAttr meshRef,
                     ArrayAttr axes) const {
  if (!local)
    return op->emitError()
           << "'" << op->getName()
           << "' is a local-view op and cannot run in the global view "
              "(pass the per-rank program to --compare)";
  if (meshName.empty() || meshRef.getValue() != meshName) {
    InFlightDiagnostic diag = op->emitError() << "refers to mesh " << meshRef
                                              << ", but the function runs on ";
    if (!meshName.empty())
      diag << "@" << meshName;
    else
      diag << "a single rank";
    return diag;
  }
  SmallVector<StringRef> names;
  for (Attribute a : axes)
    names.push_back(cast<StringAttr>(a).getValue());
  return names;
}

namespace {
/// Runs one function on every rank of its mesh in lockstep (one rank in the
/// global view): binds the arguments, evaluates each op through its
/// EvaluableOpInterface model, and checks every result against its type.
class Evaluator {
public:
  Evaluator(func::FuncOp func, bool local, MeshOp meshOp)
      : func(func), ctx(local, meshOp) {
    // The models are attached by a dialect extension: appending it here
    // makes every caller of the interpreter see them.
    DialectRegistry registry;
    registerEvaluationModels(registry);
    func->getContext()->appendDialectRegistry(registry);
  }

  FailureOr<std::vector<Values>> run(ArrayRef<Values> args);

private:
  LogicalResult evaluate(Operation *op);
  /// Checks that every rank's tensor for `value` has the shape of its type.
  LogicalResult checkShape(Operation *op, Value value, const Twine &what);

  func::FuncOp func;
  EvalContext ctx;
  SmallVector<Value> returned;
};
} // namespace

LogicalResult Evaluator::checkShape(Operation *op, Value value,
                                    const Twine &what) {
  auto type = cast<RankedTensorType>(value.getType());
  for (int64_t r = 0; r < ctx.getNumRanks(); ++r) {
    ArrayRef<int64_t> shape = ctx.get(value, r).getShape();
    if (shape != type.getShape()) {
      InFlightDiagnostic diag = op->emitError()
                                << what << " has shape " << shapeToString(shape)
                                << " but its type is " << type;
      ctx.noteRank(diag, r);
      return diag;
    }
  }
  return success();
}

LogicalResult Evaluator::evaluate(Operation *op) {
  // Operands: defined, and of the shape their types say.
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (!ctx.isDefined(operand))
      return op->emitError()
             << "operand #" << i << " is not defined in the function body";
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    returned.assign(ret.getOperands().begin(), ret.getOperands().end());
    return success();
  }
  auto evaluable = dyn_cast<EvaluableOpInterface>(op);
  if (!evaluable)
    return op->emitError() << "the interpreter does not evaluate '"
                           << op->getName()
                           << "' (it runs the weft ops and func.return)";
  if (failed(evaluable.evaluate(ctx)))
    return failure();
  // With --round-half-results, a result stored in f16 or bf16 is rounded
  // to it here, once, as the runtime rounds on store; f32 and f64 results
  // stay in double (docs/interpreter.md, "Semantics").
  for (Value v : op->getResults()) {
    Type element = getElementTypeOrSelf(v.getType());
    if (!getRoundHalfResults() || !ctx.isDefined(v) ||
        !(element.isBF16() || element.isF16()))
      continue;
    PerRank rounded = ctx.get(v);
    for (Tensor &t : rounded)
      for (double &x : t.getData())
        x = roundToType(x, element);
    ctx.bind(v, std::move(rounded));
  }
  for (auto [i, v] : llvm::enumerate(op->getResults())) {
    if (ctx.isLocal() && getSharding(v.getType()))
      return op->emitError() << "result #" << i << " has type " << v.getType()
                             << ": a local-view program carries local shapes "
                                "without #weft.sharding";
    if (!ctx.isDefined(v))
      return op->emitError()
             << "result #" << i << " was not computed by the interpreter";
    if (failed(checkShape(op, v, "result #" + Twine(i))))
      return failure();
  }
  return success();
}

FailureOr<std::vector<Values>> Evaluator::run(ArrayRef<Values> args) {
  if (func.isExternal())
    return func.emitError()
           << "function @" << func.getSymName() << " has no body to evaluate";
  if (!func.getBody().hasOneBlock())
    return func.emitError()
           << "function @" << func.getSymName()
           << " has several blocks; weft programs have no control flow";
  const int64_t numRanks = ctx.getNumRanks();
  assert(static_cast<int64_t>(args.size()) == numRanks);
  Block &body = func.getBody().front();
  for (const Values &rankArgs : args)
    if (rankArgs.size() != body.getNumArguments())
      return func.emitError() << "function @" << func.getSymName() << " takes "
                              << body.getNumArguments() << " argument(s), got "
                              << rankArgs.size();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return func.emitError()
             << "argument #" << i << " has type " << arg.getType()
             << "; the interpreter takes static tensors";
    if (ctx.isLocal() && getSharding(type))
      return func.emitError() << "argument #" << i << " has type " << type
                              << ": a local-view program carries local shapes "
                                 "without #weft.sharding";
    PerRank perRankArgs;
    for (int64_t r = 0; r < numRanks; ++r)
      perRankArgs.push_back(args[r][i]);
    ctx.bind(arg, std::move(perRankArgs));
    if (failed(checkShape(func, arg, "argument #" + Twine(i))))
      return failure();
  }
  for (Operation &op : body)
    if (failed(evaluate(&op)))
      return failure();
  std::vector<Values> results(numRanks);
  for (Value v : returned)
    for (int64_t r = 0; r < numRanks; ++r)
      results[r].push_back(ctx.get(v, r));
  return results;
}

static bool roundHalfResults = false;
void mlir::weft::interp::setRoundHalfResults(bool on) { roundHalfResults = on; }
bool mlir::weft::interp::getRoundHalfResults() { return roundHalfResults; }

FailureOr<Values> mlir::weft::interp::evaluateGlobal(func::FuncOp func,
                                                     ArrayRef<Tensor> args) {
  Evaluator evaluator(func, /*local=*/false, MeshOp());
  Values argValues(args.begin(), args.end());
  FailureOr<std::vector<Values>> results = evaluator.run({argValues});
  if (failed(results))
    return failure();
  return std::move(results->front());
}

FailureOr<std::vector<Values>>
mlir::weft::interp::evaluateLocal(func::FuncOp func, MeshOp mesh,
                                  ArrayRef<Values> args) {
  Evaluator evaluator(func, /*local=*/true, mesh);
  return evaluator.run(args);
}

//===- Evaluator.cpp - evaluating a weft function -------------------------===//

#include "weft/Interpreter/Evaluator.h"
#include "weft/Interpreter/Collectives.h"
#include "weft/Interpreter/Kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

namespace {
/// Runs one function on `numRanks` ranks in lockstep: every value holds one
/// tensor per rank (one in the global view).
class Evaluator {
public:
  Evaluator(func::FuncOp func, bool local, MeshOp meshOp)
      : func(func), local(local), meshOp(meshOp),
        mesh(meshOp ? Mesh::get(meshOp) : Mesh()),
        numRanks(mesh.getNumRanks()) {}

  FailureOr<std::vector<Values>> run(ArrayRef<Values> args);

private:
  LogicalResult evaluate(Operation *op);
  LogicalResult evaluateEmbed(EmbedOp op);
  /// The axes of a local-view op, after checking that it names the mesh the
  /// function runs on.
  FailureOr<SmallVector<StringRef>>
  getAxes(Operation *op, FlatSymbolRefAttr ref, ArrayAttr axes);
  /// Runs `fn(rank)` on every rank and binds the op's single result.
  template <typename Fn> void perRank(Operation *op, Fn fn) {
    PerRank out;
    for (int64_t r = 0; r < numRanks; ++r)
      out.push_back(fn(r));
    values[op->getResult(0)] = std::move(out);
  }
  /// Parses the spec of an index-letter op (the verifier accepted it).
  static IndexSpec getSpec(Operation *op, StringRef text);
  /// Checks that every rank's tensor for `value` has the shape of its type.
  LogicalResult checkShape(Operation *op, Value value, const Twine &what);

  func::FuncOp func;
  bool local;
  MeshOp meshOp;
  Mesh mesh;
  int64_t numRanks;
  llvm::DenseMap<Value, PerRank> values;
  SmallVector<Value> returned;
};
} // namespace

IndexSpec Evaluator::getSpec(Operation *op, StringRef text) {
  std::string error;
  FailureOr<IndexSpec> spec = IndexSpec::parse(text, error);
  assert(succeeded(spec) && "the verifier accepted a malformed spec");
  return *spec;
}

LogicalResult Evaluator::checkShape(Operation *op, Value value,
                                    const Twine &what) {
  auto type = cast<RankedTensorType>(value.getType());
  for (int64_t r = 0; r < numRanks; ++r) {
    ArrayRef<int64_t> shape = values[value][r].getShape();
    if (shape != type.getShape()) {
      InFlightDiagnostic diag = op->emitError()
                                << what << " has shape " << shapeToString(shape)
                                << " but its type is " << type;
      if (local)
        diag << " (rank " << r << ")";
      return diag;
    }
  }
  return success();
}

FailureOr<SmallVector<StringRef>>
Evaluator::getAxes(Operation *op, FlatSymbolRefAttr ref, ArrayAttr axes) {
  if (!local)
    return op->emitError()
           << "'" << op->getName()
           << "' is a local-view op and cannot run in the global view "
              "(pass the per-rank program to --compare)";
  if (!meshOp || ref.getValue() != meshOp.getSymName()) {
    InFlightDiagnostic diag = op->emitError()
                              << "refers to mesh " << ref
                              << ", but the function runs on ";
    if (meshOp)
      diag << "@" << meshOp.getSymName();
    else
      diag << "a single rank";
    return diag;
  }
  SmallVector<StringRef> names;
  for (Attribute a : axes)
    names.push_back(cast<StringAttr>(a).getValue());
  return names;
}

LogicalResult Evaluator::evaluateEmbed(EmbedOp op) {
  IndexSpec spec = getSpec(op, op.getSpec());
  auto tableType = cast<RankedTensorType>(op.getTable().getType());
  int64_t rows = tableType.getDimSize(0);
  SmallVector<StringRef> axes;
  if (op.getMesh()) {
    FailureOr<SmallVector<StringRef>> a =
        getAxes(op, op.getMeshAttr(), op.getVocabAxesAttr());
    if (failed(a))
      return failure();
    axes = *a;
  }
  int64_t vocab = rows * mesh.getGroupSize(axes);
  auto resultShape = cast<RankedTensorType>(op.getType()).getShape();
  PerRank out;
  for (int64_t r = 0; r < numRanks; ++r) {
    const Tensor &ids = values[op.getIds()][r];
    int64_t first = axes.empty() ? 0 : mesh.getGroupPosition(r, axes) * rows;
    BadId bad;
    FailureOr<Tensor> result = interp::embed(
        spec, ids, values[op.getTable()][r], resultShape, first, vocab, bad);
    if (failed(result)) {
      InFlightDiagnostic diag = op.emitError()
                                << "id " << bad.value << " at index "
                                << indexToString(bad.index, ids.getShape())
                                << " of the ids is outside the vocabulary [0, "
                                << vocab << ")";
      if (local)
        diag << " (rank " << r << ")";
      return diag;
    }
    out.push_back(std::move(*result));
  }
  values[op.getResult()] = std::move(out);
  return success();
}

LogicalResult Evaluator::evaluate(Operation *op) {
  // Operands: defined, and of the shape their types say.
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (!values.count(operand))
      return op->emitError()
             << "operand #" << i << " is not defined in the function body";
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  auto tensorsOf = [&](OperandRange operands, int64_t r) {
    SmallVector<const Tensor *> ts;
    for (Value v : operands)
      ts.push_back(&values[v][r]);
    return ts;
  };

  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](EinsumOp o) {
            IndexSpec spec = getSpec(o, o.getSpec());
            perRank(o, [&](int64_t r) {
              return interp::einsum(spec, tensorsOf(o.getInputs(), r),
                                    shapeOf(o.getResult()));
            });
            return success();
          })
          .Case([&](MapOp o) {
            IndexSpec spec = getSpec(o, o.getSpec());
            double scalar =
                o.getScalar() ? o.getScalar()->convertToDouble() : 0.0;
            perRank(o, [&](int64_t r) {
              return interp::map(o.getKind(), scalar, spec,
                                 tensorsOf(o.getInputs(), r),
                                 shapeOf(o.getResult()));
            });
            return success();
          })
          .Case([&](ReduceOp o) {
            IndexSpec spec = getSpec(o, o.getSpec());
            perRank(o, [&](int64_t r) {
              return interp::reduce(o.getKind(), spec, values[o.getInput()][r],
                                    shapeOf(o.getResult()));
            });
            return success();
          })
          .Case([&](EmbedOp o) { return evaluateEmbed(o); })
          .Case([&](ShardOp o) -> LogicalResult {
            if (local)
              return o.emitError() << "weft.shard is a global-view op; a "
                                      "local-view program has none";
            values[o.getResult()] = values[o.getInput()];
            return success();
          })
          .Case([&](AllReduceOp o) -> LogicalResult {
            FailureOr<SmallVector<StringRef>> axes =
                getAxes(o, o.getMeshAttr(), o.getAxes());
            if (failed(axes))
              return failure();
            values[o.getResult()] =
                allReduce(mesh, *axes, o.getKind(), values[o.getInput()]);
            return success();
          })
          .Case([&](AllGatherOp o) -> LogicalResult {
            FailureOr<SmallVector<StringRef>> axes =
                getAxes(o, o.getMeshAttr(), o.getAxes());
            if (failed(axes))
              return failure();
            values[o.getResult()] =
                allGather(mesh, *axes, o.getDim(), values[o.getInput()]);
            return success();
          })
          .Case([&](ReduceScatterOp o) -> LogicalResult {
            FailureOr<SmallVector<StringRef>> axes =
                getAxes(o, o.getMeshAttr(), o.getAxes());
            if (failed(axes))
              return failure();
            values[o.getResult()] = reduceScatter(
                mesh, *axes, o.getKind(), o.getDim(), values[o.getInput()]);
            return success();
          })
          .Case([&](AllToAllOp o) -> LogicalResult {
            FailureOr<SmallVector<StringRef>> axes =
                getAxes(o, o.getMeshAttr(), o.getAxes());
            if (failed(axes))
              return failure();
            values[o.getResult()] =
                allToAll(mesh, *axes, o.getSplitDim(), o.getConcatDim(),
                         values[o.getInput()]);
            return success();
          })
          .Case([&](SliceShardOp o) -> LogicalResult {
            FailureOr<SmallVector<StringRef>> axes =
                getAxes(o, o.getMeshAttr(), o.getAxes());
            if (failed(axes))
              return failure();
            values[o.getResult()] =
                sliceShard(mesh, *axes, o.getDim(), values[o.getInput()]);
            return success();
          })
          .Case([&](func::ReturnOp o) {
            returned.assign(o.getOperands().begin(), o.getOperands().end());
            return success();
          })
          .Default([&](Operation *o) {
            return o->emitError()
                   << "the interpreter does not evaluate '" << o->getName()
                   << "' (it runs the weft ops and func.return)";
          });
  if (failed(result))
    return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults())) {
    if (local && getSharding(v.getType()))
      return op->emitError() << "result #" << i << " has type " << v.getType()
                             << ": a local-view program carries local shapes "
                                "without #weft.sharding";
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
    if (local && getSharding(type))
      return func.emitError() << "argument #" << i << " has type " << type
                              << ": a local-view program carries local shapes "
                                 "without #weft.sharding";
    PerRank perRankArgs;
    for (int64_t r = 0; r < numRanks; ++r)
      perRankArgs.push_back(args[r][i]);
    values[arg] = std::move(perRankArgs);
    if (failed(checkShape(func, arg, "argument #" + Twine(i))))
      return failure();
  }
  for (Operation &op : body)
    if (failed(evaluate(&op)))
      return failure();
  std::vector<Values> results(numRanks);
  for (Value v : returned)
    for (int64_t r = 0; r < numRanks; ++r)
      results[r].push_back(values[v][r]);
  return results;
}

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

//===- Partition.cpp - the weft-partition pass ----------------------------===//
//
// Global view -> local view. Each op makes its own local form
// (PartitionOpInterface::partition, lib/Dialect/Weft/IR/WeftPartition.cpp)
// through the PartitionContext this pass implements: its operands are
// resharded to the layouts it needs (Reshard.h plans the steps), and
// partial results are resolved where consumers need them. The pass names
// no op.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/IR/PartitionContext.h"
#include "weft/Dialect/Weft/IR/SourceLines.h"
#include "weft/Dialect/Weft/IR/WeftBuilders.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/Reshard.h"
#include "weft/Dialect/Weft/Transforms/ShardingRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <tuple>

#define DEBUG_TYPE "weft-partition"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTPARTITION
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// A local value holding a global value in some layout.
struct Materialized {
  Layout layout;
  Value local;
};

class Partitioner : public PartitionContext {
public:
  Partitioner(func::FuncOp func, const Mesh &mesh)
      : func(func), mesh(mesh), builder(func.getContext()) {}

  LogicalResult run();

  // PartitionContext.
  OpBuilder &getBuilder() override { return builder; }
  const Mesh &getMesh() override { return mesh; }
  RankedTensorType getGlobalType(Value v) override {
    return globalTypes.lookup(v);
  }
  std::string describe(Operation *op) override;
  /// The local value of `global` in layout `target`, resharding from the
  /// cheapest materialized layout if needed. Inserts before `user`. `why`
  /// (the start of each collective's weft.reason) is called only when a
  /// collective is inserted.
  FailureOr<Value> getAs(Value global, const Layout &target, Operation *user,
                         llvm::function_ref<std::string()> why) override;
  void setLocal(Value global, const Layout &layout, Value local) override {
    available[global].push_back({layout, local});
  }
  AxisList getSplitAxes(Operation *op, char letter) override;
  Layout getRequiredLayout(Operation *op, unsigned i,
                           ArrayRef<char> whole) override;
  Value &getShared(StringRef what, const void *key, int64_t a,
                   int64_t b) override {
    return shared[{what.str(), key, a, b}];
  }
  FailureOr<Layout> partitionInPlace(Operation *op) override;

private:
  LogicalResult checkPropagated();
  LogicalResult partitionOp(Operation *op);
  RankedTensorType localType(RankedTensorType global, const Layout &layout);
  /// Records how the printer names each global value (%arg0, %3, %5#1),
  /// for reasons and errors; run before the function changes.
  void nameValues();
  std::string name(Value v) { return names.lookup(v); }
  /// The global type of `v` (arguments are retyped to local early).
  RankedTensorType globalType(Value v) { return globalTypes.lookup(v); }

  func::FuncOp func;
  const Mesh &mesh;
  OpBuilder builder;
  /// No inline element: a Layout is large, and an inline one would make
  /// every bucket of this map (one per global value) a few hundred bytes.
  llvm::DenseMap<Value, SmallVector<Materialized, 0>> available;
  llvm::DenseMap<Value, std::string> names;
  llvm::DenseMap<Value, RankedTensorType> globalTypes;
  /// Global ops partitioned in place (partitionInPlace).
  llvm::DenseSet<Operation *> keptInPlace;
  /// getShared's slots.
  std::map<std::tuple<std::string, const void *, int64_t, int64_t>, Value>
      shared;
};

} // namespace

static Layout layoutOf(Type type) {
  ShardingAttr s = getSharding(type);
  return s ? Layout::get(s)
           : Layout::getReplicated(cast<RankedTensorType>(type).getRank());
}

std::string Partitioner::describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName();
  if (auto spec = op->getAttrOfType<StringAttr>("spec"))
    os << " '" << spec.getValue() << "'";
  os << atLine(op->getLoc());
  return s;
}

RankedTensorType Partitioner::localType(RankedTensorType global,
                                        const Layout &layout) {
  return RankedTensorType::get(layout.getLocalShape(mesh, global.getShape()),
                               global.getElementType());
}

LogicalResult Partitioner::checkPropagated() {
  auto unsharded = [&](Type type) {
    return isa<RankedTensorType>(type) && !getSharding(type);
  };
  // Every split dimension divides: --weft-pad-uneven pads the others.
  // Reported at the value's own location: an argument's error emitted on
  // the function would be followed by a dump of the whole function.
  auto uneven = [&](Location at, Type type,
                    const Twine &what) -> LogicalResult {
    ShardingAttr s = getSharding(type);
    if (!s)
      return success();
    auto tensor = cast<RankedTensorType>(type);
    for (unsigned d = 0; d < s.getRank(); ++d) {
      int64_t k = mesh.getGroupSize(s.getDimAxes(d));
      if (tensor.getDimSize(d) % k != 0)
        return emitError(at)
               << "dimension #" << d << " of " << what << " has size "
               << tensor.getDimSize(d) << ", which is not divisible by " << k
               << " (the product of axes \""
               << llvm::join(s.getDimAxes(d), "\", \"")
               << "\"): run --weft-pad-uneven before --weft-partition (weftc "
                  "does)";
    }
    return success();
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(uneven(arg.getLoc(), arg.getType(),
                      "argument #" + Twine(arg.getArgNumber()) + " of @" +
                          func.getSymName())))
      return failure();
  for (Operation &op : func.getBody().getOps())
    for (Type t : op.getResultTypes())
      if (failed(uneven(op.getLoc(), t,
                        "the result of '" + op.getName().getStringRef() + "'")))
        return failure();
  for (Operation &op : func.getBody().getOps())
    if (isLocalViewOp(&op))
      return op.emitOpError() << "is already a local-view op: this program "
                                 "is partitioned";
  for (BlockArgument arg : func.getArguments())
    if (unsharded(arg.getType()))
      return emitError(arg.getLoc())
             << "argument #" << arg.getArgNumber() << " of @"
             << func.getSymName()
             << " has no #weft.sharding: run --weft-propagate before "
                "--weft-partition";
  for (Operation &op : func.getBody().getOps()) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (!isa<PartitionOpInterface>(op))
      return op.emitOpError() << "is not handled by weft-partition";
    for (Type t : op.getResultTypes())
      if (unsharded(t))
        return op.emitOpError() << "has a result without #weft.sharding: run "
                                   "--weft-propagate before --weft-partition";
    if (ShardingRule::hasSplit(&op) && failed(ShardingRule::readSplit(&op)))
      return op.emitOpError() << "has no valid `weft.split` letter map: run "
                                 "--weft-propagate before --weft-partition";
  }
  return success();
}

/// Calls `fn` on every argument of `func`, then every op result.
static void forEachValue(func::FuncOp func, function_ref<void(Value)> fn) {
  for (BlockArgument arg : func.getArguments())
    fn(arg);
  func.walk([&](Operation *op) {
    for (Value r : op->getResults())
      fn(r);
  });
}

void Partitioner::nameValues() {
  Block &body = func.getBody().front();
  // The printer's numbering, without building an AsmState (a sixth of this
  // pass on a long chain): entry arguments %argN, then one number per op
  // with results, %N#i for result i > 0 of a multi-result op. That holds
  // when no op names its results itself (OpAsmOpInterface) or has regions;
  // otherwise ask the printer.
  bool plain =
      func.getBody().hasOneBlock() && llvm::all_of(body, [](Operation &op) {
        return op.getNumRegions() == 0 &&
               (isa<func::ReturnOp>(op) ||
                isa_and_nonnull<WeftDialect>(op.getDialect())) &&
               !isa<OpAsmOpInterface>(op);
      });
  if (!plain) {
    AsmState state(func);
    forEachValue(func, [&](Value value) {
      std::string s;
      llvm::raw_string_ostream os(s);
      value.printAsOperand(os, state);
      names[value] = s;
    });
    return;
  }
  for (BlockArgument arg : body.getArguments())
    names[arg] = "%arg" + std::to_string(arg.getArgNumber());
  unsigned next = 0;
  for (Operation &op : body) {
    if (op.getNumResults() == 0)
      continue;
    std::string base = "%" + std::to_string(next++);
    names[op.getResult(0)] = base;
    for (unsigned i = 1; i < op.getNumResults(); ++i)
      names[op.getResult(i)] = base + "#" + std::to_string(i);
  }
}

FailureOr<Value> Partitioner::getAs(Value global, const Layout &target,
                                    Operation *user,
                                    llvm::function_ref<std::string()> why) {
  SmallVector<Materialized, 0> &versions = available[global];
  for (const Materialized &m : versions)
    if (m.layout == target)
      return m.local;
  RankedTensorType type = globalType(global);
  std::optional<ReshardPlan> best;
  Value source;
  std::string lastWhy;
  for (const Materialized &m : versions) {
    FailureOr<ReshardPlan> plan =
        planReshard(m.layout, target, type, mesh, &lastWhy);
    if (succeeded(plan) && (!best || plan->totalBytes() < best->totalBytes())) {
      best = *plan;
      source = m.local;
    }
  }
  if (!best)
    return user->emitOpError() << "cannot reshard " << name(global) << " to "
                               << target.str() << ": " << lastWhy;

  builder.setInsertionPoint(user);
  Location loc = user->getLoc();
  Value cur = source;
  Layout curLayout = versions.front().layout;
  for (const Materialized &m : versions)
    if (m.local == source)
      curLayout = m.layout;
  for (const ReshardStep &step : best->steps) {
    // Over axes of size 1 (a mesh re-sized to fewer ranks) a step only
    // renames the layout: nothing to compute or send.
    if (mesh.getGroupSize(step.axes) == 1)
      continue;
    auto resultType =
        RankedTensorType::get(step.outShape, type.getElementType());
    SmallVector<StringRef> axes(step.axes.begin(), step.axes.end());
    FlatSymbolRefAttr ref = mesh.getRef();
    Value created;
    switch (step.kind) {
    case ReshardStep::SliceShard:
      created =
          buildSliceShard(builder, loc, resultType, cur, ref, axes, step.dim);
      break;
    case ReshardStep::AllGather:
      created =
          buildAllGather(builder, loc, resultType, cur, ref, axes, step.dim);
      break;
    case ReshardStep::AllReduce:
      created = buildAllReduce(builder, loc, resultType, step.reduction, cur,
                               ref, axes);
      break;
    case ReshardStep::ReduceScatter:
      created = buildReduceScatter(builder, loc, resultType, step.reduction,
                                   cur, ref, axes, step.dim);
      break;
    case ReshardStep::AllToAll:
      created = buildAllToAll(builder, loc, resultType, cur, ref, axes,
                              step.dim, step.concatDim);
      break;
    }
    if (step.kind != ReshardStep::SliceShard) {
      created.getDefiningOp()->setAttr(
          kReasonAttr, builder.getStringAttr(why() + ": " + name(global) + " " +
                                             curLayout.str(false) + " -> " +
                                             target.str(false)));
      created.getDefiningOp()->setAttr(
          kBytesPerDeviceAttr,
          builder.getI64IntegerAttr(int64_t(step.bytesPerDevice + 0.5)));
    }
    WEFT_DEBUG(llvm::dbgs()
               << "[weft-partition] inserted " << *created.getDefiningOp()
               << " (" << why() << ")\n");
    cur = created;
  }
  versions.push_back({target, cur});
  return cur;
}

AxisList Partitioner::getSplitAxes(Operation *op, char letter) {
  FailureOr<LetterMap> map = ShardingRule::readSplit(op);
  return succeeded(map) ? map->lookup(letter) : AxisList();
}

Layout Partitioner::getRequiredLayout(Operation *op, unsigned i,
                                      ArrayRef<char> whole) {
  std::optional<ShardingRule> rule = ShardingRule::get(op);
  FailureOr<LetterMap> map = ShardingRule::readSplit(op);
  for (char c : whole)
    map->erase(c);
  return rule->requiredLayout(i, *map);
}

LogicalResult Partitioner::partitionOp(Operation *op) {
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    for (OpOperand &operand : ret->getOpOperands()) {
      Value global = operand.get();
      FailureOr<Value> local =
          getAs(global, layoutOf(globalType(global)), op, [&] {
            return "function result #" +
                   std::to_string(operand.getOperandNumber());
          });
      if (failed(local))
        return failure();
      operand.set(*local);
    }
    return success();
  }
  auto partitionable = dyn_cast<PartitionOpInterface>(op);
  if (!partitionable)
    return op->emitOpError() << "cannot be partitioned";
  return partitionable.partition(*this);
}

FailureOr<Layout> Partitioner::partitionInPlace(Operation *op) {
  std::optional<ShardingRule> rule = ShardingRule::get(op);
  FailureOr<LetterMap> map = ShardingRule::readSplit(op);
  if (!rule || failed(map))
    return op->emitOpError() << "cannot be partitioned";
  SmallVector<Layout, 2> operandLayouts;
  SmallVector<const Layout *> operandPtrs;
  for (Value v : op->getOperands())
    operandLayouts.push_back(layoutOf(globalType(v)));
  for (const Layout &l : operandLayouts)
    operandPtrs.push_back(&l);
  int accepted = rule->acceptedPartialOperand(operandPtrs, *map);

  auto letters = [&] {
    std::string text = "letters {";
    bool first = true;
    for (char c : rule->getLetters()) {
      auto it = map->find(c);
      if (it == map->end() || it->second.empty())
        continue;
      text += (first ? "" : ", ") + std::string(1, c) + " = " +
              axesStr(it->second, false);
      first = false;
    }
    return text + "}";
  };

  // Local operands by position: one value may be several operands, each in
  // its own layout (`map mul "i,j->ij" (%a, %a)`).
  SmallVector<Value> localOperands;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    Layout req = rule->requiredLayout(i, *map);
    if (rule->keepsPartial(i, accepted)) {
      req.partialAxes = operandLayouts[i].partialAxes;
      req.partialKind = operandLayouts[i].partialKind;
    }
    FailureOr<Value> local = getAs(operand, req, op, [&] {
      return "operand #" + std::to_string(i) + " of " + describe(op) + " (" +
             letters() + ")";
    });
    if (failed(local))
      return failure();
    localOperands.push_back(*local);
  }

  // The op becomes its local form in place (its global result type is in
  // globalTypes; later global readers look their operands up there): no
  // clone to allocate, no global op to erase.
  Operation *localOp = op;
  keptInPlace.insert(op);
  Layout natural = rule->naturalResult(
      *map, accepted >= 0 ? &operandLayouts[accepted] : nullptr);
  Value result = op->getResult(0);
  RankedTensorType resultType =
      localType(cast<RankedTensorType>(result.getType()), natural);
  localOp->setOperands(localOperands);
  localOp->getResult(0).setType(resultType);
  return natural;
}

LogicalResult Partitioner::run() {
  if (failed(checkPropagated()))
    return failure();
  nameValues();
  forEachValue(func, [&](Value v) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      globalTypes[v] = t;
  });

  // Arguments become local; their global type moves to an attribute.
  // (All attributes at once: setting them one by one rebuilds the whole
  // array each time, quadratic in the argument count.)
  SmallVector<DictionaryAttr> argAttrs;
  func.getAllArgAttrs(argAttrs);
  for (BlockArgument arg : func.getArguments()) {
    auto global = dyn_cast<RankedTensorType>(arg.getType());
    if (!global)
      continue;
    Layout layout = layoutOf(global);
    NamedAttrList attrs(argAttrs[arg.getArgNumber()]);
    attrs.set(kGlobalTypeAttr, TypeAttr::get(global));
    argAttrs[arg.getArgNumber()] = attrs.getDictionary(func.getContext());
    arg.setType(localType(global, layout));
    available[arg].push_back({layout, arg});
  }
  func.setAllArgAttrs(argAttrs);
  SmallVector<Operation *> globalOps;
  for (Operation &op : func.getBody().getOps())
    globalOps.push_back(&op);
  SmallVector<Type> globalResults(func.getResultTypes());
  for (Operation *op : globalOps)
    if (failed(partitionOp(op)))
      return failure();
  // Erase the global ops, users first (those partitioned in place are
  // local now).
  for (Operation *op : llvm::reverse(globalOps))
    if (!isa<func::ReturnOp>(op) && !keptInPlace.contains(op))
      op->erase();

  Operation *ret = func.getBody().front().getTerminator();
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getBody().getArgumentTypes(),
                                         ret->getOperandTypes()));
  SmallVector<DictionaryAttr> resultAttrs;
  func.getAllResultAttrs(resultAttrs);
  for (auto [i, type] : llvm::enumerate(globalResults)) {
    NamedAttrList attrs(resultAttrs[i]);
    attrs.set(kGlobalTypeAttr, TypeAttr::get(type));
    resultAttrs[i] = attrs.getDictionary(func.getContext());
  }
  func.setAllResultAttrs(resultAttrs);
  return success();
}

namespace {
struct WeftPartitionPass
    : public weft::impl::WeftPartitionBase<WeftPartitionPass> {
  void runOnOperation() override {
    // A function pass: functions are propagated (partitioned) in parallel;
    // each reads only the module's meshes besides itself.
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SymbolTableCollection tables;
    if (failed(verifyGlobalView(func, "weft-partition")))
      return signalPassFailure();
    auto meshOp = getFunctionMesh(func, tables);
    if (failed(meshOp))
      return signalPassFailure();
    bool annotated = llvm::any_of(func.getArgumentTypes(), [](Type t) {
      return static_cast<bool>(getSharding(t));
    });
    func.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        annotated |= static_cast<bool>(getSharding(t));
    });
    if (!annotated || !*meshOp) {
      if (func.getNumArguments() == 0 &&
          func.getBody().front().getOperations().size() == 1)
        return; // Nothing to partition.
      func.emitOpError() << "has no #weft.sharding: run --weft-propagate "
                            "before --weft-partition";
      return signalPassFailure();
    }
    Mesh mesh(*meshOp);
    if (failed(Partitioner(func, mesh).run()))
      return signalPassFailure();
  }
};
} // namespace

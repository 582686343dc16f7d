//===- Partition.cpp - the weft-partition pass ----------------------------===//
//
// Global view -> local view. Each op's operands are resharded to the layout
// its letter map needs (Reshard.h plans the steps), the op is cloned on local
// shapes, and partial results are resolved where consumers need them.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/SourceLines.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/Reshard.h"
#include "weft/Dialect/Weft/Transforms/ShardingRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
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

class Partitioner {
public:
  Partitioner(func::FuncOp func, const Mesh &mesh)
      : func(func), mesh(mesh), builder(func.getContext()) {}

  LogicalResult run();

private:
  LogicalResult checkPropagated();
  /// The local value of `global` in layout `target`, resharding from the
  /// cheapest materialized layout if needed. Inserts before `user`. `why`
  /// (the start of each collective's weft.reason) is called only when a
  /// collective is inserted.
  FailureOr<Value> getAs(Value global, const Layout &target, Operation *user,
                         llvm::function_ref<std::string()> why);
  LogicalResult partitionOp(Operation *op);
  RankedTensorType localType(RankedTensorType global, const Layout &layout);
  void setDimBlocks(Operation *local, const Layout &layout);
  Value addScanOffsets(CumsumOp local, const Layout &layout);
  LogicalResult partitionTopK(TopKOp op, const ShardingRule &rule,
                              LetterMap map);
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
  /// Global ops partitioned in place (partitionOp's general case).
  llvm::DenseSet<Operation *> keptInPlace;
  /// weft.top_k's gathered candidate values, by (local input, dim, k per
  /// block): two selections of one input (values, and indices by a
  /// payload) gather its candidates once.
  std::map<std::tuple<void *, int64_t, int64_t>, Value> gatheredCandidates;
};

} // namespace

static Layout layoutOf(Type type) {
  ShardingAttr s = getSharding(type);
  return s ? Layout::get(s)
           : Layout::getReplicated(cast<RankedTensorType>(type).getRank());
}

static std::string lineOf(Operation *op) {
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
    if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp,
            SliceShardOp>(op) ||
        isLocalViewOp(&op))
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
    if (!isa<ShardOp, ConstantOp, IotaOp, RandomOp>(op) &&
        !ShardingRule::hasSplit(&op))
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
    if (succeeded(plan) &&
        (!best || plan->totalBytes() < best->totalBytes())) {
      best = *plan;
      source = m.local;
    }
  }
  if (!best)
    return user->emitOpError()
           << "cannot reshard " << name(global) << " to " << target.str()
           << ": " << lastWhy;

  builder.setInsertionPoint(user);
  Location loc = user->getLoc();
  MLIRContext *ctx = func.getContext();
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
    auto resultType = RankedTensorType::get(step.outShape,
                                            type.getElementType());
    SmallVector<StringRef> axes(step.axes.begin(), step.axes.end());
    ArrayAttr axesAttr = builder.getStrArrayAttr(axes);
    Operation *created = nullptr;
    switch (step.kind) {
    case ReshardStep::SliceShard:
      created = SliceShardOp::create(builder, loc, resultType, cur, mesh.getRef(),
                                     axesAttr,
                                     builder.getI64IntegerAttr(step.dim));
      break;
    case ReshardStep::AllGather:
      created = AllGatherOp::create(builder, loc, resultType, cur, mesh.getRef(),
                                    axesAttr,
                                    builder.getI64IntegerAttr(step.dim));
      break;
    case ReshardStep::AllReduce:
      created = AllReduceOp::create(
          builder, loc, resultType,
          ReductionKindAttr::get(ctx, step.reduction), cur, mesh.getRef(),
          axesAttr);
      break;
    case ReshardStep::ReduceScatter:
      created = ReduceScatterOp::create(
          builder, loc, resultType,
          ReductionKindAttr::get(ctx, step.reduction), cur, mesh.getRef(),
          axesAttr, builder.getI64IntegerAttr(step.dim));
      break;
    case ReshardStep::AllToAll:
      created = AllToAllOp::create(builder, loc, resultType, cur, mesh.getRef(),
                                   axesAttr,
                                   builder.getI64IntegerAttr(step.dim),
                                   builder.getI64IntegerAttr(step.concatDim));
      break;
    }
    if (step.kind != ReshardStep::SliceShard) {
      created->setAttr(kReasonAttr,
                       builder.getStringAttr(why() + ": " + name(global) + " " +
                                             curLayout.str(false) + " -> " +
                                             target.str(false)));
      created->setAttr(
          kBytesPerDeviceAttr,
          builder.getI64IntegerAttr(int64_t(step.bytesPerDevice + 0.5)));
    }
    WEFT_DEBUG(llvm::dbgs() << "[weft-partition] inserted " << *created << " ("
                            << why() << ")\n");
    cur = created->getResult(0);
  }
  versions.push_back({target, cur});
  return cur;
}

/// weft.random and weft.pad_fill in the local view: `on @mesh over` the
/// axes of every dimension (nothing when `layout` splits none).
void Partitioner::setDimBlocks(Operation *local, const Layout &layout) {
  if (layout.getUsedAxes().empty())
    return;
  SmallVector<Attribute> dims;
  for (const AxisList &axes : layout.dims)
    dims.push_back(builder.getStrArrayAttr(
        SmallVector<StringRef>(axes.begin(), axes.end())));
  local->setAttr("mesh", mesh.getRef());
  local->setAttr("block_axes", builder.getArrayAttr(dims));
}

/// weft.cumsum along a dimension split over axes A: `local` scanned the
/// rank's block; every element also needs the sum of the blocks before it
/// (after it, reversed). The block totals (one value per line) are
/// all-gathered over A, scanned exclusively, and each rank keeps its own:
///   tot = reduce sum over d (input); g = all_gather (tot with d = 1) over A
///   off = slice_shard (cumsum exclusive g) over A; y = local + off
/// Bytes moved: (|A| - 1) totals per line, never the tensor.
Value Partitioner::addScanOffsets(CumsumOp local, const Layout &layout) {
  int64_t d = local.getDim();
  const AxisList &axes = layout.dims[d];
  auto type = cast<RankedTensorType>(local.getType());
  Type elt = type.getElementType();
  int64_t p = mesh.getGroupSize(axes);
  Location loc = local.getLoc();
  auto tensor = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, elt);
  };
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<int64_t> one = shape, gathered = shape, kept = shape;
  one[d] = 1;
  gathered[d] = p;
  kept.erase(kept.begin() + d);
  std::string all = placeholderLetters(type);
  std::string rest = all;
  rest.erase(d, 1);
  SmallVector<StringRef> axisNames(axes.begin(), axes.end());
  ArrayAttr axesAttr = builder.getStrArrayAttr(axisNames);

  builder.setInsertionPointAfter(local);
  Value totals =
      ReduceOp::create(builder, loc, tensor(kept), ReductionKind::Sum,
                       all + "->" + rest, local.getInput());
  Value column = MapOp::create(builder, loc, tensor(one), MapKind::Scale,
                               rest + "->" + all, ValueRange{totals},
                               builder.getF64FloatAttr(1.0));
  auto gather =
      AllGatherOp::create(builder, loc, tensor(gathered), column, mesh.getRef(),
                          axesAttr, builder.getI64IntegerAttr(d));
  std::string why = "block totals of " + lineOf(local) + " (dim " +
                    std::to_string(d) + " scanned over " + axesStr(axes, false) +
                    ")";
  gather->setAttr(kReasonAttr, builder.getStringAttr(why));
  gather->setAttr(kBytesPerDeviceAttr,
                  builder.getI64IntegerAttr((p - 1) *
                                            tensor(one).getNumElements() *
                                            elementBytes(type)));
  Value before = CumsumOp::create(
      builder, loc, tensor(gathered), gather, builder.getI64IntegerAttr(d),
      builder.getUnitAttr(), local.getReverseAttr());
  Value mine =
      SliceShardOp::create(builder, loc, tensor(one), before, mesh.getRef(),
                           axesAttr, builder.getI64IntegerAttr(d));
  Value offset = ReduceOp::create(builder, loc, tensor(kept),
                                  ReductionKind::Sum, all + "->" + rest, mine);
  return MapOp::create(builder, loc, type, MapKind::Add,
                       all + "," + rest + "->" + all,
                       ValueRange{local.getResult(), offset}, FloatAttr());
}

/// weft.top_k: the selected dimension whole on every rank. Along a split
/// dimension (axes A) each rank selects its block's k candidates (and their
/// payloads), the candidates are all-gathered over A -- k per line and
/// rank, in block order, so equal values still go to the lower global
/// index -- and selected again.
LogicalResult Partitioner::partitionTopK(TopKOp op, const ShardingRule &rule,
                                         LetterMap map) {
  int64_t d = op.getDim(), k = op.getK();
  char letter = rule.getTensorLetters(0)[d];
  AxisList axes = map.lookup(letter);
  map.erase(TopKOp::kSelectedLetter); // Computed whole; consumers slice.
  std::string why = lineOf(op);
  SmallVector<Value, 2> operands;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    FailureOr<Value> local =
        getAs(op->getOperand(i), rule.requiredLayout(i, map), op,
              [&] { return "operand #" + std::to_string(i) + " of " + why; });
    if (failed(local))
      return failure();
    operands.push_back(*local);
  }
  // A block smaller than k sends all it has: min(k, block) candidates.
  auto inType = cast<RankedTensorType>(operands[0].getType());
  int64_t kLocal = std::min(k, inType.getDimSize(d));
  auto sized = [&](RankedTensorType t, int64_t n) {
    SmallVector<int64_t> shape(t.getShape());
    shape[d] = n;
    return RankedTensorType::get(shape, t.getElementType());
  };
  builder.setInsertionPoint(op);
  auto select = [&](Value x, Value payload, int64_t count) -> Value {
    return TopKOp::create(
        builder, op.getLoc(), sized(cast<RankedTensorType>(x.getType()), count),
        x, payload, op.getDimAttr(), builder.getI64IntegerAttr(count));
  };
  Value payload = operands.size() > 1 ? operands[1] : Value();
  Value result;
  if (axes.empty()) {
    result = select(operands[0], payload, k);
  } else {
    int64_t p = mesh.getGroupSize(axes);
    SmallVector<StringRef> names(axes.begin(), axes.end());
    auto gather = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      auto g = AllGatherOp::create(
          builder, op.getLoc(), sized(t, p * kLocal), v, mesh.getRef(),
          builder.getStrArrayAttr(names), builder.getI64IntegerAttr(d));
      g->setAttr(kReasonAttr,
                 builder.getStringAttr("top-k candidates of " + why +
                                       " (dim " + std::to_string(d) +
                                       " selected over " +
                                       axesStr(axes, false) + ")"));
      g->setAttr(kBytesPerDeviceAttr,
                 builder.getI64IntegerAttr((p - 1) * t.getNumElements() *
                                           elementBytes(t)));
      return g;
    };
    Value &values = gatheredCandidates[{operands[0].getAsOpaquePointer(), d,
                                        kLocal}];
    if (!values)
      values = gather(select(operands[0], Value(), kLocal));
    result = payload
                 ? select(values, gather(select(operands[0], payload, kLocal)),
                          k)
                 : select(values, Value(), k);
  }
  Layout computed = rule.requiredLayout(rule.getResultIndex(), map);
  available[op.getResult()].push_back({computed, result});
  // Propagation priced the dropped letter as a max: a selection replicated
  // over those axes is also that partial max.
  Layout priced = layoutOf(globalType(op.getResult()));
  if (priced.isPartial() && priced.partialKind == ReductionKind::Max &&
      priced.dims == computed.dims)
    available[op.getResult()].push_back({priced, result});
  return success();
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
  if (auto shard = dyn_cast<ShardOp>(op)) {
    // A constraint a pass made names what it constrains (--weft-autodiff:
    // "gradient of W3"), so the comm report says whose bytes move.
    std::string what = "weft.shard constraint";
    Location loc = op->getLoc();
    if (auto named = dyn_cast<NameLoc>(loc)) {
      what += " (" + named.getName().str() + ")";
      loc = named.getChildLoc();
    }
    what += atLine(loc);
    FailureOr<Value> local = getAs(shard.getInput(), layoutOf(shard.getType()),
                                   op, [&] { return what; });
    if (failed(local))
      return failure();
    available[shard.getResult()].push_back({layoutOf(shard.getType()), *local});
    return success();
  }
  if (isa<ConstantOp, IotaOp, RandomOp>(op)) {
    // No operands, so any layout is free: each rank fills or computes its
    // own block. A partial result would be counted once per rank of the
    // group, so none of them is ever partial.
    Value result = op->getResult(0);
    Layout layout = layoutOf(result.getType());
    if (layout.isPartial())
      return op->emitOpError() << "has a partial layout; an op without "
                                  "operands never yields a partial value";
    // weft.random's offset (a scalar step) is read whole on every rank.
    SmallVector<Value> localOperands;
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      auto type = cast<RankedTensorType>(globalType(operand));
      FailureOr<Value> local =
          getAs(operand, Layout::getReplicated(type.getRank()), op, [&] {
            return "operand #" + std::to_string(i) + " of " + lineOf(op) +
                   " (read whole)";
          });
      if (failed(local))
        return failure();
      localOperands.push_back(*local);
    }
    builder.setInsertionPoint(op);
    Operation *local = builder.clone(*op);
    local->setOperands(localOperands);
    local->getResult(0).setType(
        localType(cast<RankedTensorType>(result.getType()), layout));
    auto names = [&](const AxisList &axes) {
      return builder.getStrArrayAttr(
          SmallVector<StringRef>(axes.begin(), axes.end()));
    };
    // iota and random read global indices: they record the split axes.
    if (auto iota = dyn_cast<IotaOp>(local); iota && !layout.dims[0].empty())
      iota.setLocalBlock(mesh.getRef(), names(layout.dims[0]));
    if (isa<RandomOp>(local))
      setDimBlocks(local, layout);
    available[result].push_back({layout, local->getResult(0)});
    return success();
  }

  std::optional<ShardingRule> rule = ShardingRule::get(op);
  FailureOr<LetterMap> map = ShardingRule::readSplit(op);
  if (!rule || failed(map))
    return op->emitOpError() << "cannot be partitioned";
  if (auto topk = dyn_cast<TopKOp>(op))
    return partitionTopK(topk, *rule, *map);
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
      return "operand #" + std::to_string(i) + " of " + lineOf(op) + " (" +
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
  // pad_fill compares global indices: it records each dimension's axes.
  if (isa<PadFillOp>(localOp))
    setDimBlocks(localOp, natural);
  // A scan along a split dimension adds the blocks before each rank's.
  if (auto scan = dyn_cast<CumsumOp>(localOp);
      scan && !natural.dims[scan.getDim()].empty()) {
    available[result].push_back({natural, addScanOffsets(scan, natural)});
    return success();
  }
  // A split block letter (embed's table rows, one_hot's vocabulary, ...):
  // the local op computes its block.
  if (auto block = dyn_cast<BlockIndexedOpInterface>(localOp)) {
    auto it = map->find(block.getBlockLetter());
    if (it != map->end() && !it->second.empty()) {
      SmallVector<StringRef> axes(it->second.begin(), it->second.end());
      block.setLocalBlock(mesh.getRef(), builder.getStrArrayAttr(axes));
    }
  }
  available[result].push_back({natural, localOp->getResult(0)});
  return success();
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
  func.setFunctionType(FunctionType::get(
      func.getContext(), func.getBody().getArgumentTypes(),
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
    FailureOr<MeshOp> meshOp = getFunctionMesh(func, tables);
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

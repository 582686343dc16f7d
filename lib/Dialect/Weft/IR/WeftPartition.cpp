//===- WeftPartition.cpp - each op's local form (PartitionOpInterface) ----===//
//
// What --weft-partition does with each global-view op. The index-letter
// ops follow one rule (partitionByLetters): operands resharded to the
// layouts the letter map `weft.split` requires, the op retyped to local
// shapes in place, a split block letter recorded. The ops whose local form
// is more than that say so here; the pass (Transforms/Partition/Partition.cpp)
// knows none of them.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/PartitionContext.h"
#include "weft/Dialect/Weft/IR/SourceLines.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::weft;

/// The layout of a global type (replicated without a sharding).
static Layout layoutOf(Type type) {
  ShardingAttr s = getSharding(type);
  return s ? Layout::get(s)
           : Layout::getReplicated(cast<RankedTensorType>(type).getRank());
}

static RankedTensorType localType(PartitionContext &context,
                                  RankedTensorType global,
                                  const Layout &layout) {
  return RankedTensorType::get(
      layout.getLocalShape(context.getMesh(), global.getShape()),
      global.getElementType());
}

static ArrayAttr namesAttr(OpBuilder &b, ArrayRef<StringRef> axes) {
  return b.getStrArrayAttr(axes);
}

LogicalResult mlir::weft::partitionByLetters(Operation *op,
                                             PartitionContext &context) {
  FailureOr<Layout> natural = context.partitionInPlace(op);
  if (failed(natural))
    return failure();
  // A split block letter (embed's table rows, one_hot's vocabulary, ...):
  // the local op computes its block.
  if (auto block = dyn_cast<BlockIndexedOpInterface>(op)) {
    AxisList axes = context.getSplitAxes(op, block.getBlockLetter());
    if (!axes.empty())
      block.setLocalBlock(context.getMesh().getRef(),
                          namesAttr(context.getBuilder(), axes));
  }
  context.setLocal(op->getResult(0), *natural, op->getResult(0));
  return success();
}

/// weft.random and weft.pad_fill in the local view: `on @mesh over` the
/// axes of every dimension (nothing when `layout` splits none).
static void setDimBlocks(Operation *local, const Layout &layout,
                         PartitionContext &context) {
  if (layout.getUsedAxes().empty())
    return;
  OpBuilder &b = context.getBuilder();
  SmallVector<Attribute> dims;
  for (const AxisList &axes : layout.dims)
    dims.push_back(namesAttr(b, axes));
  local->setAttr("mesh", context.getMesh().getRef());
  local->setAttr("block_axes", b.getArrayAttr(dims));
}

/// An op without tensor operands to split (constant, iota, random): any
/// layout is free, each rank fills or computes its own block. A partial
/// result would be counted once per rank of the group, so none of them is
/// ever partial. Returns the local clone; the caller records it.
static FailureOr<Operation *> partitionFill(Operation *op, Layout &layout,
                                            PartitionContext &context) {
  Value result = op->getResult(0);
  layout = layoutOf(result.getType());
  if (layout.isPartial())
    return op->emitOpError() << "has a partial layout; an op without "
                                "operands never yields a partial value";
  // weft.random's offset (a scalar step) is read whole on every rank.
  SmallVector<Value> localOperands;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    auto type = context.getGlobalType(operand);
    FailureOr<Value> local =
        context.getAs(operand, Layout::getReplicated(type.getRank()), op, [&] {
          return "operand #" + std::to_string(i) + " of " +
                 context.describe(op) + " (read whole)";
        });
    if (failed(local))
      return failure();
    localOperands.push_back(*local);
  }
  OpBuilder &b = context.getBuilder();
  b.setInsertionPoint(op);
  Operation *local = b.clone(*op);
  local->setOperands(localOperands);
  local->getResult(0).setType(
      localType(context, cast<RankedTensorType>(result.getType()), layout));
  return local;
}

LogicalResult ConstantOp::partition(PartitionContext &context) {
  Layout layout;
  FailureOr<Operation *> local = partitionFill(*this, layout, context);
  if (failed(local))
    return failure();
  context.setLocal(getResult(), layout, (*local)->getResult(0));
  return success();
}

LogicalResult IotaOp::partition(PartitionContext &context) {
  Layout layout;
  FailureOr<Operation *> local = partitionFill(*this, layout, context);
  if (failed(local))
    return failure();
  // The positions are global indices: the local op records the split axes.
  if (!layout.dims[0].empty())
    cast<IotaOp>(*local).setLocalBlock(
        context.getMesh().getRef(),
        namesAttr(context.getBuilder(), layout.dims[0]));
  context.setLocal(getResult(), layout, (*local)->getResult(0));
  return success();
}

LogicalResult RandomOp::partition(PartitionContext &context) {
  Layout layout;
  FailureOr<Operation *> local = partitionFill(*this, layout, context);
  if (failed(local))
    return failure();
  // Each number is a function of its global index: record every
  // dimension's axes.
  setDimBlocks(*local, layout, context);
  context.setLocal(getResult(), layout, (*local)->getResult(0));
  return success();
}

bool RandomOp::readsGlobalIndices() { return true; }

LogicalResult ShardOp::partition(PartitionContext &context) {
  // A constraint a pass made names what it constrains (--weft-autodiff:
  // "gradient of W3"), so the comm report says whose bytes move.
  std::string what = "weft.shard constraint";
  Location loc = getLoc();
  if (auto named = dyn_cast<NameLoc>(loc)) {
    what += " (" + named.getName().str() + ")";
    loc = named.getChildLoc();
  }
  what += atLine(loc);
  Layout layout = layoutOf(getType());
  FailureOr<Value> local =
      context.getAs(getInput(), layout, *this, [&] { return what; });
  if (failed(local))
    return failure();
  context.setLocal(getResult(), layout, *local);
  return success();
}

LogicalResult PadFillOp::partition(PartitionContext &context) {
  FailureOr<Layout> natural = context.partitionInPlace(*this);
  if (failed(natural))
    return failure();
  // pad_fill compares global indices: it records each dimension's axes.
  setDimBlocks(*this, *natural, context);
  context.setLocal(getResult(), *natural, getResult());
  return success();
}

bool PadFillOp::readsGlobalIndices() { return true; }

/// weft.cumsum along a dimension split over axes A: `local` scanned the
/// rank's block; every element also needs the sum of the blocks before it
/// (after it, reversed). The block totals (one value per line) are
/// all-gathered over A, scanned exclusively, and each rank keeps its own:
///   tot = reduce sum over d (input); g = all_gather (tot with d = 1) over A
///   off = slice_shard (cumsum exclusive g) over A; y = local + off
/// Bytes moved: (|A| - 1) totals per line, never the tensor.
static Value addScanOffsets(CumsumOp local, const Layout &layout,
                            PartitionContext &context) {
  OpBuilder &builder = context.getBuilder();
  const Mesh &mesh = context.getMesh();
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
  ArrayAttr axesAttr = namesAttr(builder, axes);

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
  std::string why = "block totals of " + context.describe(local) + " (dim " +
                    std::to_string(d) + " scanned over " +
                    axesStr(axes, false) + ")";
  gather->setAttr(kReasonAttr, builder.getStringAttr(why));
  gather->setAttr(
      kBytesPerDeviceAttr,
      builder.getI64IntegerAttr((p - 1) * tensor(one).getNumElements() *
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

LogicalResult CumsumOp::partition(PartitionContext &context) {
  FailureOr<Layout> natural = context.partitionInPlace(*this);
  if (failed(natural))
    return failure();
  // A scan along a split dimension adds the blocks before each rank's.
  if (!natural->dims[getDim()].empty()) {
    context.setLocal(getResult(), *natural,
                     addScanOffsets(*this, *natural, context));
    return success();
  }
  context.setLocal(getResult(), *natural, getResult());
  return success();
}

/// weft.top_k: the selected dimension whole on every rank. Along a split
/// dimension (axes A) each rank selects its block's k candidates (and their
/// payloads), the candidates are all-gathered over A -- k per line and
/// rank, in block order, so equal values still go to the lower global
/// index -- and selected again.
LogicalResult TopKOp::partition(PartitionContext &context) {
  OpBuilder &builder = context.getBuilder();
  const Mesh &mesh = context.getMesh();
  int64_t d = getDim(), k = getK();
  auto rule = cast<ShardingRuleOpInterface>(getOperation());
  char letter = rule.getTensorLetters()[0][d];
  AxisList axes = context.getSplitAxes(*this, letter);
  // The selected letter is computed whole; consumers slice.
  const char whole[] = {kSelectedLetter};
  std::string why = context.describe(*this);
  SmallVector<Value, 2> operands;
  for (unsigned i = 0; i < getNumOperands(); ++i) {
    FailureOr<Value> local = context.getAs(
        getOperand(i), context.getRequiredLayout(*this, i, whole), *this,
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
  builder.setInsertionPoint(*this);
  auto select = [&](Value x, Value payload, int64_t count) -> Value {
    return TopKOp::create(
        builder, getLoc(), sized(cast<RankedTensorType>(x.getType()), count), x,
        payload, getDimAttr(), builder.getI64IntegerAttr(count));
  };
  Value payload = operands.size() > 1 ? operands[1] : Value();
  Value result;
  if (axes.empty()) {
    result = select(operands[0], payload, k);
  } else {
    int64_t p = mesh.getGroupSize(axes);
    auto gather = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      auto g = AllGatherOp::create(builder, getLoc(), sized(t, p * kLocal), v,
                                   mesh.getRef(), namesAttr(builder, axes),
                                   builder.getI64IntegerAttr(d));
      g->setAttr(kReasonAttr,
                 builder.getStringAttr("top-k candidates of " + why + " (dim " +
                                       std::to_string(d) + " selected over " +
                                       axesStr(axes, false) + ")"));
      g->setAttr(kBytesPerDeviceAttr,
                 builder.getI64IntegerAttr((p - 1) * t.getNumElements() *
                                           elementBytes(t)));
      return g;
    };
    // Two selections of one input (values, and indices by a payload)
    // gather its candidates once.
    Value &values = context.getShared(
        "top_k candidates", operands[0].getAsOpaquePointer(), d, kLocal);
    if (!values)
      values = gather(select(operands[0], Value(), kLocal));
    result = payload ? select(values,
                              gather(select(operands[0], payload, kLocal)), k)
                     : select(values, Value(), k);
  }
  Layout computed = context.getRequiredLayout(*this, getNumOperands(), whole);
  context.setLocal(getResult(), computed, result);
  // Propagation priced the dropped letter as a max: a selection replicated
  // over those axes is also that partial max.
  Layout priced = layoutOf(context.getGlobalType(getResult()));
  if (priced.isPartial() && priced.partialKind == ReductionKind::Max &&
      priced.dims == computed.dims)
    context.setLocal(getResult(), priced, result);
  return success();
}

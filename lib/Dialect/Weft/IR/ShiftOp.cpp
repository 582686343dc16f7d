//===- ShiftOp.cpp - weft.shift, all of it in one file --------------------===//
//
// Everything the compiler's IR layer knows of weft.shift (a pipeline's
// step, docs/pipeline.md): its verifier, symbol uses, sharding rule
// (elementwise), padding rule, gradient (the reverse shift) and its local
// form, one weft.collective_permute of the boundary slice along a split
// dimension. Its interpreter model is in lib/Interpreter/EvaluationModels.cpp;
// it has no lowering of its own: the partitioner always replaces it by
// permutes, slices, concats and zeros, which lower already.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/IR/PartitionContext.h"
#include "weft/Dialect/Weft/IR/WeftBuilders.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::weft;

LogicalResult ShiftOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  // The attributes' signed values: the getters are unsigned, so a negative
  // value would compare and print as a huge one.
  int64_t by = getByAttr().getInt();
  if (by != 1 && by != -1)
    return emitOpError() << "shifts by " << by << "; a shift moves by 1 or -1";
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is out of range for " << in;
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "changes the type: " << in << " -> " << out
                         << "; the result has the operand's shape and "
                            "element type";
  return success();
}

LogicalResult ShiftOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyTypeSymbolUses(*this, tables);
}

SmallVector<std::string, 3> ShiftOp::getTensorLetters() {
  std::string letters = placeholderLetters(getType());
  return {letters, letters};
}

std::optional<ReductionKind> ShiftOp::getReductionKind() {
  return std::nullopt;
}

bool ShiftOp::acceptsPartialOperand(unsigned, ReductionKind) {
  // Each element is one element of the operand or zero, the same on every
  // rank: a partial sum, max or min of the operand is one of the result.
  return true;
}

bool ShiftOp::padsNeedZeroing(ArrayRef<char>) {
  return false; // Zeros move to zeros (and the fill is zero).
}

LogicalResult
ShiftOp::verifyPadding(function_ref<int64_t(Value, unsigned)> paddedSize) {
  int64_t d = getDim();
  auto type = cast<RankedTensorType>(getType());
  if (paddedSize(getResult(), d) == type.getDimSize(d) &&
      paddedSize(getInput(), d) == type.getDimSize(d))
    return success();
  return emitOpError() << "shifts along dimension " << d << " (size "
                       << type.getDimSize(d)
                       << "), which a sharding splits over axes that do not "
                          "divide it (it would be padded to "
                       << paddedSize(getResult(), d)
                       << ", and the pads would move into the data): split "
                          "that dimension over axes that divide it, or none";
}

LogicalResult ShiftOp::buildGradients(OpBuilder &b, Value gy,
                                      SmallVectorImpl<Value> &grads) {
  // Linear: the transpose moves each slice back.
  auto in = cast<RankedTensorType>(getInput().getType());
  grads.push_back(ShiftOp::create(
      b, getLoc(), RankedTensorType::get(in.getShape(), in.getElementType()),
      gy, getDimAttr(), b.getI64IntegerAttr(-getByAttr().getInt())));
  return success();
}

/// `type` with extent `n` along `dim`.
static RankedTensorType withExtent(RankedTensorType type, int64_t dim,
                                   int64_t n) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = n;
  return RankedTensorType::get(shape, type.getElementType());
}

LogicalResult ShiftOp::partition(PartitionContext &context) {
  OpBuilder &b = context.getBuilder();
  const Mesh &mesh = context.getMesh();
  Location loc = getLoc();
  int64_t d = getDimAttr().getInt(), by = getByAttr().getInt();
  // Elementwise: the operand is read in the layout the letter map gives
  // (its split dimensions), and the result has it.
  Layout layout = context.getRequiredLayout(*this, 0);
  // The shift is linear, so a partial-sum operand stays partial (each rank
  // shifts its own piece of the sum; zeros are a piece of zero), as
  // propagation types the result: a cotangent that is partial over "model"
  // (the input cotangent of a column-split layer) crosses the stage
  // boundary before its all-reduce, as in a pipeline with tensor
  // parallelism inside the stages. Reducing it here instead would leave
  // the result without the partial layout its readers were typed with.
  RankedTensorType inGlobal = context.getGlobalType(getInput());
  if (ShardingAttr s = getSharding(inGlobal)) {
    Layout in = Layout::get(s);
    bool clash = llvm::any_of(layout.dims, [&](const AxisList &axes) {
      return llvm::any_of(axes, [&](StringRef a) {
        return llvm::is_contained(in.partialAxes, a);
      });
    });
    if (in.isPartial() && in.partialKind == ReductionKind::Sum && !clash) {
      layout.partialAxes = in.partialAxes;
      layout.partialKind = in.partialKind;
    }
  }
  FailureOr<Value> local = context.getAs(getInput(), layout, *this, [&] {
    return "operand #0 of " + context.describe(*this);
  });
  if (failed(local))
    return failure();
  auto type = cast<RankedTensorType>(local->getType());
  int64_t k = type.getDimSize(d);
  b.setInsertionPoint(*this);
  RankedTensorType row = withExtent(type, d, 1);
  // This rank's positions that stay on it: all but the one leaving.
  Value kept;
  if (k > 1)
    kept = buildSlice(b, loc, withExtent(type, d, k - 1), *local, d,
                      by > 0 ? 0 : 1);
  // The position arriving from the neighbour block.
  Value arriving;
  const AxisList &axes = layout.dims[d];
  int64_t p = axes.empty() ? 1 : mesh.getGroupSize(axes);
  if (p == 1) {
    arriving = ConstantOp::create(b, loc, row, b.getF64FloatAttr(0.0));
  } else {
    Value boundary =
        k == 1 ? *local
               : buildSlice(b, loc, row, *local, d, by > 0 ? k - 1 : 0);
    SmallVector<int64_t> pairs;
    for (int64_t i = 0; i + 1 < p; ++i) {
      pairs.push_back(by > 0 ? i : i + 1);
      pairs.push_back(by > 0 ? i + 1 : i);
    }
    auto permute = CollectivePermuteOp::create(
        b, loc, row, boundary, mesh.getRef(), b.getStrArrayAttr(axes),
        b.getDenseI64ArrayAttr(pairs));
    std::string why = "boundary of " + context.describe(*this) + " (dim " +
                      std::to_string(d) + " shifted by " + std::to_string(by) +
                      " over " + axesStr(axes, false) + ")";
    permute->setAttr(kReasonAttr, b.getStringAttr(why));
    permute->setAttr(
        kBytesPerDeviceAttr,
        b.getI64IntegerAttr(row.getNumElements() * elementBytes(row)));
    arriving = permute;
  }
  Value result = arriving;
  if (kept) {
    SmallVector<Value, 2> parts = {arriving, kept};
    if (by < 0)
      std::swap(parts[0], parts[1]);
    result = buildConcat(b, loc, type, parts, d);
  }
  context.setLocal(getResult(), layout, result);
  return success();
}

//===- WeftBuilders.cpp - the ops passes insert, by what they mean --------===//

#include "weft/Dialect/Weft/IR/WeftBuilders.h"

using namespace mlir;
using namespace mlir::weft;

Value mlir::weft::buildSliceShard(OpBuilder &b, Location loc,
                                  RankedTensorType type, Value input,
                                  FlatSymbolRefAttr mesh,
                                  ArrayRef<StringRef> axes, int64_t dim) {
  return SliceShardOp::create(b, loc, type, input, mesh,
                              b.getStrArrayAttr(axes),
                              b.getI64IntegerAttr(dim));
}

Value mlir::weft::buildAllGather(OpBuilder &b, Location loc,
                                 RankedTensorType type, Value input,
                                 FlatSymbolRefAttr mesh,
                                 ArrayRef<StringRef> axes, int64_t dim) {
  return AllGatherOp::create(b, loc, type, input, mesh, b.getStrArrayAttr(axes),
                             b.getI64IntegerAttr(dim));
}

Value mlir::weft::buildAllReduce(OpBuilder &b, Location loc,
                                 RankedTensorType type, ReductionKind kind,
                                 Value input, FlatSymbolRefAttr mesh,
                                 ArrayRef<StringRef> axes) {
  return AllReduceOp::create(b, loc, type,
                             ReductionKindAttr::get(b.getContext(), kind),
                             input, mesh, b.getStrArrayAttr(axes));
}

Value mlir::weft::buildReduceScatter(OpBuilder &b, Location loc,
                                     RankedTensorType type, ReductionKind kind,
                                     Value input, FlatSymbolRefAttr mesh,
                                     ArrayRef<StringRef> axes, int64_t dim) {
  return ReduceScatterOp::create(
      b, loc, type, ReductionKindAttr::get(b.getContext(), kind), input, mesh,
      b.getStrArrayAttr(axes), b.getI64IntegerAttr(dim));
}

Value mlir::weft::buildAllToAll(OpBuilder &b, Location loc,
                                RankedTensorType type, Value input,
                                FlatSymbolRefAttr mesh,
                                ArrayRef<StringRef> axes, int64_t splitDim,
                                int64_t concatDim) {
  return AllToAllOp::create(b, loc, type, input, mesh, b.getStrArrayAttr(axes),
                            b.getI64IntegerAttr(splitDim),
                            b.getI64IntegerAttr(concatDim));
}

Value mlir::weft::buildWait(OpBuilder &b, Location loc, Value started) {
  return WaitOp::create(b, loc, started.getType(), started);
}

Value mlir::weft::buildPadFill(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> valid, double fill) {
  return PadFillOp::create(
      b, loc, input.getType(), input, b.getDenseI64ArrayAttr(valid),
      b.getF64FloatAttr(fill), FlatSymbolRefAttr(), ArrayAttr());
}

std::optional<PadFillParts> mlir::weft::matchPadFill(Value v) {
  auto fill = v.getDefiningOp<PadFillOp>();
  if (!fill || fill.getMeshAttr())
    return std::nullopt;
  return PadFillParts{fill.getInput(), fill.getValid(),
                      fill.getFill().convertToDouble()};
}

/// Placeholder letters of a rank-r tensor ("abc").
static std::string letters(int64_t rank) {
  std::string s;
  for (int64_t d = 0; d < rank; ++d)
    s.push_back(char('a' + d));
  return s;
}

Value mlir::weft::buildFlatten(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  auto flat = RankedTensorType::get({t.getNumElements()}, t.getElementType());
  if (t.getRank() == 1)
    return v;
  if (t.getRank() == 0)
    return MapOp::create(b, loc, flat, MapKind::Scale, "->a", ValueRange{v},
                         b.getF64FloatAttr(1.0))
        .getResult();
  std::string l = letters(t.getRank());
  return ReshapeOp::create(b, loc, flat, l + "->(" + l + ")", v).getResult();
}

Value mlir::weft::buildUnflatten(OpBuilder &b, Location loc, Value flat,
                                 RankedTensorType type) {
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return ReduceOp::create(b, loc, type, ReductionKind::Sum, "a->", flat)
        .getResult();
  std::string l = letters(type.getRank());
  return ReshapeOp::create(b, loc, type, "(" + l + ")->" + l, flat).getResult();
}

Value mlir::weft::buildConcat(OpBuilder &b, Location loc, RankedTensorType type,
                              ValueRange inputs, int64_t dim) {
  return ConcatOp::create(b, loc, type, inputs, dim).getResult();
}

unsigned mlir::weft::getMaxConcatOperands() { return ConcatOp::kMaxOperands; }

Value mlir::weft::buildSlice(OpBuilder &b, Location loc, RankedTensorType type,
                             Value input, int64_t dim, int64_t start) {
  return SliceOp::create(b, loc, type, input, dim, start).getResult();
}

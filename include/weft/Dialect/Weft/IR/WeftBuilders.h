//===- WeftBuilders.h - the ops passes insert, by what they mean -*- C++
//-*-===//
//
// The passes build a few ops of their own (a reshard's collectives, a
// schedule's waits, the pads' fills, a combined all-reduce's flattening).
// They build them through these functions, so that no pass names an op
// class: an op's class appears only in its own files (docs/design.md,
// "What a new op touches"; test/Dialect/Weft/no-op-classes-in-passes.test
// checks the passes).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTBUILDERS_H
#define WEFT_DIALECT_WEFT_IR_WEFTBUILDERS_H

#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::weft {

/// weft.slice_shard: the rank's block of dimension `dim` over `axes`.
Value buildSliceShard(OpBuilder &b, Location loc, RankedTensorType type,
                      Value input, FlatSymbolRefAttr mesh,
                      ArrayRef<StringRef> axes, int64_t dim);
/// weft.all_gather along `dim` over `axes`.
Value buildAllGather(OpBuilder &b, Location loc, RankedTensorType type,
                     Value input, FlatSymbolRefAttr mesh,
                     ArrayRef<StringRef> axes, int64_t dim);
/// weft.all_reduce `kind` over `axes`.
Value buildAllReduce(OpBuilder &b, Location loc, RankedTensorType type,
                     ReductionKind kind, Value input, FlatSymbolRefAttr mesh,
                     ArrayRef<StringRef> axes);
/// weft.reduce_scatter `kind` over `axes`, keeping the block of `dim`.
Value buildReduceScatter(OpBuilder &b, Location loc, RankedTensorType type,
                         ReductionKind kind, Value input,
                         FlatSymbolRefAttr mesh, ArrayRef<StringRef> axes,
                         int64_t dim);
/// weft.all_to_all over `axes`, split `splitDim`, concat `concatDim`.
Value buildAllToAll(OpBuilder &b, Location loc, RankedTensorType type,
                    Value input, FlatSymbolRefAttr mesh,
                    ArrayRef<StringRef> axes, int64_t splitDim,
                    int64_t concatDim);
/// weft.wait for the asynchronous collective that produced `started`.
Value buildWait(OpBuilder &b, Location loc, Value started);
/// weft.pad_fill of the global view: `fill` past `valid` in each dimension.
Value buildPadFill(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> valid, double fill);
/// A global-view weft.pad_fill's parts (matchPadFill).
struct PadFillParts {
  Value input;
  ArrayRef<int64_t> valid;
  double fill;
};
/// If `v` is the result of a global-view weft.pad_fill (no mesh), its
/// parts.
std::optional<PadFillParts> matchPadFill(Value v);

/// `v` as a 1-D tensor (a reshape; a rank-0 value is broadcast to 1).
Value buildFlatten(OpBuilder &b, Location loc, Value v);
/// The inverse of buildFlatten, to `type`.
Value buildUnflatten(OpBuilder &b, Location loc, Value flat,
                     RankedTensorType type);
/// weft.concat of `inputs` along `dim` (at most getMaxConcatOperands()).
Value buildConcat(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange inputs, int64_t dim);
/// The most operands one weft.concat takes.
unsigned getMaxConcatOperands();
/// weft.slice of `input` along `dim` from `start`, typed `type`.
Value buildSlice(OpBuilder &b, Location loc, RankedTensorType type, Value input,
                 int64_t dim, int64_t start);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_WEFTBUILDERS_H

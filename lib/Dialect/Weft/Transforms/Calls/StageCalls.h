//===- StageCalls.h - weft-stage-calls' shared pieces -----------*- C++ -*-===//
//
// What weft-stage-calls (StageCalls.cpp) finds in the entry's chain of layer
// calls and builds before the ticks, and the ops every schedule's ticks are
// made of. The GPipe ticks are in StageCalls.cpp, the 1F1B ones in
// StageCalls1F1B.cpp (docs/pipeline.md, "Stages from layer calls" and
// "1F1B from layer calls").
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_LIB_TRANSFORMS_CALLS_STAGECALLS_H
#define WEFT_LIB_TRANSFORMS_CALLS_STAGECALLS_H

#include "weft/Dialect/Weft/IR/IndexSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::weft::stage {

/// The chain, its stages and micro-batches, the stacked weights and the
/// layer once per stage (@<f>.stages), as weft-stage-calls built them.
struct Chain {
  func::FuncOp entry;
  ModuleOp module;
  /// The entry's calls of @f, in order (still in the entry).
  SmallVector<func::CallOp> calls;
  func::FuncOp callee;
  /// The activation's operand position.
  int64_t act = -1;
  /// Per operand position: a weight (a distinct argument per call).
  SmallVector<bool> isWeight;
  /// weights[j][kk]: the stacked argument of position j, local layer kk.
  SmallVector<SmallVector<Value>> weights;
  /// Stages, micro-batches, calls per stage, rows per micro-batch.
  int64_t n = 0, m = 0, per = 0, rows = 0;
  /// The chain's input (the whole batch) and the buffer [N, rows, ...].
  RankedTensorType h0Type, bufType;
  FlatSymbolRefAttr mesh;
  std::string axis;
  /// @<f>.stages.
  func::FuncOp stagesFn;
  /// The entry's arguments the stacked ones replace.
  llvm::BitVector erase;
};

/// The result shape of an op whose letter spec is `spec`: each result
/// letter's extent where an operand has it (a micro-batch has fewer rows
/// than the batch the op was written for). Fails where a result letter is
/// no operand's.
LogicalResult resultShapeOf(const IndexSpec &spec, ValueRange operands,
                            SmallVectorImpl<int64_t> &shape);

/// The ops of the ticks, built at the builder's insertion point.
class Ticks {
public:
  Ticks(OpBuilder &b, Location loc, const Chain &chain);

  /// 1 on the stages s0 .. s1, 0 elsewhere: a [N] vector split over the
  /// stage axis, from weft.iota.
  Value stageMask(int64_t s0, int64_t s1);
  Value firstMask() { return first; }
  Value lastMask() { return last; }
  /// Micro-batch j of `v` ([B, ...], B = M x rows): rows j, j + M, ... (a
  /// split of B over "data" stays on the micro-batch's rows).
  Value microBatch(Value v, int64_t j);
  /// A micro-batch's [rows, ...] as the [rows, 1, ...] that join takes.
  Value column(Value slot);
  /// The inverse of microBatch: the M micro-batches' columns (in order) as
  /// one [B, ...] of type `batchType`.
  Value join(ArrayRef<Value> columns, RankedTensorType batchType);
  /// `slot` ([rows, ...]) in the buffer's slots where `mask` is 1.
  Value inject(Value mask, Value slot);
  /// sum over s of mask[s] x buf[s]: a [rows, ...] (a partial sum over the
  /// stage axis once partitioned).
  Value readSlot(Value mask, Value buf);
  /// Tick t's forward input: the buffer `prev` (none at tick 0) moved one
  /// stage on, and micro-batch t of `h0` in stage 0's slot while t < M.
  Value forwardInput(Value prev, Value h0, int64_t t);
  /// The buffer moved `by` stages on (a collective_permute once
  /// partitioned).
  Value shift(Value buf, int64_t by);
  /// The buffer's slots times mask[s].
  Value maskSlots(Value mask, Value buf);
  /// Two buffers added.
  Value addSlots(Value a, Value b);
  /// a + b, elementwise, of one type (its layout left open).
  Value add(Value a, Value b);

private:
  OpBuilder &b;
  Location loc;
  const Chain &c;
  RankedTensorType vecType;
  std::string rest;
  Value pos, npos, first, last;
  llvm::DenseMap<Value, Value> split;
};

/// Whether the entry's chain can run under 1F1B: it returns its scalar loss
/// alone, the chain's input (operand `act` of the first call) is no
/// parameter and is computed from float and integer tensors, and the ops
/// after `calls` make the loss a sum over the batch's rows (`batch` of
/// them). Called before anything is rewritten, so that
/// errors name the user's arguments. StageCalls1F1B.cpp.
LogicalResult checkOneFOneB(func::FuncOp entry, ArrayRef<func::CallOp> calls,
                            int64_t act, int64_t batch);

/// Rewrites the entry into the 1F1B ticks, returning its own gradients
/// (StageCalls1F1B.cpp). On failure the error is reported.
LogicalResult buildOneFOneB(Chain &chain);

} // namespace mlir::weft::stage

#endif // WEFT_LIB_TRANSFORMS_CALLS_STAGECALLS_H

//===- Patterns.h - The patterns of --weft-lower-to-runtime -----*- C++ -*-===//
//
// The lowering is a full dialect conversion of the one function into an
// emitc.func, by three families of patterns, then one post-pass:
//
//   SignaturePatterns.cpp   func.func -> emitc.func @weft_step_<name> plus
//                           the weft_program global; func.return -> output
//                           calls and emitc.return
//   ComputePatterns.cpp     weft.einsum, weft.map, weft.reduce, weft.embed
//                           -> a plan constant and one call each
//   CollectivePatterns.cpp  weft.all_reduce, weft.all_gather,
//                           weft.reduce_scatter, weft.all_to_all,
//                           weft.slice_shard -> one call each
//   ReleaseDeadValues.cpp   release(v) after the last use of every tensor
//   CallLoops.cpp           runs of equal calls -> loops over weft_slots
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_LIB_CONVERSION_WEFTTORUNTIME_PATTERNS_H
#define WEFT_LIB_CONVERSION_WEFTTORUNTIME_PATTERNS_H

#include "RuntimeCall.h"

namespace mlir::weft::lowering {

/// The function (info's, and only that one) and its func.return.
void populateSignaturePatterns(const RuntimeTypeConverter &types,
                               LoweringState &state,
                               RewritePatternSet &patterns);
/// einsum, map, reduce, embed.
void populateComputePatterns(const RuntimeTypeConverter &types,
                             LoweringState &state, RewritePatternSet &patterns);
/// all_reduce, all_gather, reduce_scatter, all_to_all, slice_shard.
void populateCollectivePatterns(const RuntimeTypeConverter &types,
                                LoweringState &state,
                                RewritePatternSet &patterns);

/// Whether populateComputePatterns / populateCollectivePatterns lower `op`.
bool isComputeOp(Operation *op);
bool isCollectiveOp(Operation *op);

/// Inserts `weft::rt::gen::release(v)` right after the last use of every
/// tensor made in `step` (after its making when it has no use); a tensor
/// the outputs use is released after the last output. Inputs are released
/// too: a donated one's buffer is freed there, the step context keeps the
/// others alive.
/// A map or fused map that is the last use of some of its tensor operands
/// gets `weft::rt::gen::Dying{mask}` after the context (bit i: its i-th
/// tensor operand), so the runtime may write the result into such an
/// operand's buffer when nothing else holds it (docs/runtime.md).
void releaseDeadValues(emitc::FuncOp step, const RuntimeTypeConverter &types);

/// Turns each maximal run of adjacent call blocks (a call of an outlined
/// function, its takeResults and releases) that repeats with a period into
/// one loop over `weft_slots`, an array of tensors holding the values the
/// loops read and write; inputs and outputs held in slots are read and
/// written by range (CallLoops.cpp, docs/calls.md). Leaves a step without
/// such a run unchanged. Runs after releaseDeadValues.
void formCallLoops(emitc::FuncOp step);

} // namespace mlir::weft::lowering

#endif // WEFT_LIB_CONVERSION_WEFTTORUNTIME_PATTERNS_H

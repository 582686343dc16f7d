//===- FusedSteps.h - The step program of weft.fused_map --------*- C++ -*-===//
//
// weft.fused_map carries its chain of elementwise steps as text, so the IR
// reads as what it computes:
//
//   steps "s0 = add(in0, in1); s1 = relu(s0); s2 = scale(s1, 0.5)"
//
// `inK` is operand K, `sJ` the result of step J (steps are numbered in
// order and read only earlier values); the last step is the op's result.
// A kind takes one or two values (weft.map's arity), and scale/shift a
// constant after them. weft.fused_rows also has row reductions,
// `row_sum(v)`, `row_max(v)` and `row_min(v)`, which combine a value over
// the op's row letters. This file parses and prints that text.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_FUSEDSTEPS_H
#define WEFT_DIALECT_WEFT_IR_FUSEDSTEPS_H

#include "weft/Dialect/Weft/IR/IndexSpec.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::weft {

/// One step: `kind` of values `a` (and `b`, -1 for unary kinds); value ids
/// below the operand count are operands, the others step results
/// (id - operands). `scalar` is scale/shift's constant. A row reduction
/// (`reduce`, weft.fused_rows only) combines value `a` over the row letters
/// with `reduceKind`; its `kind` is unused.
struct FusedMapStep {
  MapKind kind = MapKind::Add;
  int a = 0;
  int b = -1;
  double scalar = 0.0;
  bool reduce = false;
  ReductionKind reduceKind = ReductionKind::Sum;
};

/// Parses `text` for an op with `numInputs` operands; `rowReductions`
/// accepts row_sum/row_max/row_min (weft.fused_rows). On failure returns
/// false and sets `error` to a message naming the step.
bool parseFusedSteps(llvm::StringRef text, unsigned numInputs,
                     llvm::SmallVectorImpl<FusedMapStep> &steps,
                     std::string &error, bool rowReductions = false);

/// The text parseFusedSteps reads (scalars printed to round-trip exactly).
std::string printFusedSteps(llvm::ArrayRef<FusedMapStep> steps,
                            unsigned numInputs);

/// weft.fused_rows' index space: the kept letters, then the row letters.
/// `full[id]` says whether value `id` (operands, then steps) holds the row
/// letters; `fullResult` whether the result does.
struct FusedRowsLayout {
  std::string kept;
  std::string rows;
  bool fullResult = false;
  llvm::SmallVector<bool> full;
  /// Value `id`'s letters in the index space.
  std::string letters(int id) const { return full[id] ? kept + rows : kept; }
};

/// Checks a fused_rows spec against its row letters and steps (the rules
/// of the op's description) and fills `layout`. On failure returns false
/// and sets `error`.
bool analyzeFusedRows(const IndexSpec &spec, llvm::StringRef rows,
                      llvm::ArrayRef<FusedMapStep> steps,
                      FusedRowsLayout &layout, std::string &error);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_FUSEDSTEPS_H

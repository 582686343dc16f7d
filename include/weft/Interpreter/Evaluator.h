//===- Evaluator.h - evaluating a weft function -----------------*- C++ -*-===//
//
// Runs a func.func of the weft dialect op by op. The global view runs once;
// the local view (the SPMD program) runs on every rank of its mesh in
// lockstep, which is exact because an SPMD program has no control flow.
// Errors are emitted as diagnostics at the failing op.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_EVALUATOR_H
#define WEFT_INTERPRETER_EVALUATOR_H

#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Interpreter/Tensor.h"

#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::weft::interp {

/// The arguments or results of one evaluation, in order.
using Values = SmallVector<Tensor>;

/// Evaluates the global view of `func` on `args`. Shardings in types are
/// ignored; weft.shard is the identity; collectives are an error.
/// Whether every op's f16/bf16 result is rounded to its type where it is
/// stored, as the runtime stores it (weft-interp --round-half-results; off
/// by default: the partitioner's oracle compares a sharded program with its
/// global one in exact arithmetic, where a bf16 partial sum rounded per
/// rank is not the global rounding). weft.convert, weft.constant and
/// random inputs round in either case. Process-wide.
void setRoundHalfResults(bool on);
bool getRoundHalfResults();

FailureOr<Values> evaluateGlobal(func::FuncOp func, ArrayRef<Tensor> args);

/// Evaluates the local view of `func` on every rank of `mesh` (a null mesh
/// is a single rank; every mesh the function's ops name must be this one).
/// `args[r]` are rank r's arguments; returns every rank's results.
FailureOr<std::vector<Values>> evaluateLocal(func::FuncOp func, MeshOp mesh,
                                             ArrayRef<Values> args);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_EVALUATOR_H

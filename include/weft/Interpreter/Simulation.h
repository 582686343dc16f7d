//===- Simulation.h - What weft-interp agrees to simulate -------*- C++ -*-===//
//
// The verifier bounds a mesh (2^20 devices) and a tensor (2^48 elements) by
// what a machine may run; the interpreter holds every rank's copy of every
// value in one process, in double, so it bounds what it simulates far lower
// and says so with an error instead of running out of memory.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_SIMULATION_H
#define WEFT_INTERPRETER_SIMULATION_H

#include "weft/Dialect/Weft/IR/WeftOps.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::weft::interp {

/// Bounds of one evaluation (weft-interp --max-ranks, --max-elements,
/// --max-work).
struct SimulationLimits {
  /// Ranks of the mesh a local view runs on.
  int64_t maxRanks = 4096;
  /// Elements of one value summed over the ranks that hold it (2^28 doubles:
  /// 2 GiB), and of every global tensor (inputs, assembled results).
  int64_t maxElements = int64_t(1) << 28;
  /// Loop iterations of one op summed over the ranks that run it: the
  /// product of all its letters' sizes (an einsum's naive loop). 2^33 is
  /// about a minute of the interpreter's loops; a program whose einsum
  /// contracts two letters that no operand shares (`btz,fd->btd`) reaches
  /// it with small tensors.
  int64_t maxWork = int64_t(1) << 33;
};

/// Checks, before anything is allocated, that evaluating `func` stays within
/// `limits`: in the local view (`local`) its mesh `mesh` (null: one rank) has
/// at most maxRanks ranks and every argument, op result and global type
/// (`weft.global_type`) at most maxElements elements over all ranks; in the
/// global view every argument and op result at most maxElements; every op
/// at most maxWork loop iterations over its ranks. Products
/// are checked for overflow. Emits an error at the mesh, the function or the
/// op (naming the option that raises the bound) and fails otherwise.
LogicalResult checkSimulable(func::FuncOp func, bool local, MeshOp mesh,
                             const SimulationLimits &limits);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_SIMULATION_H

//===- Layout.h - global tensors to per-rank blocks and back ----*- C++ -*-===//
//
// Splits a global tensor into the blocks each rank holds under a Layout
// (weft/Dialect/Weft/IR/MeshLayout.h: local shape, block offsets, groups)
// and assembles per-rank blocks back into the global tensor.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_LAYOUT_H
#define WEFT_INTERPRETER_LAYOUT_H

#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Interpreter/Tensor.h"

namespace mlir::weft::interp {

/// The block `rank` holds of `global`. For a partial layout, `global` is
/// decomposed into per-rank values that reduce back to it: for sum, the rank
/// at position 0 of its partial group holds the block and the others hold
/// zeros; for max and min every rank holds the block.
Tensor splitForRank(const Tensor &global, const Layout &layout,
                    const Mesh &mesh, int64_t rank);

/// Where the copies of one element that ranks hold as replicas disagree the
/// most, relative to the tolerance (see assemble()).
struct ReplicaMismatch {
  /// Elements whose copies differ by more than atol + rtol * scale.
  int64_t count = 0;
  /// The magnitude of the blocks (largest finite |value|, Compare.h).
  double scale = 0;
  /// The worst of them: its global row-major index, the two ranks (or
  /// partial-group leaders) and their values.
  int64_t index = -1;
  int64_t rankA = -1, rankB = -1;
  double valueA = 0, valueB = 0;
};

/// Assembles a global tensor of `globalShape` from `blocks` (one per rank,
/// each of the local shape): the partial groups are combined by the
/// partial kind, in group order; the blocks are placed at their offsets.
/// Ranks that hold the same block (replicas) must agree: differences beyond
/// the tolerance are counted in `mismatch`.
Tensor assemble(ArrayRef<Tensor> blocks, ArrayRef<int64_t> globalShape,
                const Layout &layout, const Mesh &mesh, double rtol,
                double atol, ReplicaMismatch &mismatch);

/// Combines `b` into `a` elementwise by `kind`.
void combineInto(Tensor &a, const Tensor &b, ReductionKind kind);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_LAYOUT_H

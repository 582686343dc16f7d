//===- Layout.cpp - global tensors to per-rank blocks and back ------------===//

#include "weft/Interpreter/Layout.h"
#include "weft/Interpreter/Compare.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

Tensor mlir::weft::interp::splitForRank(const Tensor &global,
                                        const Layout &layout, const Mesh &mesh,
                                        int64_t rank) {
  SmallVector<int64_t> local = layout.getLocalShape(mesh, global.getShape());
  if (layout.partialKind == ReductionKind::Sum && !layout.partialAxes.empty() &&
      mesh.getGroupPosition(rank, layout.partialAxes) != 0)
    return Tensor(local, 0.0);
  return global.extract(layout.getBlockOffsets(mesh, global.getShape(), rank),
                        local);
}

void mlir::weft::interp::combineInto(Tensor &a, const Tensor &b,
                                     ReductionKind kind) {
  assert(a.getShape() == b.getShape());
  MutableArrayRef<double> x = a.getData();
  ArrayRef<double> y = b.getData();
  for (size_t i = 0; i < x.size(); ++i) {
    switch (kind) {
    case ReductionKind::Sum:
      x[i] += y[i];
      break;
    case ReductionKind::Max: // NaN propagates, as in Kernels.cpp.
      if (y[i] > x[i] || std::isnan(y[i]))
        x[i] = y[i];
      break;
    case ReductionKind::Min:
      if (y[i] < x[i] || std::isnan(y[i]))
        x[i] = y[i];
      break;
    }
  }
}

Tensor mlir::weft::interp::assemble(ArrayRef<Tensor> blocks,
                                    ArrayRef<int64_t> globalShape,
                                    const Layout &layout, const Mesh &mesh,
                                    double rtol, double atol,
                                    ReplicaMismatch &mismatch) {
  assert(static_cast<int64_t>(blocks.size()) == mesh.getNumDevices());
  SmallVector<int64_t> local = layout.getLocalShape(mesh, globalShape);
  Tensor global(globalShape);
  // The rank that first wrote each element, -1 if none yet.
  std::vector<int64_t> writer(global.getNumElements(), -1);
  SmallVector<int64_t> globalStrides = rowMajorStrides(globalShape);
  SmallVector<int64_t> localStrides = rowMajorStrides(local);
  double worstExcess = 0;
  mismatch = ReplicaMismatch();
  // Copies agree within the tolerance relative to the magnitude of the
  // values (Compare.h).
  for (const Tensor &block : blocks)
    mismatch.scale = std::max(mismatch.scale, magnitude(block.getData()));
  double tolerance = atol + rtol * mismatch.scale;

  for (int64_t rank = 0; rank < mesh.getNumDevices(); ++rank) {
    assert(blocks[rank].getShape() == ArrayRef<int64_t>(local));
    // Only the leader (position 0) of each partial group contributes, with
    // the reduction of its group.
    if (mesh.getGroupPosition(rank, layout.partialAxes) != 0)
      continue;
    Tensor value = blocks[rank];
    SmallVector<int64_t> group = mesh.getGroup(rank, layout.partialAxes);
    for (int64_t other : ArrayRef<int64_t>(group).drop_front())
      combineInto(value, blocks[other], layout.partialKind);

    SmallVector<int64_t> offsets =
        layout.getBlockOffsets(mesh, globalShape, rank);
    int64_t base = 0;
    for (auto [o, s] : llvm::zip(offsets, globalStrides))
      base += o * s;
    for (int64_t i = 0; i < value.getNumElements(); ++i) {
      int64_t g = base, rest = i;
      for (size_t d = 0; d < local.size(); ++d) {
        g += (rest / localStrides[d]) * globalStrides[d];
        rest %= localStrides[d];
      }
      if (writer[g] < 0) {
        writer[g] = rank;
        global[g] = value[i];
        continue;
      }
      double a = global[g], b = value[i];
      double excess = std::fabs(a - b) - tolerance;
      // NaN on one side only is a disagreement too.
      bool differ = excess > 0 || (std::isnan(a) != std::isnan(b));
      if (!differ)
        continue;
      ++mismatch.count;
      if (mismatch.index < 0 || excess > worstExcess || std::isnan(excess)) {
        worstExcess = std::isnan(excess) ? INFINITY : excess;
        mismatch.index = g;
        mismatch.rankA = writer[g];
        mismatch.rankB = rank;
        mismatch.valueA = a;
        mismatch.valueB = b;
      }
    }
  }
  return global;
}

//===- Reshard.h - plans between two layouts of one tensor ------*- C++ -*-===//
//
// The resharding planner: the sequence of collectives and local slices that
// turns a tensor in one layout into the same tensor in another (design.md
// section 6), with the bytes each device sends on a ring. Propagation prices
// its choices with it; partitioning emits its steps.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_RESHARD_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_RESHARD_H

#include "weft/Dialect/Weft/IR/MeshLayout.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::weft {

struct ReshardStep {
  enum Kind { SliceShard, AllGather, AllReduce, ReduceScatter, AllToAll };
  Kind kind;
  AxisList axes;
  /// The dimension sliced, gathered or scattered; for all_to_all the
  /// dimension split (it becomes split over `axes`).
  int64_t dim = -1;
  /// For all_to_all: the dimension concatenated (it stops being split).
  int64_t concatDim = -1;
  ReductionKind reduction = ReductionKind::Sum;
  /// Local shapes before and after the step.
  SmallVector<int64_t, 4> inShape, outShape;
  /// Bytes each device sends, ring algorithms (design.md section 6).
  double bytesPerDevice = 0;

  StringRef kindName() const;
};

struct ReshardPlan {
  SmallVector<ReshardStep, 2> steps;
  double totalBytes() const;
};

/// Per-axis bandwidth weights of the cost model (default 1): a collective's
/// cost is its bytes times the largest weight among its axes.
struct AxisWeights {
  llvm::StringMap<double> weights;
  double of(ArrayRef<StringRef> axes) const;
};

/// Plans `from` -> `to` for a tensor of `globalShape` and `elementBytes`.
/// Fails (with a reason in `why`) when no plan exists, e.g. when `to` is
/// partial and `from` is not the same partial.
FailureOr<ReshardPlan> planReshard(const Layout &from, const Layout &to,
                                   ArrayRef<int64_t> globalShape,
                                   int64_t elementBytes, const Mesh &mesh,
                                   std::string *why = nullptr);

/// The same for a global tensor type (its shape and element size).
FailureOr<ReshardPlan> planReshard(const Layout &from, const Layout &to,
                                   RankedTensorType globalType,
                                   const Mesh &mesh,
                                   std::string *why = nullptr);

/// Weighted cost of a plan.
double planCost(const ReshardPlan &plan, const AxisWeights &weights);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_RESHARD_H

//===- CopyPlan.h - Strided n-d copies --------------------------*- C++ -*-===//
//
// One primitive covers permutations, block slices and the packing that
// collectives on non-leading dims need: dst[off + i.dstStrides] =
// src[off + i.srcStrides] for every index i of `shape`. Units are elements.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_COPYPLAN_H
#define WEFT_RT_COPYPLAN_H

#include "weft/rt/DType.h"

#include <string>
#include <vector>

namespace weft::rt {

struct CopyPlan {
  Shape shape;
  std::vector<int64_t> srcStrides;
  std::vector<int64_t> dstStrides;
  int64_t srcOffset = 0;
  int64_t dstOffset = 0;

  int64_t numElements() const { return weft::rt::numElements(shape); }
  /// Drops extent-1 dims and merges dims contiguous in both src and dst,
  /// so a plain block copy becomes one dim.
  void simplify();
  /// True when the simplified plan is a single contiguous run.
  bool isContiguous() const;
  std::string str() const;

  /// dst = src with dims permuted: dst dim d is src dim perm[d]; both dense
  /// row-major.
  static CopyPlan permute(const Shape &srcShape, const std::vector<int> &perm);
  /// dst (dense, shape `block`) = the block of dense `src` at `offsets`.
  static CopyPlan extractBlock(const Shape &src,
                               const std::vector<int64_t> &offsets,
                               const Shape &block);
  /// dense `dst` at `offsets` = dst block (dense, shape `block`).
  static CopyPlan insertBlock(const Shape &dst,
                              const std::vector<int64_t> &offsets,
                              const Shape &block);
};

/// Executes `plan` on host memory for elements of `elemSize` bytes.
void copyStridedHost(const CopyPlan &plan, std::size_t elemSize,
                     const void *src, void *dst);

/// Merges dims of `shape` that are contiguous in every stride array (stride
/// of dim i == stride of dim i+1 times extent of dim i+1) and drops extent-1
/// dims. Used by every plan's simplify().
void mergeDims(Shape &shape, std::vector<std::vector<int64_t> *> strides);

} // namespace weft::rt

#endif // WEFT_RT_COPYPLAN_H

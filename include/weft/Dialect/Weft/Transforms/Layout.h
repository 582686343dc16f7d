//===- Layout.h - shardings as plain values for the passes ------*- C++ -*-===//
//
// A Layout is a #weft.sharding without the mesh reference: per dimension the
// ordered axes that split it, and the axes over which it is partial. The
// passes reason on Layouts and MeshInfo, and write ShardingAttrs back.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_LAYOUT_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_LAYOUT_H

#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir::weft {

/// Ordered mesh axis names (major to minor). StringRefs point into
/// context-owned StringAttrs.
using AxisList = SmallVector<StringRef, 2>;

struct Layout {
  SmallVector<AxisList, 4> dims;
  ReductionKind partialKind = ReductionKind::Sum;
  AxisList partial;

  static Layout replicated(unsigned rank) {
    Layout l;
    l.dims.resize(rank);
    return l;
  }
  static Layout fromAttr(ShardingAttr attr);
  ShardingAttr toAttr(FlatSymbolRefAttr mesh) const;

  bool isPartial() const { return !partial.empty(); }
  /// Every axis used by the layout (dimensions, then partial).
  AxisList usedAxes() const;
  bool operator==(const Layout &other) const;
  bool operator!=(const Layout &other) const { return !(*this == other); }
  /// `[{"model"}, {}] partial sum {"data"}`, for messages; without quotes
  /// (`[{model}, {}]`) for text stored in attributes.
  std::string str(bool quoted = true) const;
};

/// A weft.mesh as sizes by name.
struct MeshInfo {
  FlatSymbolRefAttr ref;
  SmallVector<StringRef, 4> axes;
  SmallVector<int64_t, 4> sizes;

  explicit MeshInfo(MeshOp mesh);
  int64_t size(StringRef axis) const;
  int64_t groupSize(ArrayRef<StringRef> axes) const;
  int64_t numDevices() const;
};

/// Local shape of a tensor of `global` shape under `layout`.
SmallVector<int64_t, 4> localShape(ArrayRef<int64_t> global,
                                   const Layout &layout, const MeshInfo &mesh);

/// Bytes per element of a tensor type (at least 1: i1 counts as a byte).
int64_t elementBytes(Type type);

/// `{"a", "b"}`, or `{a, b}` unquoted.
std::string axesStr(ArrayRef<StringRef> axes, bool quoted = true);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_LAYOUT_H

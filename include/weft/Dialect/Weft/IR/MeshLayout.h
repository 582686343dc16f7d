//===- MeshLayout.h - a weft.mesh and a #weft.sharding as values -*- C++
//-*-===//
//
// The one Mesh and the one Layout of the compiler: the passes, the
// interpreter and the tools reason on these and write ShardingAttrs back.
// (The runtime has its own weft::rt::Mesh/Layout: it builds without MLIR.)
//
// Ranks map to mesh coordinates row-major (the last axis varies fastest). A
// collective over a list of axes runs inside each group of ranks that agree
// on every coordinate not in the list; a rank's position in its group is the
// row-major index of its coordinates over the listed axes, in the listed
// order (design.md section 2). The block index of a rank along a dimension
// is its group position over that dimension's axes.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_MESHLAYOUT_H
#define WEFT_DIALECT_WEFT_IR_MESHLAYOUT_H

#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::weft {

/// Ordered mesh axis names (major to minor). StringRefs point into
/// context-owned StringAttrs.
using AxisList = SmallVector<StringRef, 2>;

/// A weft.mesh: its symbol, axis names and sizes. A default-constructed Mesh
/// (or one of a null MeshOp) has no axes and one device: the mesh of a
/// program that names none.
class Mesh {
public:
  Mesh() = default;
  explicit Mesh(MeshOp op);

  /// The symbol naming the mesh (null for the mesh without axes).
  FlatSymbolRefAttr getRef() const { return ref; }
  ArrayRef<StringRef> getAxisNames() const { return axisNames; }
  ArrayRef<int64_t> getAxisSizes() const { return axisSizes; }
  unsigned getNumAxes() const { return axisNames.size(); }
  /// Product of the axis sizes (bounded by kMaxDevices: the verifier).
  int64_t getNumDevices() const;

  /// Index of the named axis, if the mesh has it.
  std::optional<unsigned> getAxisIndex(StringRef axis) const;
  /// Size of the named axis; 1 for an axis the mesh does not have.
  int64_t getAxisSize(StringRef axis) const;
  /// Product of the sizes of `axes` (the size of a group over them).
  int64_t getGroupSize(ArrayRef<StringRef> axes) const;

  /// Coordinates of `rank`, one per axis.
  SmallVector<int64_t> getCoords(int64_t rank) const;
  /// The rank at `coords`.
  int64_t getRank(ArrayRef<int64_t> coords) const;
  /// Row-major index of `rank`'s coordinates over `axes`, in that order
  /// (every axis must exist).
  int64_t getGroupPosition(int64_t rank, ArrayRef<StringRef> axes) const;
  /// The ranks of `rank`'s group over `axes`, in group order (element `i`
  /// has group position `i`; every axis must exist).
  SmallVector<int64_t> getGroup(int64_t rank, ArrayRef<StringRef> axes) const;

private:
  FlatSymbolRefAttr ref;
  SmallVector<StringRef, 4> axisNames;
  SmallVector<int64_t, 4> axisSizes;
};

/// A #weft.sharding without the mesh reference: per dimension the ordered
/// axes that split it, and the axes over which the value is partial. A plain
/// value: the passes edit its fields.
struct Layout {
  /// Axes splitting each dimension, major to minor.
  SmallVector<AxisList, 4> dims;
  ReductionKind partialKind = ReductionKind::Sum;
  /// Axes over which the value is partial (empty: not partial).
  AxisList partialAxes;

  /// Replicated over `rank` dimensions.
  static Layout getReplicated(unsigned rank);
  /// The layout `sharding` describes; a null sharding is replicated over
  /// `rank` dimensions.
  static Layout get(ShardingAttr sharding, unsigned rank);
  /// The layout of a non-null `sharding`.
  static Layout get(ShardingAttr sharding);
  /// The sharding of this layout over `mesh`.
  ShardingAttr getAttr(FlatSymbolRefAttr mesh) const;

  unsigned getRank() const { return dims.size(); }
  bool isPartial() const { return !partialAxes.empty(); }
  /// Every axis used by the layout (dimensions, then partial).
  AxisList getUsedAxes() const;
  /// Equal dimensions and partial axes; the partial kind matters only when
  /// partial.
  bool operator==(const Layout &other) const;
  bool operator!=(const Layout &other) const { return !(*this == other); }
  /// `[{"model"}, {}] partial sum {"data"}`, for messages; without quotes
  /// (`[{model}, {}]`) for text stored in attributes.
  std::string str(bool quoted = true) const;

  /// Local shape of a tensor of `globalShape` on every rank: each dimension
  /// ceil-divided by the product of its axes (an uneven dimension's padded
  /// block; exact for an even one).
  SmallVector<int64_t> getLocalShape(const Mesh &mesh,
                                     ArrayRef<int64_t> globalShape) const;
  /// Offsets of `rank`'s block in the global tensor (ceil-divided blocks,
  /// as getLocalShape).
  SmallVector<int64_t> getBlockOffsets(const Mesh &mesh,
                                       ArrayRef<int64_t> globalShape,
                                       int64_t rank) const;
};

/// Bytes per element of a tensor type (at least 1: i1 counts as a byte).
int64_t elementBytes(Type type);

/// `{"a", "b"}`, or `{a, b}` unquoted.
std::string axesStr(ArrayRef<StringRef> axes, bool quoted = true);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_MESHLAYOUT_H

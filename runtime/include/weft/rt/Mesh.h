//===- Mesh.h - Device mesh and tensor block layouts ------------*- C++ -*-===//
//
// A mesh is an ordered list of named axes; rank r has the row-major
// coordinates of r over the axis sizes (last axis fastest). A layout lists,
// for each tensor dim, the mesh axes splitting it (major to minor).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_MESH_H
#define WEFT_RT_MESH_H

#include "weft/rt/DType.h"

#include <string>
#include <vector>

namespace weft::rt {

/// Mesh axes by index into Mesh::axes, in a meaningful order.
using AxisList = std::vector<int>;

struct MeshAxis {
  std::string name;
  int64_t size;
};

class Mesh {
public:
  Mesh() = default;
  /// Throws Error on an empty name, a repeated name or a size < 1.
  explicit Mesh(std::vector<MeshAxis> axes);

  int numAxes() const { return static_cast<int>(axes_.size()); }
  const MeshAxis &axis(int i) const { return axes_.at(i); }
  int64_t axisSize(int i) const { return axes_.at(i).size; }
  /// Product of all axis sizes (1 for an axis-less mesh).
  int64_t numDevices() const;
  /// Index of the axis named `name`; throws Error when absent.
  int axisIndex(const std::string &name) const;
  /// Axis names -> indices.
  AxisList axisList(const std::vector<std::string> &names) const;

  std::vector<int64_t> coords(int64_t rank) const;
  int64_t rankOf(const std::vector<int64_t> &coords) const;

  /// Product of the sizes of `axes`.
  int64_t groupSize(const AxisList &axes) const;
  /// Row-major linear index of rank's coordinates over `axes`, in the
  /// listed order (first listed = most major).
  int64_t positionIn(const AxisList &axes, int64_t rank) const;
  /// Throws Error if an axis index is out of range or repeated.
  void checkAxes(const AxisList &axes) const;
  std::string str() const;

private:
  std::vector<MeshAxis> axes_;
};

/// Per tensor dim, the axes splitting it (major to minor).
struct Layout {
  std::vector<AxisList> dims;

  static Layout replicated(int rank) {
    return Layout{std::vector<AxisList>(rank)};
  }
  /// Throws Error if an axis appears twice or is out of range, or the rank
  /// differs from `rank`.
  void check(const Mesh &mesh, int rank) const;
};

/// Local shape of a tensor of `global` shape; throws Error when a split
/// does not divide its dim.
Shape localShape(const Mesh &mesh, const Layout &layout, const Shape &global);
/// Element offsets of `rank`'s block in the global tensor.
std::vector<int64_t> blockOffsets(const Mesh &mesh, const Layout &layout,
                                  const Shape &global, int64_t rank);

/// The part of the block at `offsets` with extent `block` that lies inside
/// a tensor of shape `extent` (per dim: clamp(extent - offset, 0, block)).
/// The block may reach past `extent` (a padded tensor's last blocks) or lie
/// wholly outside it (extent 0 in some dim). Throws Error on a rank
/// mismatch, a negative entry or an end beyond int64.
Shape clipBlock(const Shape &extent, const std::vector<int64_t> &offsets,
                const Shape &block);

} // namespace weft::rt

#endif // WEFT_RT_MESH_H

//===- Mesh.cpp - Device mesh and tensor block layouts --------------------===//

#include "weft/rt/Mesh.h"
#include "weft/rt/Error.h"

#include <algorithm>
#include <set>

namespace weft::rt {

Mesh::Mesh(std::vector<MeshAxis> axes) : axes_(std::move(axes)) {
  std::set<std::string> seen;
  for (const auto &a : axes_) {
    check(!a.name.empty(), "mesh axis with an empty name");
    check(a.size >= 1, "mesh axis '", a.name, "' has size ", a.size,
          " (must be >= 1)");
    check(seen.insert(a.name).second, "mesh axis '", a.name, "' repeated");
  }
}

int64_t Mesh::numDevices() const {
  int64_t n = 1;
  for (const auto &a : axes_)
    n *= a.size;
  return n;
}

int Mesh::axisIndex(const std::string &name) const {
  for (int i = 0; i < numAxes(); ++i)
    if (axes_[i].name == name)
      return i;
  fail("mesh ", str(), " has no axis '", name, "'");
}

AxisList Mesh::axisList(const std::vector<std::string> &names) const {
  AxisList l;
  for (const auto &n : names)
    l.push_back(axisIndex(n));
  checkAxes(l);
  return l;
}

std::vector<int64_t> Mesh::coords(int64_t rank) const {
  check(rank >= 0 && rank < numDevices(), "rank ", rank,
        " out of range for mesh ", str());
  std::vector<int64_t> c(axes_.size());
  for (int i = numAxes() - 1; i >= 0; --i) {
    c[i] = rank % axes_[i].size;
    rank /= axes_[i].size;
  }
  return c;
}

int64_t Mesh::rankOf(const std::vector<int64_t> &coords) const {
  check(coords.size() == axes_.size(), "coordinate rank mismatch");
  int64_t r = 0;
  for (int i = 0; i < numAxes(); ++i) {
    check(coords[i] >= 0 && coords[i] < axes_[i].size, "coordinate ", coords[i],
          " out of range for axis '", axes_[i].name, "'");
    r = r * axes_[i].size + coords[i];
  }
  return r;
}

void Mesh::checkAxes(const AxisList &axes) const {
  std::set<int> seen;
  for (int a : axes) {
    check(a >= 0 && a < numAxes(), "axis index ", a, " out of range for mesh ",
          str());
    check(seen.insert(a).second, "axis '", axes_[a].name, "' listed twice");
  }
}

int64_t Mesh::groupSize(const AxisList &axes) const {
  checkAxes(axes);
  int64_t n = 1;
  for (int a : axes)
    n *= axes_[a].size;
  return n;
}

int64_t Mesh::positionIn(const AxisList &axes, int64_t rank) const {
  checkAxes(axes);
  auto c = coords(rank);
  int64_t pos = 0;
  for (int a : axes)
    pos = pos * axes_[a].size + c[a];
  return pos;
}

std::string Mesh::str() const {
  std::string s = "[";
  for (int i = 0; i < numAxes(); ++i)
    s += (i ? ", \"" : "\"") + axes_[i].name +
         "\"=" + std::to_string(axes_[i].size);
  return s + "]";
}

void Layout::check(const Mesh &mesh, int rank) const {
  weft::rt::check(static_cast<int>(dims.size()) == rank, "layout has ",
                  dims.size(), " dims, tensor has ", rank);
  AxisList all;
  for (const auto &d : dims)
    all.insert(all.end(), d.begin(), d.end());
  mesh.checkAxes(all);
}

Shape localShape(const Mesh &mesh, const Layout &layout, const Shape &global) {
  layout.check(mesh, static_cast<int>(global.size()));
  Shape local = global;
  for (std::size_t d = 0; d < global.size(); ++d) {
    int64_t k = mesh.groupSize(layout.dims[d]);
    check(global[d] % k == 0, "dim ", d, " of size ", global[d],
          " is not divisible by the ", k, " devices splitting it");
    local[d] = global[d] / k;
  }
  return local;
}

std::vector<int64_t> blockOffsets(const Mesh &mesh, const Layout &layout,
                                  const Shape &global, int64_t rank) {
  Shape local = localShape(mesh, layout, global);
  std::vector<int64_t> off(global.size());
  for (std::size_t d = 0; d < global.size(); ++d)
    off[d] = mesh.positionIn(layout.dims[d], rank) * local[d];
  return off;
}

Shape clipBlock(const Shape &extent, const std::vector<int64_t> &offsets,
                const Shape &block) {
  check(extent.size() == offsets.size() && extent.size() == block.size(),
        "block rank mismatch: tensor ", shapeToString(extent), ", offsets ",
        shapeToString(offsets), ", block ", shapeToString(block));
  Shape clip(block.size());
  for (std::size_t d = 0; d < block.size(); ++d) {
    int64_t end = 0;
    check(offsets[d] >= 0 && block[d] >= 0 && extent[d] >= 0 &&
              !__builtin_add_overflow(offsets[d], block[d], &end),
          "block ", shapeToString(block), " at ", shapeToString(offsets),
          " is malformed (negative, or its end overflows int64)");
    clip[d] = std::min(block[d], std::max<int64_t>(0, extent[d] - offsets[d]));
  }
  return clip;
}

} // namespace weft::rt

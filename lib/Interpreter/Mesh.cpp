//===- Mesh.cpp - ranks, mesh coordinates and collective groups -----------===//

#include "weft/Interpreter/Mesh.h"
#include "weft/Dialect/Weft/IR/Limits.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include <cassert>

using namespace mlir;
using namespace mlir::weft::interp;

Mesh::Mesh(ArrayRef<std::string> names, ArrayRef<int64_t> sizes)
    : names(names.begin(), names.end()), sizes(sizes.begin(), sizes.end()) {
  assert(names.size() == sizes.size());
}

Mesh Mesh::get(MeshOp op) {
  SmallVector<std::string> names;
  for (Attribute a : op.getAxisNames())
    names.push_back(cast<StringAttr>(a).getValue().str());
  return Mesh(names, op.getAxisSizes());
}

int64_t Mesh::getNumRanks() const {
  // The verifier bounds a mesh by kMaxDevices; checkSimulable far lower.
  std::optional<int64_t> n = boundedProduct(sizes, kMaxDevices);
  assert(n && "mesh beyond kMaxDevices: the verifier bounds it");
  return *n;
}

std::optional<unsigned> Mesh::getAxisIndex(StringRef axis) const {
  for (auto [i, name] : llvm::enumerate(names))
    if (name == axis)
      return i;
  return std::nullopt;
}

SmallVector<int64_t> Mesh::getCoords(int64_t rank) const {
  assert(rank >= 0 && rank < getNumRanks());
  SmallVector<int64_t> coords(sizes.size());
  for (int64_t a = static_cast<int64_t>(sizes.size()) - 1; a >= 0; --a) {
    coords[a] = rank % sizes[a];
    rank /= sizes[a];
  }
  return coords;
}

int64_t Mesh::getRank(ArrayRef<int64_t> coords) const {
  assert(coords.size() == sizes.size());
  int64_t rank = 0;
  for (auto [c, s] : llvm::zip(coords, sizes))
    rank = rank * s + c;
  return rank;
}

int64_t Mesh::getGroupSize(ArrayRef<StringRef> axes) const {
  SmallVector<int64_t> groupSizes;
  for (StringRef axis : axes) {
    std::optional<unsigned> a = getAxisIndex(axis);
    assert(a && "unknown mesh axis");
    groupSizes.push_back(sizes[*a]);
  }
  std::optional<int64_t> n = boundedProduct(groupSizes, kMaxDevices);
  assert(n && "group beyond kMaxDevices: the verifier bounds it");
  return *n;
}

int64_t Mesh::getGroupPosition(int64_t rank, ArrayRef<StringRef> axes) const {
  SmallVector<int64_t> coords = getCoords(rank);
  int64_t pos = 0;
  for (StringRef axis : axes) {
    std::optional<unsigned> a = getAxisIndex(axis);
    assert(a && "unknown mesh axis");
    pos = pos * sizes[*a] + coords[*a];
  }
  return pos;
}

SmallVector<int64_t> Mesh::getGroup(int64_t rank,
                                    ArrayRef<StringRef> axes) const {
  SmallVector<int64_t> coords = getCoords(rank);
  SmallVector<unsigned> idx;
  for (StringRef axis : axes) {
    std::optional<unsigned> a = getAxisIndex(axis);
    assert(a && "unknown mesh axis");
    idx.push_back(*a);
  }
  int64_t n = getGroupSize(axes);
  SmallVector<int64_t> group;
  group.reserve(n);
  for (int64_t pos = 0; pos < n; ++pos) {
    // Decode `pos` row-major over the listed axes into their coordinates.
    int64_t rest = pos;
    for (int64_t i = static_cast<int64_t>(idx.size()) - 1; i >= 0; --i) {
      coords[idx[i]] = rest % sizes[idx[i]];
      rest /= sizes[idx[i]];
    }
    group.push_back(getRank(coords));
  }
  return group;
}

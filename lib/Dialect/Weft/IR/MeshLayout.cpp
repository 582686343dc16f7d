//===- MeshLayout.cpp - a weft.mesh and a #weft.sharding as values --------===//

#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/Limits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cassert>

using namespace mlir;
using namespace mlir::weft;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

Mesh::Mesh(MeshOp op) {
  if (!op)
    return;
  ref = FlatSymbolRefAttr::get(op.getSymNameAttr());
  for (auto [name, size] : llvm::zip(op.getAxisNames(), op.getAxisSizes())) {
    axisNames.push_back(cast<StringAttr>(name).getValue());
    axisSizes.push_back(size);
  }
}

int64_t Mesh::getNumDevices() const {
  // The verifier bounds a mesh by kMaxDevices; checkSimulable far lower.
  std::optional<int64_t> n = boundedProduct(axisSizes, kMaxDevices);
  assert(n && "mesh beyond kMaxDevices: the verifier bounds it");
  return *n;
}

std::optional<unsigned> Mesh::getAxisIndex(StringRef axis) const {
  for (auto [i, name] : llvm::enumerate(axisNames))
    if (name == axis)
      return i;
  return std::nullopt;
}

int64_t Mesh::getAxisSize(StringRef axis) const {
  std::optional<unsigned> a = getAxisIndex(axis);
  return a ? axisSizes[*a] : 1;
}

int64_t Mesh::getGroupSize(ArrayRef<StringRef> axes) const {
  SmallVector<int64_t> groupSizes;
  for (StringRef axis : axes)
    groupSizes.push_back(getAxisSize(axis));
  std::optional<int64_t> n = boundedProduct(groupSizes, kMaxDevices);
  assert(n && "group beyond kMaxDevices: the verifier bounds it");
  return *n;
}

SmallVector<int64_t> Mesh::getCoords(int64_t rank) const {
  assert(rank >= 0 && rank < getNumDevices());
  SmallVector<int64_t> coords(axisSizes.size());
  for (int64_t a = static_cast<int64_t>(axisSizes.size()) - 1; a >= 0; --a) {
    coords[a] = rank % axisSizes[a];
    rank /= axisSizes[a];
  }
  return coords;
}

int64_t Mesh::getRank(ArrayRef<int64_t> coords) const {
  assert(coords.size() == axisSizes.size());
  int64_t rank = 0;
  for (auto [c, s] : llvm::zip(coords, axisSizes))
    rank = rank * s + c;
  return rank;
}

int64_t Mesh::getGroupPosition(int64_t rank, ArrayRef<StringRef> axes) const {
  SmallVector<int64_t> coords = getCoords(rank);
  int64_t pos = 0;
  for (StringRef axis : axes) {
    std::optional<unsigned> a = getAxisIndex(axis);
    assert(a && "unknown mesh axis");
    pos = pos * axisSizes[*a] + coords[*a];
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
      coords[idx[i]] = rest % axisSizes[idx[i]];
      rest /= axisSizes[idx[i]];
    }
    group.push_back(getRank(coords));
  }
  return group;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

Layout Layout::getReplicated(unsigned rank) {
  Layout l;
  l.dims.resize(rank);
  return l;
}

Layout Layout::get(ShardingAttr sharding, unsigned rank) {
  if (!sharding)
    return getReplicated(rank);
  assert(sharding.getRank() == rank && "sharding rank != tensor rank");
  return get(sharding);
}

Layout Layout::get(ShardingAttr sharding) {
  assert(sharding && "null sharding: use get(sharding, rank)");
  Layout l;
  for (unsigned d = 0; d < sharding.getRank(); ++d) {
    AxisList axes;
    for (StringRef a : sharding.getDimAxes(d))
      axes.push_back(a);
    l.dims.push_back(axes);
  }
  l.partialKind = sharding.getPartialKind();
  for (StringRef a : sharding.getPartialAxisNames())
    l.partialAxes.push_back(a);
  return l;
}

ShardingAttr Layout::getAttr(FlatSymbolRefAttr mesh) const {
  SmallVector<SmallVector<StringRef>> dimAxes;
  for (const AxisList &axes : dims)
    dimAxes.emplace_back(axes.begin(), axes.end());
  return ShardingAttr::get(
      mesh, dimAxes, partialKind,
      SmallVector<StringRef>(partialAxes.begin(), partialAxes.end()));
}

AxisList Layout::getUsedAxes() const {
  AxisList all;
  for (const AxisList &axes : dims)
    all.append(axes.begin(), axes.end());
  all.append(partialAxes.begin(), partialAxes.end());
  return all;
}

bool Layout::operator==(const Layout &other) const {
  if (dims != other.dims || partialAxes != other.partialAxes)
    return false;
  return partialAxes.empty() || partialKind == other.partialKind;
}

std::string mlir::weft::axesStr(ArrayRef<StringRef> axes, bool quoted) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "{";
  llvm::interleaveComma(axes, os, [&](StringRef a) {
    if (quoted)
      os << '"' << a << '"';
    else
      os << a;
  });
  os << "}";
  return s;
}

std::string Layout::str(bool quoted) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(
      dims, os, [&](const AxisList &axes) { os << axesStr(axes, quoted); });
  os << "]";
  if (isPartial())
    os << " partial " << stringifyReductionKind(partialKind) << " "
       << axesStr(partialAxes, quoted);
  return s;
}

SmallVector<int64_t>
Layout::getLocalShape(const Mesh &mesh, ArrayRef<int64_t> globalShape) const {
  assert(globalShape.size() == dims.size() && "layout rank != tensor rank");
  SmallVector<int64_t> local(globalShape.begin(), globalShape.end());
  // Ceil-divided: an uneven dimension is priced (--weft-propagate) by its
  // padded block; --weft-pad-uneven makes every one even before
  // --weft-partition.
  for (auto [d, axes] : llvm::enumerate(dims)) {
    int64_t p = mesh.getGroupSize(axes);
    local[d] = (local[d] + p - 1) / p;
  }
  return local;
}

SmallVector<int64_t> Layout::getBlockOffsets(const Mesh &mesh,
                                             ArrayRef<int64_t> globalShape,
                                             int64_t rank) const {
  SmallVector<int64_t> local = getLocalShape(mesh, globalShape);
  SmallVector<int64_t> offsets;
  for (auto [localSize, axes] : llvm::zip(local, dims)) {
    offsets.push_back(mesh.getGroupPosition(rank, axes) * localSize);
  }
  return offsets;
}

int64_t mlir::weft::elementBytes(Type type) {
  return std::max<int64_t>(
      1, cast<ShapedType>(type).getElementType().getIntOrFloatBitWidth() / 8);
}

//===- Layout.cpp - shardings as plain values for the passes --------------===//

#include "weft/Dialect/Weft/Transforms/Layout.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::weft;

Layout Layout::fromAttr(ShardingAttr attr) {
  Layout l;
  for (unsigned d = 0; d < attr.getRank(); ++d) {
    AxisList axes;
    for (StringRef a : attr.getDimAxes(d))
      axes.push_back(a);
    l.dims.push_back(axes);
  }
  l.partialKind = attr.getPartialKind();
  for (StringRef a : attr.getPartialAxisNames())
    l.partial.push_back(a);
  return l;
}

ShardingAttr Layout::toAttr(FlatSymbolRefAttr mesh) const {
  SmallVector<SmallVector<StringRef>> dimAxes;
  for (const AxisList &axes : dims)
    dimAxes.emplace_back(axes.begin(), axes.end());
  return ShardingAttr::get(mesh, dimAxes, partialKind,
                           SmallVector<StringRef>(partial.begin(),
                                                  partial.end()));
}

AxisList Layout::usedAxes() const {
  AxisList all;
  for (const AxisList &axes : dims)
    all.append(axes.begin(), axes.end());
  all.append(partial.begin(), partial.end());
  return all;
}

bool Layout::operator==(const Layout &other) const {
  if (dims != other.dims || partial != other.partial)
    return false;
  return partial.empty() || partialKind == other.partialKind;
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
  llvm::interleaveComma(dims, os,
                        [&](const AxisList &axes) { os << axesStr(axes, quoted); });
  os << "]";
  if (isPartial())
    os << " partial " << stringifyReductionKind(partialKind) << " "
       << axesStr(partial, quoted);
  return s;
}

MeshInfo::MeshInfo(MeshOp mesh)
    : ref(FlatSymbolRefAttr::get(mesh.getSymNameAttr())) {
  for (auto [name, size] :
       llvm::zip(mesh.getAxisNames(), mesh.getAxisSizes())) {
    axes.push_back(cast<StringAttr>(name).getValue());
    sizes.push_back(size);
  }
}

int64_t MeshInfo::size(StringRef axis) const {
  for (auto [name, s] : llvm::zip(axes, sizes))
    if (name == axis)
      return s;
  return 1;
}

int64_t MeshInfo::groupSize(ArrayRef<StringRef> group) const {
  int64_t p = 1;
  for (StringRef a : group)
    p *= size(a);
  return p;
}

int64_t MeshInfo::numDevices() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

int64_t mlir::weft::elementBytes(Type type) {
  return std::max<int64_t>(
      1, cast<ShapedType>(type).getElementType().getIntOrFloatBitWidth() / 8);
}

SmallVector<int64_t, 4> mlir::weft::localShape(ArrayRef<int64_t> global,
                                               const Layout &layout,
                                               const MeshInfo &mesh) {
  SmallVector<int64_t, 4> local(global.begin(), global.end());
  for (auto [d, axes] : llvm::enumerate(layout.dims))
    local[d] /= mesh.groupSize(axes);
  return local;
}

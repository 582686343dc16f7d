//===- MeshOption.cpp - weftc --mesh AXIS=SIZE,... ------------------------===//

#include "Driver.h"

#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::weft;

namespace weftc {

LogicalResult resizeMesh(ModuleOp module, StringRef spec) {
  auto fail = [&](const Twine &msg) {
    llvm::errs() << "weftc: error: --mesh " << spec << ": " << msg << "\n";
    return failure();
  };
  SmallVector<MeshOp> meshes(module.getOps<MeshOp>());
  if (meshes.empty())
    return fail("the program declares no weft.mesh");
  // Parse every AXIS=SIZE first, so nothing changes on a bad option.
  SmallVector<std::pair<std::string, int64_t>> sizes;
  SmallVector<StringRef> items;
  spec.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  for (StringRef item : items) {
    auto [axis, value] = item.trim().split('=');
    axis = axis.trim();
    value = value.trim();
    int64_t size = 0;
    if (axis.empty() || !item.contains('=') || value.getAsInteger(10, size))
      return fail("expected AXIS=SIZE[,AXIS=SIZE...], got '" + item + "'");
    if (size < 1)
      return fail("axis \"" + axis + "\" must have size >= 1, got " + value);
    for (auto &[seen, s] : sizes)
      if (seen == axis)
        return fail("axis \"" + axis + "\" is given twice");
    bool found = false;
    for (MeshOp mesh : meshes)
      found |= mesh.getAxisSize(axis).has_value();
    if (!found) {
      SmallVector<std::string> all;
      for (MeshOp mesh : meshes)
        for (Attribute a : mesh.getAxisNames())
          all.push_back(("\"" + cast<StringAttr>(a).getValue() + "\"").str());
      return fail("no mesh has an axis \"" + axis +
                  "\" (axes: " + llvm::join(all, ", ") + ")");
    }
    sizes.emplace_back(axis.str(), size);
  }
  for (MeshOp mesh : meshes) {
    SmallVector<int64_t> newSizes(mesh.getAxisSizes());
    for (auto [i, name] : llvm::enumerate(mesh.getAxisNames()))
      for (auto &[axis, size] : sizes)
        if (cast<StringAttr>(name).getValue() == axis)
          newSizes[i] = size;
    mesh.setAxisSizes(newSizes);
  }
  return success();
}

} // namespace weftc

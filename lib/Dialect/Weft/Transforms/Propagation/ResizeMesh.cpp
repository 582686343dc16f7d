//===- ResizeMesh.cpp - the weft-resize-mesh pass -------------------------===//
//
// weftc's --mesh AXIS=SIZE,...: every weft.mesh with that axis gets that
// size. Shardings the new size does not divide stay (weft-pad-uneven pads
// them after propagation).
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/MeshRewrites.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "weft-resize-mesh"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTRESIZEMESH
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

FailureOr<SmallVector<MeshAxisSize>>
mlir::weft::parseMeshSizes(ModuleOp module, StringRef spec,
                           std::string &error) {
  auto fail = [&](const Twine &msg) {
    error = msg.str();
    return failure();
  };
  SmallVector<MeshOp> meshes(module.getOps<MeshOp>());
  if (meshes.empty())
    return fail("the program declares no weft.mesh");
  SmallVector<MeshAxisSize> sizes;
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
  return sizes;
}

void mlir::weft::applyMeshSizes(ModuleOp module, ArrayRef<MeshAxisSize> sizes) {
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    SmallVector<int64_t> newSizes(mesh.getAxisSizes());
    for (auto [i, name] : llvm::enumerate(mesh.getAxisNames()))
      for (auto &[axis, size] : sizes)
        if (cast<StringAttr>(name).getValue() == axis)
          newSizes[i] = size;
    mesh.setAxisSizes(newSizes);
  }
}

namespace {
struct WeftResizeMeshPass
    : public mlir::weft::impl::WeftResizeMeshBase<WeftResizeMeshPass> {
  using WeftResizeMeshBase::WeftResizeMeshBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (sizes.empty()) {
      markAllAnalysesPreserved();
      return;
    }
    if (isLocalView(module)) {
      module.emitError() << "weft-resize-mesh needs a global-view program "
                            "(the local shapes of this one are fixed)";
      return signalPassFailure();
    }
    std::string error;
    FailureOr<SmallVector<MeshAxisSize>> parsed =
        parseMeshSizes(module, sizes, error);
    if (failed(parsed)) {
      module.emitError() << "weft-resize-mesh sizes=" << sizes << ": " << error;
      return signalPassFailure();
    }
    LLVM_DEBUG(llvm::dbgs() << "resizing meshes: " << sizes << "\n");
    applyMeshSizes(module, *parsed);
    if (failed(verify(module))) {
      module.emitError() << "the program does not fit the mesh sizes " << sizes
                         << " (see above)";
      return signalPassFailure();
    }
  }
};
} // namespace

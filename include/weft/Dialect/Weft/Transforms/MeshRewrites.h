//===- MeshRewrites.h - --mesh and --unsharded as functions ------*- C++
//-*-===//
//
// The rewrites behind weftc's --mesh and --unsharded (the passes
// weft-resize-mesh and weft-unsharded), callable before a pipeline runs so
// weftc can check its options with its own messages.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_MESHREWRITES_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_MESHREWRITES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <utility>

namespace mlir::weft {

/// One `AXIS=SIZE` of a mesh resize.
using MeshAxisSize = std::pair<std::string, int64_t>;

/// Parses `AXIS=SIZE[,AXIS=SIZE...]` and checks it against the `weft.mesh`
/// ops of `module`: a malformed item, a size < 1, a repeated axis, an axis
/// no mesh has, or a module without a mesh fails with the reason in
/// `error` (without a prefix).
FailureOr<SmallVector<MeshAxisSize>>
parseMeshSizes(ModuleOp module, StringRef spec, std::string &error);

/// Gives every `weft.mesh` of `module` that has one of the axes its new
/// size (from parseMeshSizes).
void applyMeshSizes(ModuleOp module, ArrayRef<MeshAxisSize> sizes);

/// Rewrites a global-view program into the same program on one device:
/// every weft.mesh keeps its axis names with all sizes 1, every
/// #weft.sharding (weft.shard's included) becomes replicated on its mesh (so
/// each function still names the mesh it runs on). A local view is an error
/// (emitted on the module).
LogicalResult makeUnsharded(ModuleOp module);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_MESHREWRITES_H

//===- Driver.h - Pieces of the weftc driver --------------------*- C++ -*-===//

#ifndef WEFT_TOOLS_WEFTC_DRIVER_H
#define WEFT_TOOLS_WEFTC_DRIVER_H

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/SourceMgr.h"

#include <string>
#include <vector>

namespace weftc {

/// Sets the `weft.name` argument and result attributes of every function
/// from the SSA names the source gives them (`%x` -> "x"; a result takes the
/// name of the value it returns). Names that are not identifiers, or repeat,
/// are left unset (the lowering then uses arg<i> / result<i>).
void attachSourceNames(mlir::ModuleOp module,
                       const mlir::AsmParserState &state);

/// Rewrites a global-view program into the same program on one device:
/// every weft.mesh keeps its axis names with all sizes 1, every
/// #weft.sharding encoding and weft.shard op is dropped.
mlir::LogicalResult makeUnsharded(mlir::ModuleOp module);

/// The local view of a program on a one-device mesh with no shardings:
/// every argument and result gets `weft.global_type` = its own type. Used
/// for --unsharded when the build has no --weft-partition.
void localizeTrivially(mlir::ModuleOp module);

/// Applies `--mesh AXIS=SIZE[,AXIS=SIZE...]`: every weft.mesh that has
/// AXIS gets that size. Reports (to stderr, prefixed with the option) a
/// malformed item, a size < 1, a repeated axis, or an axis no mesh has, and
/// then changes nothing. The caller re-verifies the module, which reports
/// shardings the new sizes do not divide.
mlir::LogicalResult resizeMesh(mlir::ModuleOp module, llvm::StringRef spec);

/// Compiles and links `cppFile` against the runtime into `output`. On
/// failure prints the command and the compiler's output to stderr.
mlir::LogicalResult compileProgram(const std::string &cppFile,
                                   const std::string &output,
                                   const std::string &cxx,
                                   const std::vector<std::string> &extraFlags,
                                   bool verbose);

} // namespace weftc

#endif // WEFT_TOOLS_WEFTC_DRIVER_H

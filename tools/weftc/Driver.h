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

/// Verifies every op of `module` except the checks of symbol uses (which
/// is where shardings are checked against their mesh): what --unsharded
/// and --mesh need before they rewrite the meshes and shardings; the
/// pipeline's verifier checks all after (weft-resize-mesh, weft-unsharded).
mlir::LogicalResult verifyOps(mlir::ModuleOp module);

/// Checks, before anything is compiled, that weftc may write `path` (the
/// output named `what`, e.g. "-o"): it is not the input file, nor the file
/// standard input is open on when `input` is "-" (weftc never overwrites
/// its source), not a directory, and its directory exists and is
/// writable (as is the file, if it exists). Prints the error and fails
/// otherwise.
mlir::LogicalResult checkOutputPath(llvm::StringRef path, llvm::StringRef what,
                                    llvm::StringRef input);

/// Compiles and links `cppFile` (whose text is `cpp`) against the runtime
/// into `output`. With a `cacheDir` (CompileCache.h) and the configured
/// toolchain (no `cxx`, no `extraFlags`), first looks the build up there
/// and stores it after. On failure prints the command and the compiler's
/// output to stderr.
mlir::LogicalResult compileProgram(const std::string &cppFile,
                                   llvm::StringRef cpp,
                                   const std::string &output,
                                   const std::string &cxx,
                                   const std::vector<std::string> &extraFlags,
                                   const std::string &cacheDir, bool verbose);

} // namespace weftc

#endif // WEFT_TOOLS_WEFTC_DRIVER_H

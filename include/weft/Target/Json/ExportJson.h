//===- ExportJson.h - the weft-to-json translation --------------*- C++ -*-===//
//
// The global-view graph of a program as JSON: what the independent numpy
// evaluator of the end-to-end tests runs (test/numpy/weft_numpy.py,
// docs/testing.md "The JSON graph"). A translation (weft-translate
// --weft-to-json), not a pass: it leaves the IR and writes another format.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_TARGET_JSON_EXPORTJSON_H
#define WEFT_TARGET_JSON_EXPORTJSON_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::weft {

/// Writes every function of `module` (a global-view program without calls)
/// to `os`; on an op the format has no kind for, a local-view function or a
/// call, emits an error at it and fails.
LogicalResult exportJson(ModuleOp module, llvm::raw_ostream &os);

/// Registers `--weft-to-json` with mlir-translate's registry.
void registerToJsonTranslation();

} // namespace mlir::weft

#endif // WEFT_TARGET_JSON_EXPORTJSON_H

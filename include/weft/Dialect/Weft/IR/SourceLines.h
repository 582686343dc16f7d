//===- SourceLines.h - Source lines of ops for messages ---------*- C++ -*-===//
//
// Messages and reports name the user's line. An op inlined from a layer
// call (weft-inline-calls) carries `callsite(<line in the layer> at <line of
// the call>)`, so its line is the layer's and the calls are named after it.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_SOURCELINES_H
#define WEFT_DIALECT_WEFT_IR_SOURCELINES_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::weft {

/// The file positions of `loc`: the op's own first, then the calls it was
/// inlined through, innermost first. Name and fused locations are looked
/// through; empty when `loc` has no file position.
llvm::SmallVector<FileLineColLoc, 2> sourceLines(Location loc);

/// " at line 48", " at line 48 (called at line 107)" for an op a call
/// inlined, " at line 12 (called at lines 48, 107)" through two calls; ""
/// without a file position.
std::string atLine(Location loc);

/// "file.mlir:48", "file.mlir:48 (called at 107)"; "" without a position.
std::string fileAndLine(Location loc);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_SOURCELINES_H

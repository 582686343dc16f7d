//===- Passes.h - weft passes -----------------------------------*- C++ -*-===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_H

#include "weft/Dialect/Weft/IR/WeftDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::weft {

#define GEN_PASS_DECL
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_H

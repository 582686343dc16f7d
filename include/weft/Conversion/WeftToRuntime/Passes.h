//===- Passes.h - weft to runtime conversion --------------------*- C++ -*-===//

#ifndef WEFT_CONVERSION_WEFTTORUNTIME_PASSES_H
#define WEFT_CONVERSION_WEFTTORUNTIME_PASSES_H

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::weft {

#define GEN_PASS_DECL
#include "weft/Conversion/WeftToRuntime/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "weft/Conversion/WeftToRuntime/Passes.h.inc"

} // namespace mlir::weft

#endif // WEFT_CONVERSION_WEFTTORUNTIME_PASSES_H

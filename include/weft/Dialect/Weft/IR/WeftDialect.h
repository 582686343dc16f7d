//===- WeftDialect.h - The weft dialect -------------------------*- C++ -*-===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTDIALECT_H
#define WEFT_DIALECT_WEFT_IR_WEFTDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "weft/Dialect/Weft/IR/WeftDialect.h.inc"

#endif // WEFT_DIALECT_WEFT_IR_WEFTDIALECT_H

//===- WeftAttrs.h - weft attributes and enums ------------------*- C++ -*-===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTATTRS_H
#define WEFT_DIALECT_WEFT_IR_WEFTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TensorEncoding.h"

#include "weft/Dialect/Weft/IR/MapKind.h"
#include "weft/Dialect/Weft/IR/WeftEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "weft/Dialect/Weft/IR/WeftAttrs.h.inc"

namespace mlir::weft {
/// The sharding encoding of `type`, or null if it has none.
ShardingAttr getSharding(Type type);
/// `type` (a ranked tensor) without its encoding: the plain tensor of the
/// same shape and element type.
RankedTensorType withoutSharding(Type type);
} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_WEFTATTRS_H

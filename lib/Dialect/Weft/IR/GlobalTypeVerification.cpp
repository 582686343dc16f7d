//===- GlobalTypeVerification.cpp - weft.global_type on functions ---------===//
//
// A partitioned function keeps the global type of each argument and result
// in a `weft.global_type` attribute. It must be a statically shaped tensor
// type with the local type's element type and rank, each global dimension a
// multiple of the local one. The same hooks check the other attributes of
// arguments and results: `weft.logical_shape`, and `weft.finite_grads` (a
// rank-0 float result; `weft.loss_seed`, an op's, is refused here).
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftDialect.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::weft;

/// `weft.logical_shape`: one size per dimension of the (global) type,
/// each in [1, padded size].
static LogicalResult verifyLogicalShape(Operation *op, Type local,
                                        TypeAttr global, NamedAttribute attr,
                                        const Twine &what) {
  auto shape = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  auto padded = dyn_cast<RankedTensorType>(global ? global.getValue() : local);
  if (!shape || !padded || !padded.hasStaticShape())
    return op->emitOpError() << what
                             << ": weft.logical_shape must be an "
                                "array<i64> on a static tensor, got "
                             << attr.getValue();
  if (static_cast<int64_t>(shape.size()) != padded.getRank())
    return op->emitOpError()
           << what << ": weft.logical_shape has " << shape.size()
           << " sizes for a tensor of rank " << padded.getRank();
  for (auto [d, n] : llvm::enumerate(shape.asArrayRef()))
    if (n < 1 || n > padded.getDimSize(d))
      return op->emitOpError()
             << what << ": weft.logical_shape size " << n << " of dimension "
             << d << " is not in [1, " << padded.getDimSize(d) << "]";
  return success();
}

static LogicalResult verifyGlobalType(Operation *op, Type local,
                                      NamedAttribute attr, const Twine &what) {
  if (attr.getName() != kGlobalTypeAttr)
    return success();
  auto typeAttr = dyn_cast<TypeAttr>(attr.getValue());
  auto global =
      typeAttr ? dyn_cast<RankedTensorType>(typeAttr.getValue()) : nullptr;
  if (!global || !global.hasStaticShape())
    return op->emitOpError()
           << what << ": weft.global_type must be a statically shaped tensor "
           << "type, got " << attr.getValue();
  auto localTensor = dyn_cast<RankedTensorType>(local);
  if (!localTensor)
    return op->emitOpError() << what << " has weft.global_type but its type "
                             << local << " is not a ranked tensor";
  if (localTensor.getElementType() != global.getElementType() ||
      localTensor.getRank() != global.getRank())
    return op->emitOpError()
           << what << ": local type " << local
           << " does not match the element type and rank of its "
              "weft.global_type "
           << global;
  for (int64_t d = 0; d < global.getRank(); ++d) {
    int64_t l = localTensor.getDimSize(d), g = global.getDimSize(d);
    if (ShapedType::isDynamic(l) || l == 0 || g % l != 0)
      return op->emitOpError() << what << ": local dimension " << d << " (" << l
                               << ") does not divide global dimension " << g;
  }
  return success();
}

/// `weft.finite_grads` (dynamic loss scaling, --weft-optimizer): a unit
/// attribute on a rank-0 float result, the step's overflow verdict.
static LogicalResult verifyFiniteGrads(Operation *op, Type type,
                                       NamedAttribute attr, const Twine &what) {
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitOpError()
           << what << ": " << attr.getName().getValue()
           << " must be a unit attribute, got " << attr.getValue();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 0 ||
      !isa<FloatType>(tensor.getElementType()))
    return op->emitOpError()
           << what << ": " << attr.getName().getValue()
           << " marks the step's overflow check (1 or 0), a rank-0 float "
              "tensor, not "
           << type;
  return success();
}

LogicalResult WeftDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == FiniteGradsAttrHelper::getNameStr() ||
      attr.getName() == LossSeedAttrHelper::getNameStr())
    return op->emitOpError()
           << "argument #" << argIndex << ": " << attr.getName().getValue()
           << " marks "
           << (attr.getName() == LossSeedAttrHelper::getNameStr()
                   ? "the backward's seed, an op"
                   : "a result")
           << ", not an argument";
  Region &region = op->getRegion(regionIndex);
  if (region.empty() || argIndex >= region.getNumArguments())
    return success();
  if (attr.getName() == kLogicalShapeAttr) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    TypeAttr global =
        func ? func.getArgAttrOfType<TypeAttr>(argIndex, kGlobalTypeAttr)
             : TypeAttr();
    return verifyLogicalShape(op, region.getArgument(argIndex).getType(),
                              global, attr, "argument #" + Twine(argIndex));
  }
  return verifyGlobalType(op, region.getArgument(argIndex).getType(), attr,
                          "argument #" + Twine(argIndex));
}

LogicalResult WeftDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || resultIndex >= func.getResultTypes().size())
    return success();
  if (attr.getName() == LossSeedAttrHelper::getNameStr())
    return op->emitOpError()
           << "result #" << resultIndex << ": " << attr.getName().getValue()
           << " marks the backward's seed, an op, not a result";
  if (attr.getName() == FiniteGradsAttrHelper::getNameStr())
    return verifyFiniteGrads(op, func.getResultTypes()[resultIndex], attr,
                             "result #" + Twine(resultIndex));
  if (attr.getName() == kLogicalShapeAttr)
    return verifyLogicalShape(
        op, func.getResultTypes()[resultIndex],
        func.getResultAttrOfType<TypeAttr>(resultIndex, kGlobalTypeAttr), attr,
        "result #" + Twine(resultIndex));
  return verifyGlobalType(op, func.getResultTypes()[resultIndex], attr,
                          "result #" + Twine(resultIndex));
}

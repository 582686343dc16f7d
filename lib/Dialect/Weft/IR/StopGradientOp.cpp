//===- StopGradientOp.cpp - weft.stop_gradient, all of it in one file -----===//
//
// Everything the compiler's IR layer knows of weft.stop_gradient (the
// identity with a zero gradient): its verifier, its symbol uses, its
// sharding rule (elementwise, every partial kind passes through), how
// pads flow through it (unchanged) and its gradient (none). Partitioning
// takes the letter-map rule, the JSON export the generic one; its
// interpreter model is in lib/Interpreter/EvaluationModels.cpp and its
// lowering (to nothing: an alias of the operand) in
// lib/Conversion/WeftToRuntime/WeftToRuntime.cpp.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

using namespace mlir;
using namespace mlir::weft;

LogicalResult StopGradientOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "changes the shape or element type: " << in
                         << " -> " << out
                         << "; a stop_gradient is the identity";
  return success();
}

LogicalResult StopGradientOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyTypeSymbolUses(*this, tables);
}

SmallVector<std::string, 3> StopGradientOp::getTensorLetters() {
  // Elementwise: the same placeholder letter on each dimension of both.
  std::string letters = placeholderLetters(getType());
  return {letters, letters};
}

std::optional<ReductionKind> StopGradientOp::getReductionKind() {
  return std::nullopt;
}

bool StopGradientOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return true; // The identity: a partial sum, max or min passes through.
}

bool StopGradientOp::padsNeedZeroing(ArrayRef<char>) {
  return false; // The result's pads are the operand's.
}

LogicalResult StopGradientOp::buildGradients(OpBuilder &, Value,
                                             SmallVectorImpl<Value> &grads) {
  grads.push_back(Value()); // No cotangent reaches the operand.
  return success();
}

//===- ConvertOp.cpp - weft.convert, all of it in one file ----------------===//
//
// Everything the compiler's IR layer knows of weft.convert (a dtype cast):
// its verifier and folder, its symbol uses, its sharding rule (elementwise:
// the result has the operand's layout), how pads flow through it (zero
// converts to zero) and its gradient. The other contracts take their
// defaults (partitioning by the letter-map rule, the generic JSON
// export); its interpreter model is in lib/Interpreter/EvaluationModels.cpp
// and its lowering in lib/Conversion/WeftToRuntime/ComputePatterns.cpp.
// The first op kept in a file of its own rather than spread over the
// per-contract files (WeftOps.cpp, WeftPadding.cpp, WeftGradients.cpp):
// docs/design.md, "What a new op touches".
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::weft;

LogicalResult ConvertOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getShape() != out.getShape())
    return emitOpError() << "changes the shape: " << in << " -> " << out
                         << "; a convert changes the element type only";
  return success();
}

/// Whether every value of float type `from` is one of float type `to`, so
/// converting from `from` to `to` never rounds.
static bool isExact(Type from, Type to) {
  auto f = cast<FloatType>(from), t = cast<FloatType>(to);
  return llvm::APFloatBase::isRepresentableBy(f.getFloatSemantics(),
                                              t.getFloatSemantics());
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  // A convert to the operand's own type (layout included) is the operand.
  if (getInput().getType() == getType())
    return getInput();
  // convert(convert(x)) where the first step is exact: converting x
  // directly rounds once, as the pair did (x's value reached the second
  // step unchanged).
  auto inner = getInput().getDefiningOp<ConvertOp>();
  if (!inner || !isExact(getElementTypeOrSelf(inner.getInput().getType()),
                         getElementTypeOrSelf(inner.getType())))
    return {};
  if (inner.getInput().getType() == getType())
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  return getResult();
}

LogicalResult ConvertOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyTypeSymbolUses(*this, tables);
}

SmallVector<std::string, 3> ConvertOp::getTensorLetters() {
  // Elementwise: the same placeholder letter on each dimension of both.
  std::string letters = placeholderLetters(getType());
  return {letters, letters};
}

std::optional<ReductionKind> ConvertOp::getReductionKind() {
  return std::nullopt;
}

bool ConvertOp::acceptsPartialOperand(unsigned, ReductionKind kind) {
  // Rounding is monotone, so a partial max or min passes through; a sum
  // of rounded partials is not the rounded sum, so a partial sum is
  // reduced first, in the operand's type (the program's order decides the
  // precision a sum is reduced in).
  return kind != ReductionKind::Sum;
}

bool ConvertOp::padsNeedZeroing(ArrayRef<char>) {
  return false; // Zero converts to zero.
}

LogicalResult ConvertOp::buildGradients(OpBuilder &b, Value gy,
                                        SmallVectorImpl<Value> &grads) {
  // The identity's derivative, in the operand's type: the cotangent
  // converted back (rounded, when the operand's type is the narrower).
  auto in = cast<RankedTensorType>(getInput().getType());
  grads.push_back(ConvertOp::create(
      b, getLoc(), RankedTensorType::get(in.getShape(), in.getElementType()),
      gy));
  return success();
}

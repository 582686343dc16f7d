//===- OperationAttrVerification.cpp - Weft attributes on ops -------------===//
//
// The dialect's check of its discardable attributes on operations.
// `weft.vocab_size` bounds the ids that randomly drawn inputs use
// (lib/Interpreter/IdBound.cpp), so a value outside the table would draw
// ids that index past it. `weft.loss_seed` marks the backward's seed, which
// --weft-precision=policy=f16-mixed replaces by the loss scale: on any other
// op, or on a seed other than 1, the scaled gradients would be wrong
// without an error. `weft.finite_grads` belongs on a function result
// (GlobalTypeVerification.cpp), never on an op. The other attributes are
// informational (weft.reason, weft.bytes_per_device) or checked by the pass
// that reads them.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::weft;

/// `weft.loss_seed`: a unit attribute on a rank-0 float weft.constant 1.0.
static LogicalResult verifyLossSeed(Operation *op, NamedAttribute attr) {
  StringRef name = WeftDialect::LossSeedAttrHelper::getNameStr();
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitOpError()
           << name << " must be a unit attribute, got " << attr.getValue();
  auto constant = dyn_cast<ConstantOp>(op);
  auto type = constant ? dyn_cast<RankedTensorType>(constant.getType())
                       : RankedTensorType();
  if (!type || type.getRank() != 0 || !isa<FloatType>(type.getElementType()))
    return op->emitOpError()
           << name
           << " marks the seed of the backward (d loss / d loss), a rank-0 "
              "float weft.constant; it is not for this op";
  if (constant.getValue().convertToDouble() != 1.0)
    return op->emitOpError()
           << name << " marks the seed d loss / d loss, which is 1, not "
           << constant.getValue().convertToDouble();
  return success();
}

/// `weft.call_sites`: on the module, a dictionary from function names to
/// arrays of call locations as strings (weft-inline-calls writes it, the
/// comm report reads it).
static LogicalResult verifyCallSites(Operation *op, NamedAttribute attr) {
  auto error = [&]() {
    return op->emitOpError()
           << kCallSitesAttr
           << " records the calls weft-inline-calls flattened, a dictionary "
              "from function names to arrays of call locations as strings "
              "({layer = [\"m.mlir:33:8\"]}) on the module; got "
           << attr.getValue();
  };
  auto sites = dyn_cast<DictionaryAttr>(attr.getValue());
  if (!isa<ModuleOp>(op) || !sites)
    return error();
  for (NamedAttribute entry : sites) {
    auto calls = dyn_cast<ArrayAttr>(entry.getValue());
    if (!calls || !llvm::all_of(calls, llvm::IsaPred<StringAttr>))
      return error();
  }
  return success();
}

LogicalResult WeftDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == LossSeedAttrHelper::getNameStr())
    return verifyLossSeed(op, attr);
  if (attr.getName() == FiniteGradsAttrHelper::getNameStr())
    return op->emitOpError()
           << attr.getName().getValue()
           << " marks a function result (the step's overflow check), not "
              "an op";
  if (attr.getName() == kCallSitesAttr)
    return verifyCallSites(op, attr);
  if (attr.getName() != kVocabSizeAttr)
    return success();
  auto block = dyn_cast<BlockIndexedOpInterface>(op);
  if (!block)
    return op->emitOpError() << kVocabSizeAttr
                             << " is only for the block-indexed ops "
                                "(weft.embed, weft.scatter_add, "
                                "weft.one_hot, weft.iota)";
  auto n = dyn_cast<IntegerAttr>(attr.getValue());
  if (!n)
    return op->emitOpError() << kVocabSizeAttr << " must be an integer";
  // MLIR checks the dialect's attributes before the op's own verifier:
  // the block size reads the op's spec, which may not parse yet. An op
  // that fails its own verifier is left to it (it reports the error);
  // its diagnostics are held back here so they are not emitted twice.
  {
    ScopedDiagnosticHandler silence(op->getContext(),
                                    [](Diagnostic &) { return success(); });
    if (failed(op->getName().getRegisteredInfo()->verifyInvariants(op)))
      return success();
  }
  int64_t rows = getGlobalBlockSize(block);
  if (n.getValue().getSignificantBits() > 64 || n.getInt() < 1 ||
      n.getInt() > rows)
    return op->emitOpError()
           << kVocabSizeAttr << " = " << n << " is outside [1, " << rows
           << "], the op's vocabulary";
  return success();
}

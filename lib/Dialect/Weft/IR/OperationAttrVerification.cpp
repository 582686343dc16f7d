//===- OperationAttrVerification.cpp - Weft attributes on ops -------------===//
//
// The dialect's check of its discardable attributes on operations. Only
// `weft.vocab_size` has one: it bounds the ids that randomly drawn inputs
// use (lib/Interpreter/IdBound.cpp), so a value outside the table would
// draw ids that index past it. The other attributes are informational
// (weft.reason, weft.bytes_per_device) or checked by the pass that reads
// them.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::weft;

LogicalResult WeftDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
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

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

using namespace mlir;
using namespace mlir::weft;

LogicalResult WeftDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() != kVocabSizeAttr)
    return success();
  auto block = dyn_cast<BlockIndexedOpInterface>(op);
  if (!block)
    return op->emitOpError()
           << kVocabSizeAttr
           << " is only for the block-indexed ops (weft.embed, weft.scatter_add, "
              "weft.one_hot, weft.iota)";
  auto n = dyn_cast<IntegerAttr>(attr.getValue());
  if (!n)
    return op->emitOpError() << kVocabSizeAttr << " must be an integer";
  int64_t rows = getGlobalBlockSize(block);
  if (n.getValue().getSignificantBits() > 64 || n.getInt() < 1 ||
      n.getInt() > rows)
    return op->emitOpError()
           << kVocabSizeAttr << " = " << n
           << " is outside [1, " << rows << "], the op's vocabulary";
  return success();
}

//===- VerifyOps.cpp - Verification before --mesh and --unsharded ---------===//

#include "Driver.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace weftc {

LogicalResult verifyOps(ModuleOp module) {
  // Post-order: nested ops first, as the verifier does. A symbol table's own
  // verification checks every symbol use inside it, so it is skipped.
  WalkResult result = module.walk([](Operation *op) {
    if (op->hasTrait<OpTrait::SymbolTable>())
      return WalkResult::advance();
    return failed(verify(op, /*verifyRecursively=*/false))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace weftc

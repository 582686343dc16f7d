//===- IdBound.cpp - The bound of random embedding ids --------------------===//

#include "weft/Dialect/Weft/IR/IdBound.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/Limits.h"

#include "llvm/ADT/DenseSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::weft;

/// The ids `op` may look up: the logical vocabulary a padded one records
/// (--weft-pad-uneven), else the global block extent.
static int64_t vocabulary(BlockIndexedOpInterface op) {
  if (auto n = op->getAttrOfType<IntegerAttr>(kVocabSizeAttr))
    return n.getInt();
  return getGlobalBlockSize(op);
}

int64_t mlir::weft::getIdBound(func::FuncOp func, unsigned argIndex) {
  if (func.isExternal() || argIndex >= func.getNumArguments())
    return kDefaultIdBound;
  int64_t best = 0;
  SmallVector<Value> work{func.getArgument(argIndex)};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      // Ids are operand 0 of every block-indexed op that has operands.
      auto block = dyn_cast<BlockIndexedOpInterface>(user);
      if (block) {
        if (use.getOperandNumber() != 0)
          continue;
        int64_t vocab = vocabulary(block);
        if (vocab > 0 && (best == 0 || vocab < best))
          best = vocab;
      } else if (isa<ShardOp, SliceOp, ConcatOp, ReshapeOp>(user) ||
                 (isLocalViewOp(user) && user->getNumResults() == 1)) {
        // weft.shard, slice, concat, reshape and the collectives move ids
        // without changing them.
        work.push_back(user->getResult(0));
      }
    }
  }
  return best > 0 ? best : kDefaultIdBound;
}

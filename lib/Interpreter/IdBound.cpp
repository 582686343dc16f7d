//===- IdBound.cpp - The bound of random embedding ids --------------------===//

#include "weft/Interpreter/IdBound.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/Limits.h"

#include "llvm/ADT/DenseSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::weft;

/// The global vocabulary of `op`: its local size, times the group size of
/// its block axes in the local view (saturating; the verifier bounds both).
static int64_t vocabulary(BlockIndexedOpInterface op) {
  // A padded vocabulary (--weft-pad-uneven): only its first rows are ids.
  if (auto n = op->getAttrOfType<IntegerAttr>(kVocabSizeAttr))
    return n.getInt();
  int64_t rows = op.getLocalBlockSize();
  if (!op.getLocalBlockMesh() || !op.getLocalBlockAxes())
    return rows;
  auto mesh =
      SymbolTable::lookupNearestSymbolFrom<MeshOp>(op, op.getLocalBlockMesh());
  if (!mesh)
    return rows;
  SmallVector<int64_t> sizes{rows};
  for (Attribute axis : op.getLocalBlockAxes())
    if (std::optional<int64_t> size =
            mesh.getAxisSize(cast<StringAttr>(axis).getValue()))
      sizes.push_back(*size);
  return boundedProduct(sizes, std::numeric_limits<int64_t>::max())
      .value_or(std::numeric_limits<int64_t>::max());
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

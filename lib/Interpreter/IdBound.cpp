//===- IdBound.cpp - The bound of random embedding ids --------------------===//

#include "weft/Interpreter/IdBound.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/Limits.h"

#include "llvm/ADT/DenseSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::weft;

/// The global vocabulary of `embed`'s table: its rows, times the group size
/// of its `vocab` axes in the local view (saturating; the verifier bounds
/// both).
static int64_t vocabulary(EmbedOp embed) {
  int64_t rows = cast<RankedTensorType>(embed.getTable().getType()).getDimSize(0);
  if (!embed.getMeshAttr() || !embed.getVocabAxesAttr())
    return rows;
  auto mesh =
      SymbolTable::lookupNearestSymbolFrom<MeshOp>(embed, embed.getMeshAttr());
  if (!mesh)
    return rows;
  SmallVector<int64_t> sizes{rows};
  for (Attribute axis : embed.getVocabAxesAttr())
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
      if (auto embed = dyn_cast<EmbedOp>(user)) {
        if (use.getOperandNumber() != 0)
          continue;
        int64_t vocab = vocabulary(embed);
        if (vocab > 0 && (best == 0 || vocab < best))
          best = vocab;
      } else if (isa<ShardOp>(user) ||
                 (isLocalViewOp(user) && user->getNumResults() == 1)) {
        // weft.shard and the collectives move ids without changing them.
        work.push_back(user->getResult(0));
      }
    }
  }
  return best > 0 ? best : kDefaultIdBound;
}

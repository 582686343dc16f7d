//===- WeftPadding.cpp - how pads flow through each op (PadOpInterface) ---===//
//
// --weft-pad-uneven keeps every value's pads at 0 and asks each op whether
// its result keeps them so (docs/partitioning.md, "Uneven shards"):
//   - a product (einsum) or an elementwise map keeps zero pads on a letter
//     every operand carries; a padded result letter an operand lacks is a
//     broadcast, which can be inf * 0 = NaN there;
//   - a map kind with f(0) != 0 (exp, cos, shift, comparisons, ...) or
//     with 0/0 (div) writes other than 0;
//   - embed, one_hot: a padded letter of the ids (pad ids are 0, a valid
//     row) that the table lacks (a gather's batch letter reads the table's
//     zero pads);
//   - iota, random, a nonzero constant or fill, a scan, a selection: any
//     padded dimension;
//   - copies (shard, slice, concat, reshape), sums (reduce, scatter_add,
//     which adds the zero pads of its updates to row 0) keep them.
// And where pads cannot go at all: a slice's produced range, a concat's
// joined dimension, top_k's k.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/WeftOps.h"

using namespace mlir;
using namespace mlir::weft;

bool mlir::weft::padsNeedZeroingByLetters(Operation *op,
                                          ArrayRef<char> paddedLetters) {
  auto rule = cast<ShardingRuleOpInterface>(op);
  SmallVector<std::string, 3> tensors = rule.getTensorLetters();
  for (char c : paddedLetters)
    for (unsigned i = 0; i + 1 < tensors.size(); ++i)
      if (!StringRef(tensors[i]).contains(c))
        return true;
  return false;
}

/// Whether a map kind keeps zero pads zero: f(0) = 0 and f(0, 0) = 0
/// (MapKinds.def's `zero` column).
static bool keepsZero(MapOp op) {
  switch (getMapKindInfo(op.getKind()).zero) {
  case MapZero::Yes:
    return true;
  case MapZero::FiniteScalar:
    return op.getScalar() && op.getScalar()->isFinite();
  case MapZero::No:
    return false;
  }
  return false;
}

bool MapOp::padsNeedZeroing(ArrayRef<char> paddedLetters) {
  return !keepsZero(*this) || padsNeedZeroingByLetters(*this, paddedLetters);
}

/// A pad id is 0, a valid row: a padded ids letter reads row 0 unless the
/// table also has that letter (a gather's batch letter), whose pads are 0.
static bool padsIdsReadRowZero(Operation *op, ArrayRef<char> paddedLetters) {
  SmallVector<std::string, 3> tensors =
      cast<ShardingRuleOpInterface>(op).getTensorLetters();
  unsigned numOperands = tensors.size() - 1;
  return llvm::any_of(paddedLetters, [&](char c) {
    return StringRef(tensors[0]).contains(c) &&
           (numOperands < 2 || !StringRef(tensors[1]).contains(c));
  });
}

bool EmbedOp::padsNeedZeroing(ArrayRef<char> paddedLetters) {
  return padsIdsReadRowZero(*this, paddedLetters);
}

bool OneHotOp::padsNeedZeroing(ArrayRef<char> paddedLetters) {
  return padsIdsReadRowZero(*this, paddedLetters);
}

// Values of the global index: any padded dimension.
bool IotaOp::padsNeedZeroing(ArrayRef<char>) { return true; }
bool RandomOp::padsNeedZeroing(ArrayRef<char>) { return true; }
// A scan carries the line's sum into its pads; a selection moves values.
bool CumsumOp::padsNeedZeroing(ArrayRef<char>) { return true; }
bool TopKOp::padsNeedZeroing(ArrayRef<char>) { return true; }

bool ConstantOp::padsNeedZeroing(ArrayRef<char>) {
  return !getValue().isZero();
}
bool PadFillOp::padsNeedZeroing(ArrayRef<char>) { return !getFill().isZero(); }

// Copies: a slice or a concat keeps its operands' (zero) pads on every
// dimension but the one it moves along, which is never padded (refused);
// a reshape maps pads to pads (whole rows of a merged major letter).
// Sums add zeros.
bool ShardOp::padsNeedZeroing(ArrayRef<char>) { return false; }
bool ScatterAddOp::padsNeedZeroing(ArrayRef<char>) { return false; }
bool ReduceOp::padsNeedZeroing(ArrayRef<char>) { return false; }
bool SliceOp::padsNeedZeroing(ArrayRef<char>) { return false; }
bool ConcatOp::padsNeedZeroing(ArrayRef<char>) { return false; }
bool ReshapeOp::padsNeedZeroing(ArrayRef<char>) { return false; }

/// The refusal of a padded dimension `dim` of `v` that `op` moves along.
static LogicalResult
refusePads(Operation *op, Value v, int64_t dim, StringRef what,
           function_ref<int64_t(Value, unsigned)> paddedSize) {
  return op->emitOpError()
         << what << " dimension " << dim << " (size "
         << cast<RankedTensorType>(v.getType()).getDimSize(dim)
         << "), which a sharding splits over axes that do not divide it "
            "(it would be padded to "
         << paddedSize(v, dim)
         << "): split that dimension over axes that divide it, or none";
}

static bool isPadded(Value v, int64_t dim,
                     function_ref<int64_t(Value, unsigned)> paddedSize) {
  return paddedSize(v, dim) !=
         cast<RankedTensorType>(v.getType()).getDimSize(dim);
}

/// A slice reads a range of its input's dimension (the pads lie beyond
/// it) but must produce exactly its range.
LogicalResult
SliceOp::verifyPadding(function_ref<int64_t(Value, unsigned)> paddedSize) {
  if (isPadded(getResult(), getDim(), paddedSize))
    return refusePads(*this, getResult(), getDim(), "produces along",
                      paddedSize);
  return success();
}

/// A concat would put the pads of each operand between the next one's
/// elements.
LogicalResult
ConcatOp::verifyPadding(function_ref<int64_t(Value, unsigned)> paddedSize) {
  for (Value v : llvm::concat<Value>(getInputs(), getOperation()->getResults()))
    if (isPadded(v, getDim(), paddedSize))
      return refusePads(*this, v, getDim(), "joins along", paddedSize);
  return success();
}

/// weft.top_k selects exactly k: its k dimension cannot take pads (only a
/// user annotation splits it; propagation never does).
LogicalResult
TopKOp::verifyPadding(function_ref<int64_t(Value, unsigned)> paddedSize) {
  if (!isPadded(getResult(), getDim(), paddedSize))
    return success();
  return emitOpError() << "selects k = " << getK() << " along dim " << getDim()
                       << ", which a sharding splits over axes that "
                       << "do not divide it (it would be padded to "
                       << paddedSize(getResult(), getDim())
                       << "): split the selected dimension over axes that "
                          "divide k, or none";
}

bool TopKOp::computesLetterWhole(char letter) {
  return letter == kSelectedLetter;
}

FailureOr<std::optional<
    std::pair<SmallVector<std::string>, SmallVector<std::string>>>>
ReshapeOp::getDimGroups() {
  std::string error;
  auto groups = parseGroups(getSpec(), error);
  if (failed(groups))
    return failure();
  return std::optional(std::move(*groups));
}

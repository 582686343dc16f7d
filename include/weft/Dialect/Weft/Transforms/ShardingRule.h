//===- ShardingRule.h - the letters of an op, as propagation sees them -*-===//
//
// One rule for every index-letter op (and weft.shard, an identity over its
// letters): which tensors carry which letter on which dimension, which
// letters are reduced and how, and which operands may stay partial. The
// letters are the op's factors in Shardy's terms.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_SHARDINGRULE_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_SHARDINGRULE_H

#include "weft/Dialect/Weft/IR/MeshLayout.h"

#include "llvm/ADT/DenseMap.h"
#include <optional>

namespace mlir::weft {

/// letter -> ordered mesh axes splitting it.
using LetterMap = llvm::SmallDenseMap<char, AxisList, 8>;

class ShardingRule {
public:
  /// The rule of `op`, or std::nullopt if propagation does not know the op.
  static std::optional<ShardingRule> get(Operation *op);

  Operation *getOp() const { return op; }
  /// Every letter, in first-appearance order (operands, then result).
  StringRef getLetters() const { return letters; }
  /// Letters of tensor `i`: operands 0..n-1, then the result at n.
  StringRef getTensorLetters(unsigned i) const { return tensors[i]; }
  unsigned getNumOperands() const { return tensors.size() - 1; }
  unsigned getResultIndex() const { return tensors.size() - 1; }
  Value getTensor(unsigned i) const;
  /// How explanations name `letter`: the letter itself, or for weft.shard,
  /// whose letters are placeholders that could collide with the program's
  /// own, the dimension (`dim #1`).
  std::string letterName(char letter) const;
  bool isReduced(char letter) const;
  /// How reduced letters combine (sum for einsum and embed).
  std::optional<ReductionKind> getReductionKind() const { return reduction; }
  /// Whether operand `i` may stay partial with `kind` (the op is linear, or
  /// monotone for max/min, in that operand).
  bool acceptsPartial(unsigned i, ReductionKind kind) const;

  /// The operand that may stay partial under `letterMap`, given the current
  /// layouts of the operands (null where unknown), or -1: the first partial
  /// operand the op accepts whose partial axes no letter uses, and whose
  /// partial kind matches how the op combines split reduced letters.
  /// For a jointly linear op (add, sub: ShardingRuleOpInterface::
  /// isJointlyLinear) every operand must be a partial sum with the same
  /// axes; the result is then 0 and keepsPartial holds for every operand.
  int acceptedPartialOperand(ArrayRef<const Layout *> operandLayouts,
                             const LetterMap &letterMap) const;
  /// Whether operand `i` keeps its partial layout when
  /// acceptedPartialOperand gave `accepted`.
  bool keepsPartial(unsigned i, int accepted) const;

  /// The letter map weft-propagate recorded on `op` (`weft.split`).
  static FailureOr<LetterMap> readSplit(Operation *op);
  /// Whether propagation may split `letter` (ShardingRuleOpInterface::
  /// canSplitLetter, asked once per letter when the rule is built).
  bool canSplit(char letter) const {
    return !StringRef(unsplittable).contains(letter);
  }
  /// Whether `op` carries a `weft.split` letter map: every op with a
  /// sharding rule and operands, but weft.shard (whose layout is its type).
  static bool hasSplit(Operation *op);
  /// Records `letterMap` on `op` as `weft.split` (letters in spec order).
  void writeSplit(const LetterMap &letterMap) const;

  /// The layout tensor `i` must have under `letterMap` (never partial).
  Layout requiredLayout(unsigned i, const LetterMap &letterMap) const;
  /// The layout the op computes its result in under `letterMap`, given the
  /// partial operand it accepted (if any): reduced letters' axes and the
  /// accepted operand's partial axes become partial.
  Layout naturalResult(const LetterMap &letterMap,
                       const Layout *acceptedPartial) const;

private:
  Operation *op = nullptr;
  std::string letters;
  /// The letters canSplitLetter refuses (a reshape's minor letters, top_k's
  /// selected letter).
  std::string unsplittable;
  SmallVector<std::string, 3> tensors;
  std::optional<ReductionKind> reduction;
};

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_SHARDINGRULE_H

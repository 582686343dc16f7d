//===- ShardingRule.cpp - the letters of an op ----------------------------===//

#include "weft/Dialect/Weft/Transforms/ShardingRule.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/IndexSpec.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::weft;

std::optional<ShardingRule> ShardingRule::get(Operation *op) {
  auto iface = dyn_cast<ShardingRuleOpInterface>(op);
  if (!iface)
    return std::nullopt;
  ShardingRule rule;
  rule.op = op;
  rule.tensors = iface.getTensorLetters();
  if (rule.tensors.size() != op->getNumOperands() + 1)
    return std::nullopt; // A bad spec: the verifier has reported it.
  for (const std::string &t : rule.tensors)
    for (char c : t)
      if (!StringRef(rule.letters).contains(c))
        rule.letters.push_back(c);
  for (char c : rule.letters)
    if (!iface.canSplitLetter(c))
      rule.unsplittable.push_back(c);
  rule.reduction = iface.getReductionKind();
  return rule;
}

Value ShardingRule::getTensor(unsigned i) const {
  return i == getResultIndex() ? op->getResult(0) : op->getOperand(i);
}

std::string ShardingRule::letterName(char letter) const {
  if (isa<ShardOp>(op))
    return "dim #" + std::to_string(StringRef(letters).find(letter));
  return std::string(1, letter);
}

bool ShardingRule::isReduced(char letter) const {
  return !StringRef(tensors.back()).contains(letter);
}

bool ShardingRule::acceptsPartial(unsigned i, ReductionKind kind) const {
  return cast<ShardingRuleOpInterface>(op).acceptsPartialOperand(i, kind);
}

Layout ShardingRule::requiredLayout(unsigned i,
                                    const LetterMap &letterMap) const {
  Layout l;
  for (char c : tensors[i]) {
    auto it = letterMap.find(c);
    l.dims.push_back(it == letterMap.end() ? AxisList() : it->second);
  }
  return l;
}

Layout ShardingRule::naturalResult(const LetterMap &letterMap,
                                   const Layout *acceptedPartial) const {
  Layout l = requiredLayout(getResultIndex(), letterMap);
  if (acceptedPartial && acceptedPartial->isPartial()) {
    l.partialAxes = acceptedPartial->partialAxes;
    l.partialKind = acceptedPartial->partialKind;
  }
  for (char c : letters) {
    if (!isReduced(c))
      continue;
    auto it = letterMap.find(c);
    if (it == letterMap.end() || it->second.empty())
      continue;
    l.partialAxes.append(it->second.begin(), it->second.end());
    l.partialKind = *reduction;
  }
  return l;
}

bool ShardingRule::keepsPartial(unsigned i, int accepted) const {
  if (accepted < 0)
    return false;
  return int(i) == accepted ||
         cast<ShardingRuleOpInterface>(op).isJointlyLinear();
}

int ShardingRule::acceptedPartialOperand(
    ArrayRef<const Layout *> operandLayouts, const LetterMap &letterMap) const {
  // No letter may be split over an axis the partial value is partial over.
  auto clashes = [&](const Layout &layout) {
    for (auto &[c, axes] : letterMap)
      for (StringRef a : axes)
        if (llvm::is_contained(layout.partialAxes, a))
          return true;
    return false;
  };
  if (cast<ShardingRuleOpInterface>(op).isJointlyLinear()) {
    const Layout *first = operandLayouts.empty() ? nullptr : operandLayouts[0];
    if (!first || !first->isPartial() ||
        first->partialKind != ReductionKind::Sum || clashes(*first))
      return -1;
    for (const Layout *l : operandLayouts)
      if (!l || l->partialAxes != first->partialAxes ||
          l->partialKind != first->partialKind)
        return -1;
    return 0;
  }
  for (auto [i, layout] : llvm::enumerate(operandLayouts)) {
    if (!layout || !layout->isPartial() ||
        !acceptsPartial(i, layout->partialKind))
      continue;
    bool clash = false;
    for (auto &[c, axes] : letterMap) {
      for (StringRef a : axes)
        if (llvm::is_contained(layout->partialAxes, a))
          clash = true;
      if (isReduced(c) && !axes.empty() && reduction != layout->partialKind)
        clash = true;
    }
    if (!clash)
      return i;
  }
  return -1;
}

bool ShardingRule::hasSplit(Operation *op) {
  return isa<ShardingRuleOpInterface>(op) && op->getNumOperands() > 0 &&
         !isa<ShardOp>(op);
}

FailureOr<LetterMap> ShardingRule::readSplit(Operation *op) {
  auto dict = op->getAttrOfType<DictionaryAttr>(kSplitAttr);
  if (!dict)
    return failure();
  LetterMap map;
  for (NamedAttribute entry : dict) {
    auto axes = dyn_cast<ArrayAttr>(entry.getValue());
    if (entry.getName().size() != 1 || !axes)
      return failure();
    AxisList list;
    for (Attribute a : axes) {
      auto name = dyn_cast<StringAttr>(a);
      if (!name)
        return failure();
      list.push_back(name.getValue());
    }
    map[entry.getName().getValue()[0]] = list;
  }
  return map;
}

void ShardingRule::writeSplit(const LetterMap &letterMap) const {
  Builder b(op->getContext());
  SmallVector<NamedAttribute> entries;
  for (char c : letters) {
    auto it = letterMap.find(c);
    if (it == letterMap.end() || it->second.empty())
      continue;
    SmallVector<StringRef> axes(it->second.begin(), it->second.end());
    entries.push_back(
        b.getNamedAttr(std::string(1, c), b.getStrArrayAttr(axes)));
  }
  op->setAttr(kSplitAttr, b.getDictionaryAttr(entries));
}

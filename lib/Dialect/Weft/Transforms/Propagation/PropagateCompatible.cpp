//===- PropagateCompatible.cpp - compatible propagation -------------------===//

#include "Propagator.h"

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "weft-propagate"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::propagate;

bool Propagator::proposals(
    const ShardingRule &rule,
    llvm::SmallDenseMap<char, SmallVector<AxisList, 2>> &out) {
  bool conflict = false;
  for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
    const ValueState &s = states[rule.getTensor(i)];
    if (!s.layout)
      continue;
    StringRef letters = rule.getTensorLetters(i);
    for (auto [d, c] : llvm::enumerate(letters)) {
      const AxisList &axes = s.layout->dims[d];
      if (axes.empty() || !rule.canSplit(c))
        continue;
      SmallVector<AxisList, 2> &list = out[c];
      if (!llvm::is_contained(list, axes))
        list.push_back(axes);
      if (list.size() > 1)
        conflict = true;
    }
  }
  // One axis on two letters.
  llvm::StringMap<char> owner;
  for (char c : rule.getLetters()) {
    auto it = out.find(c);
    if (it == out.end())
      continue;
    for (const AxisList &axes : it->second)
      for (StringRef a : axes) {
        auto [o, inserted] = owner.try_emplace(a, c);
        if (!inserted && o->second != c)
          conflict = true;
      }
  }
  return !conflict;
}

int Propagator::acceptedOperand(const ShardingRule &rule,
                                const LetterMap &map) {
  SmallVector<const Layout *> layouts;
  for (unsigned i = 0; i < rule.getNumOperands(); ++i) {
    const ValueState &s = states[rule.getTensor(i)];
    layouts.push_back(s.layout);
  }
  return rule.acceptedPartialOperand(layouts, map);
}

void Propagator::propagateCompatible() {
  while (!worklist.empty()) {
    unsigned idx = worklist.top();
    worklist.pop();
    queued.reset(idx);
    Operation *op = order[idx];
    if (decided.test(idx))
      continue;
    const ShardingRule &rule = ruleOf(op);
    llvm::SmallDenseMap<char, SmallVector<AxisList, 2>> props;
    if (!proposals(rule, props)) {
      conflicted.insert(idx);
      continue;
    }
    conflicted.erase(idx);
    if (props.empty())
      continue;
    LetterMap map;
    for (auto &[c, list] : props)
      map[c] = list.front();
    int accepted = acceptedOperand(rule, map);
    for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
      Value v = rule.getTensor(i);
      if (states[v].layout)
        continue;
      Layout l = i == rule.getResultIndex()
                     ? rule.naturalResult(
                           map, accepted >= 0
                                    ? &*states[rule.getTensor(accepted)].layout
                                    : nullptr)
                     : rule.requiredLayout(i, map);
      if (l.getUsedAxes().empty())
        continue;
      setLayout(v, l, {Origin::Propagated, op});
    }
  }
}

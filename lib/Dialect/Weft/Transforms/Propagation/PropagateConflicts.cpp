//===- PropagateConflicts.cpp - deciding an op ----------------------------===//

#include "Propagator.h"

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "weft-propagate"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::propagate;

/// The last resort of decide(): a result fixed partial over more axes than
/// its operands split its reduced letters (weft-propagate's own plan for
/// T1's b1 gradient, re-propagated: x split b on data, the sum over b
/// annotated partial over data and model). No proposal names the extra
/// axes (a partial tensor proposes its dims only), so the result's partial
/// axes that no reduced letter's proposal holds are added to the reduced
/// letters: every way of placing them is priced (with one reduced letter
/// there is one), and the cheapest valid one taken. The operands then reach
/// their required layouts by local slices where they held the axes
/// nowhere, and the op's natural result is the annotated partial sum.
const Candidate *Propagator::decideFinerReduced(
    const ShardingRule &rule,
    llvm::SmallDenseMap<char, SmallVector<AxisList, 2>> &props,
    std::vector<Candidate> &candidates) {
  const ValueState &res = states[rule.getTensor(rule.getResultIndex())];
  if (!res.layout || !res.layout->isPartial())
    return nullptr;
  LetterMap map;
  llvm::StringSet<> used;
  for (char c : rule.getLetters()) {
    auto it = props.find(c);
    if (it == props.end() || rule.isReduced(c))
      continue;
    map[c] = it->second.front();
  }
  for (auto &[c, axes] : map)
    for (StringRef a : axes)
      if (!used.insert(a).second)
        return nullptr;
  SmallVector<char> reduced;
  for (char c : rule.getLetters())
    if (rule.isReduced(c) && rule.canSplit(c))
      reduced.push_back(c);
  if (reduced.empty())
    return nullptr;
  for (char c : reduced) {
    auto it = props.find(c);
    if (it == props.end())
      continue;
    for (StringRef a : it->second.front())
      if (!used.insert(a).second)
        return nullptr;
    map[c] = it->second.front();
  }
  SmallVector<StringRef> missing;
  for (StringRef a : res.layout->partialAxes)
    if (!used.contains(a))
      missing.push_back(a);
  // Every placement of the missing axes on the reduced letters (at most
  // letters^axes, a handful; bounded like decide()'s enumeration).
  size_t first = candidates.size();
  std::function<void(unsigned)> place = [&](unsigned k) {
    if (candidates.size() - first >= 512)
      return;
    if (k == missing.size()) {
      candidates.push_back(price(rule, map));
      return;
    }
    for (char c : reduced) {
      map[c].push_back(missing[k]);
      place(k + 1);
      map[c].pop_back();
      if (map[c].empty())
        map.erase(c);
    }
  };
  place(0);
  // Placements whose splits divide every dimension first: an uneven one
  // costs padding (weft-pad-uneven) for the same sum.
  const Candidate *best = nullptr;
  bool bestDivides = false;
  for (size_t i = first; i < candidates.size(); ++i) {
    const Candidate &c = candidates[i];
    if (!c.valid)
      continue;
    bool even = splitsEvenly(rule, c.letters, mesh);
    if (!best || (even && !bestDivides) ||
        (even == bestDivides && better(c, *best))) {
      best = &c;
      bestDivides = even;
    }
  }
  return best;
}

void Propagator::decide(Operation *op) {
  const ShardingRule &rule = ruleOf(op);
  // A letter map recorded by an earlier run (weft.split) wins ties, so
  // propagating a propagated program keeps it (docs/propagation.md, "Known
  // limits": idempotent).
  FailureOr<LetterMap> prior = failure();
  if (ShardingRule::hasSplit(op))
    prior = ShardingRule::readSplit(op);
  llvm::SmallDenseMap<char, SmallVector<AxisList, 2>> props;
  bool compatible = proposals(rule, props);

  // Where the op's tensors agree, their letters are followed, as GSPMD does:
  // the cost model arbitrates conflicts only. (Un-splitting an agreed letter
  // can send fewer bytes, e.g. all-gathering P8a's x and dy instead of
  // all-reducing dw, but replicates the op's compute on every device.)
  // Otherwise, enumerate letter maps: per letter, each proposal or nothing,
  // with no axis on two letters.
  std::string splitLetters;
  for (char c : rule.getLetters())
    if (props.count(c))
      splitLetters.push_back(c);
  std::vector<Candidate> candidates;
  LetterMap current;
  std::function<void(unsigned)> enumerate;
  enumerate = [&](unsigned k) {
    if (candidates.size() >= 512)
      return;
    if (k == splitLetters.size()) {
      candidates.push_back(price(rule, current));
      return;
    }
    char c = splitLetters[k];
    if (compatible) {
      current[c] = props[c].front();
      enumerate(k + 1);
      current.erase(c);
      return;
    }
    for (const AxisList &axes : props[c]) {
      bool clash = false;
      for (auto &[other, used] : current)
        for (StringRef a : axes)
          if (llvm::is_contained(used, a))
            clash = true;
      if (clash)
        continue;
      current[c] = axes;
      enumerate(k + 1);
      current.erase(c);
    }
    enumerate(k + 1);
  };
  enumerate(0);
  auto pickBest = [&]() -> const Candidate * {
    const Candidate *best = nullptr;
    for (const Candidate &c : candidates)
      if (c.valid && (!best || better(c, *best)))
        best = &c;
    return best;
  };
  const Candidate *best = pickBest();
  if (!best && compatible) {
    // The agreed letter map has no plan to layouts fixed earlier (e.g. a
    // result made partial before its other operand was known): price every
    // sub-map instead.
    compatible = false;
    candidates.clear();
    enumerate(0);
    best = pickBest();
  }
  if (!best)
    best = decideFinerReduced(rule, props, candidates);
  if (best && succeeded(prior)) {
    std::string key = letterMapStr(rule, *prior);
    for (const Candidate &c : candidates)
      if (c.valid && &c != best && !better(*best, c) &&
          letterMapStr(rule, c.letters) == key) {
        best = &c;
        break;
      }
  }
  if (!best) {
    op->emitOpError() << "weft-propagate found no letter map with a valid "
                         "resharding plan for this op (internal error; "
                         "please report it with this program)";
    undecidable = true;
    return;
  }
  decided.set(index[op]);
  WEFT_DEBUG({
    llvm::dbgs() << "[weft-propagate] decided " << op->getName() << " at "
                 << op->getLoc() << ": letters "
                 << letterMapStr(rule, best->letters) << ", cost "
                 << formatBytes(best->cost) << " per device, "
                 << candidates.size() << " candidate(s)\n";
    for (const Candidate &c : candidates)
      if (&c != best)
        llvm::dbgs() << "[weft-propagate]   not taken: "
                     << letterMapStr(rule, c.letters) << " "
                     << (c.valid ? formatBytes(c.cost) : std::string("no plan"))
                     << "\n";
  });
  if (ShardingRule::hasSplit(op))
    rule.writeSplit(best->letters);
  conflicted.erase(index[op]);

  // Record the reshards it pays for and fill unknown tensors.
  const LetterMap &map = best->letters;
  for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
    Value v = rule.getTensor(i);
    if (i == rule.getResultIndex()) {
      if (!states[v].layout)
        setLayout(
            v,
            rule.naturalResult(
                map,
                best->acceptedOperand >= 0
                    ? &*states[rule.getTensor(best->acceptedOperand)].layout
                    : nullptr),
            {Origin::Computed, op});
      continue;
    }
    Layout req = rule.requiredLayout(i, map);
    if (!states[v].layout) {
      setLayout(v, req, {Origin::Required, op});
      continue;
    }
    if (rule.keepsPartial(i, best->acceptedOperand)) {
      req.partialAxes = states[v].layout->partialAxes;
      req.partialKind = states[v].layout->partialKind;
    }
    if (*states[v].layout != req) {
      SmallVector<Layout, 0> &paid = requested[v];
      if (!llvm::is_contained(paid, req))
        paid.push_back(std::move(req));
    }
  }

  explainDecision(op, rule, candidates, best);
}

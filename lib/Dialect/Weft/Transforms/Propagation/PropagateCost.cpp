//===- PropagateCost.cpp - pricing a letter map ---------------------------===//

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

unsigned Propagator::sharersOf(Value v, const Layout &target, Operation *self) {
  if (target.isPartial())
    return 0;
  llvm::SmallPtrSet<Operation *, 4> counted;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (user == self || !index.count(user) || isDecided(user) ||
        !counted.insert(user).second)
      continue;
    const ShardingRule &rule = ruleOf(user);
    llvm::SmallDenseMap<char, SmallVector<AxisList, 2>> props;
    bool compatible = proposals(rule, props);
    StringRef letters = rule.getTensorLetters(use.getOperandNumber());
    bool possible = true;
    for (auto [d, c] : llvm::enumerate(letters)) {
      const AxisList &want = target.dims[d];
      auto it = props.find(c);
      if (compatible) // Its only letter map: each letter's one proposal.
        possible &=
            it == props.end() ? want.empty() : want == it->second.front();
      else // Any proposal, or nothing.
        possible &= want.empty() ||
                    (it != props.end() && llvm::is_contained(it->second, want));
    }
    if (!possible)
      counted.erase(user);
  }
  return counted.size();
}

Candidate Propagator::price(const ShardingRule &rule, const LetterMap &map) {
  Candidate c;
  c.letters = map;
  for (auto &[letter, axes] : map)
    c.axesUsed += axes.size();
  c.acceptedOperand = acceptedOperand(rule, map);
  auto addReshard = [&](Value v, const Layout &from, const Layout &to,
                        StringRef what, bool isOperand) {
    if (from == to)
      return;
    std::string why;
    auto type = cast<RankedTensorType>(v.getType());
    FailureOr<ReshardPlan> plan = planReshard(from, to, type, mesh, &why);
    if (failed(plan)) {
      c.valid = false;
      return;
    }
    double cost = planCost(*plan, weights);
    auto paid = requested.find(v);
    bool reused =
        paid != requested.end() && llvm::is_contained(paid->second, to);
    // An operand resharded to a layout that other undecided consumers may
    // also take is materialized once: each consumer bears its share.
    unsigned sharers =
        isOperand && !reused ? sharersOf(v, to, rule.getOp()) : 0;
    if (!reused)
      c.cost += cost / (1 + sharers);
    bool movesBytes = llvm::any_of(plan->steps, [](const ReshardStep &s) {
      return s.kind != ReshardStep::SliceShard;
    });
    if (states[v].fixed && movesBytes)
      ++c.fixedResharded;
    if (!explain)
      return;
    std::string line;
    llvm::raw_string_ostream os(line);
    os << what << " " << name(v) << " " << from.str() << " -> " << to.str()
       << ":";
    for (const ReshardStep &s : plan->steps) {
      os << " " << s.kindName() << " over " << axesStr(s.axes);
      if (s.dim >= 0)
        os << " dim " << s.dim;
      os << " (" << formatBytes(s.bytesPerDevice) << ")";
    }
    if (reused)
      os << " [already paid for by another consumer]";
    else if (sharers)
      os << " [shared with " << sharers << " other consumer(s): counted "
         << formatBytes(cost / (1 + sharers)) << "]";
    c.reshards.push_back(line);
  };
  for (unsigned i = 0; i < rule.getNumOperands(); ++i) {
    Value v = rule.getTensor(i);
    const ValueState &s = states[v];
    if (!s.layout)
      continue;
    Layout req = rule.requiredLayout(i, map);
    if (rule.keepsPartial(i, c.acceptedOperand)) {
      req.partialAxes = s.layout->partialAxes;
      req.partialKind = s.layout->partialKind;
    }
    addReshard(v, *s.layout, req,
               explain ? "operand #" + std::to_string(i) : std::string(),
               /*isOperand=*/true);
  }
  Value result = rule.getTensor(rule.getResultIndex());
  if (states[result].layout) {
    Layout natural = rule.naturalResult(
        map, c.acceptedOperand >= 0
                 ? &*states[rule.getTensor(c.acceptedOperand)].layout
                 : nullptr);
    addReshard(result, natural, *states[result].layout, "result",
               /*isOperand=*/false);
  }
  return c;
}

/// Strictly better: cheaper; then fewer annotated values resharded; then
/// more axes used.
bool mlir::weft::propagate::better(const Candidate &a, const Candidate &b) {
  double eps = 1e-9 * std::max({1.0, a.cost, b.cost});
  if (a.cost < b.cost - eps)
    return true;
  if (a.cost > b.cost + eps)
    return false;
  if (a.fixedResharded != b.fixedResharded)
    return a.fixedResharded < b.fixedResharded;
  return a.axesUsed > b.axesUsed;
}

bool mlir::weft::propagate::splitsEvenly(const ShardingRule &rule,
                                         const LetterMap &map,
                                         const Mesh &mesh) {
  for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
    auto type = cast<RankedTensorType>(rule.getTensor(i).getType());
    for (auto [d, c] : llvm::enumerate(rule.getTensorLetters(i))) {
      auto it = map.find(c);
      if (it != map.end() && !it->second.empty() &&
          type.getDimSize(d) % mesh.getGroupSize(it->second) != 0)
        return false;
    }
  }
  return true;
}

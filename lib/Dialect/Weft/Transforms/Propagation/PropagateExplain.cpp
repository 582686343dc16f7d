//===- PropagateExplain.cpp - explanations of weft-propagate --------------===//

#include "Propagator.h"

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/IR/SourceLines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "weft-propagate"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::propagate;

std::string mlir::weft::propagate::formatBytes(double bytes) {
  if (bytes >= 1024 * 1024)
    return llvm::formatv("{0:F2} MiB", bytes / (1024 * 1024)).str();
  if (bytes >= 1024)
    return llvm::formatv("{0:F1} KiB", bytes / 1024).str();
  return llvm::formatv("{0} B", int64_t(bytes)).str();
}

std::string mlir::weft::propagate::letterMapStr(const ShardingRule &rule,
                                                const LetterMap &map) {
  if (llvm::all_of(map, [](auto &entry) { return entry.second.empty(); }))
    return "{} (nothing split)";
  std::string s = "{";
  bool first = true;
  for (char c : rule.getLetters()) {
    auto it = map.find(c);
    if (it == map.end() || it->second.empty())
      continue;
    s += (first ? "" : ", ") + rule.letterName(c) + " = " + axesStr(it->second);
    first = false;
  }
  return s + "}";
}

std::string Propagator::name(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (asmState)
    v.printAsOperand(os, *asmState);
  return s;
}

static std::string describeOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName();
  os << atLine(op->getLoc());
  return s;
}

std::string Propagator::describeOrigin(Value v) {
  const Origin &o = states[v].origin;
  switch (o.kind) {
  case Origin::AnnotatedArgument:
    return name(v) + " (annotated argument)";
  case Origin::AnnotatedResult:
    return name(v) + " (annotated result of " + describeOp(o.by) + ")";
  case Origin::Propagated:
    return name(v) + ", propagated by " + describeOp(o.by);
  case Origin::Computed:
    return name(v) + ", computed by " + describeOp(o.by);
  case Origin::Required:
    return name(v) + ", required by " + describeOp(o.by);
  }
  return name(v);
}

void Propagator::explainDecision(Operation *op, const ShardingRule &rule,
                                 ArrayRef<Candidate> candidates,
                                 const Candidate *best) {
  totalCost += best->cost;
  if (!explain)
    return;
  const LetterMap &map = best->letters;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "letters " << letterMapStr(rule, map);
  for (char c : rule.getLetters()) {
    auto it = map.find(c);
    if (it == map.end() || it->second.empty())
      continue;
    // Which tensor proposed it.
    for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
      const ValueState &s = states[rule.getTensor(i)];
      size_t d = rule.getTensorLetters(i).find(c);
      if (d == StringRef::npos || !s.layout || s.layout->dims[d] != it->second)
        continue;
      os << "\n  " << rule.letterName(c) << " = " << axesStr(it->second)
         << " from " << describeOrigin(rule.getTensor(i));
      break;
    }
  }
  if (rule.getReductionKind())
    for (char c : rule.getLetters())
      if (rule.isReduced(c) && map.count(c) && !map.lookup(c).empty())
        os << "\n  reduced letter " << c << " is split: the local result is "
           << "partial " << stringifyReductionKind(*rule.getReductionKind())
           << " over " << axesStr(map.lookup(c));
  os << "\n  cost " << formatBytes(best->cost) << " per device";
  for (const std::string &line : best->reshards)
    os << "\n    " << line;
  if (candidates.size() > 1) {
    os << "\n  alternatives:";
    for (const Candidate &c : candidates) {
      if (&c == best)
        continue;
      os << "\n    " << letterMapStr(rule, c.letters) << ": "
         << (c.valid ? formatBytes(c.cost) : std::string("no plan"));
      if (c.valid && c.fixedResharded)
        os << ", reshards " << c.fixedResharded << " annotated value(s)";
    }
  }
  explanations[op] = text;
}

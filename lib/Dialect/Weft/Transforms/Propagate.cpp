//===- Propagate.cpp - the weft-propagate pass ----------------------------===//
//
// Completes every sharding of a function from its annotations. The pieces:
// ShardingRule (an op's letters), Reshard (what a layout change costs) and
// this driver: compatible propagation to a fixed point, then conflicts
// resolved one op at a time by cost, then the remaining choices.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/Reshard.h"
#include "weft/Dialect/Weft/Transforms/ShardingRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/BitVector.h"
#include <deque>
#include <queue>
#include <set>

#define DEBUG_TYPE "weft-propagate"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTPROPAGATE
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// Where a value's layout came from, for explanations (formatted only then).
struct Origin {
  enum Kind { AnnotatedArgument, AnnotatedResult, Propagated, Computed,
              Required } kind = Propagated;
  /// The op that gave the layout (none for an annotated argument).
  Operation *by = nullptr;
};

/// Kept small (the map of states is the pass's hottest data); layouts live
/// in a deque that never moves them.
struct ValueState {
  const Layout *layout = nullptr;
  bool fixed = false;
  Origin origin;
};

/// A priced letter map.
struct Candidate {
  LetterMap letters;
  double cost = 0;
  unsigned fixedResharded = 0;
  unsigned axesUsed = 0;
  int acceptedOperand = -1;
  bool valid = true;
  /// One line per reshard the candidate needs.
  SmallVector<std::string> reshards;
};

static std::string formatBytes(double bytes) {
  if (bytes >= 1024 * 1024)
    return llvm::formatv("{0:F2} MiB", bytes / (1024 * 1024)).str();
  if (bytes >= 1024)
    return llvm::formatv("{0:F1} KiB", bytes / 1024).str();
  return llvm::formatv("{0} B", int64_t(bytes)).str();
}

static std::string letterMapStr(const ShardingRule &rule, const LetterMap &map) {
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

class Propagator {
public:
  Propagator(func::FuncOp func, const MeshInfo &mesh,
             const AxisWeights &weights, bool explain)
      : func(func), mesh(mesh), weights(weights), explain(explain),
        asmState(explain ? std::make_unique<AsmState>(func) : nullptr) {}

  LogicalResult run();

private:
  LogicalResult collectAnnotations();
  LogicalResult computeOrder();
  void enqueueNeighbors(Value v);
  void propagateCompatible();
  /// Proposals per letter from the known tensors of `rule`; false on a
  /// conflict.
  bool proposals(const ShardingRule &rule,
                 llvm::SmallDenseMap<char, SmallVector<AxisList, 2>> &out);
  int acceptedOperand(const ShardingRule &rule, const LetterMap &map);
  Candidate price(const ShardingRule &rule, const LetterMap &map);
  /// How many undecided consumers of `v` other than `self` could take `v`
  /// in layout `target` (some letter map of theirs requires exactly it).
  unsigned sharersOf(Value v, const Layout &target, Operation *self);
  void decide(Operation *op);
  void setLayout(Value v, const Layout &layout, Origin origin);
  std::string describeOrigin(Value v);
  void writeBack();
  std::string name(Value v);

  func::FuncOp func;
  const MeshInfo &mesh;
  const AxisWeights &weights;
  bool explain;
  /// SSA names for explanations; built only with `explain`.
  std::unique_ptr<AsmState> asmState;

  llvm::DenseMap<Value, ValueState> states;
  std::deque<Layout> layoutStore;
  const Layout *store(Layout l) {
    return &layoutStore.emplace_back(std::move(l));
  }
  SmallVector<Operation *> order;
  llvm::DenseMap<Operation *, unsigned> index;
  /// The rule of each op, by canonical index.
  std::vector<ShardingRule> rules;
  const ShardingRule &ruleOf(Operation *op) {
    return rules[index.find(op)->second];
  }
  /// Ops whose letter map is chosen (by canonical index); the map itself
  /// is written on the op as `weft.split` right away.
  llvm::BitVector decided;
  bool isDecided(Operation *op) { return decided.test(index[op]); }
  /// Ops found in conflict by the last visit, by canonical index.
  std::set<unsigned> conflicted;
  /// Ops to revisit, smallest canonical index first; `queued` dedupes.
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>>
      worklist;
  llvm::BitVector queued;
  void enqueue(unsigned idx) {
    if (!queued.test(idx)) {
      queued.set(idx);
      worklist.push(idx);
    }
  }
  /// Set when an op could not be decided; the pass fails.
  bool undecidable = false;
  /// With `explain`: the text of each op's remark, emitted in program order.
  llvm::DenseMap<Operation *, std::string> explanations;
  double totalCost = 0;
  /// Reshards already paid for: (value, target layout).
  llvm::DenseMap<Value, SmallVector<Layout, 1>> requested;
};

} // namespace

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
  if (auto fileLoc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at line " << fileLoc.getLine();
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

void Propagator::setLayout(Value v, const Layout &layout,
                           Origin origin) {
  ValueState &s = states[v];
  s.layout = store(layout);
  s.origin = origin;
  enqueueNeighbors(v);
}

void Propagator::enqueueNeighbors(Value v) {
  if (Operation *def = v.getDefiningOp())
    if (index.count(def))
      enqueue(index[def]);
  for (Operation *user : v.getUsers())
    if (index.count(user))
      enqueue(index[user]);
}

LogicalResult Propagator::collectAnnotations() {
  for (BlockArgument arg : func.getArguments()) {
    if (ShardingAttr s = getSharding(arg.getType()))
      states[arg] = {store(Layout::fromAttr(s)), true,
                     {Origin::AnnotatedArgument, nullptr}};
  }
  // weft.shard constraints on one value must agree.
  llvm::DenseMap<Value, ShardOp> constraintOf;
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    for (Value r : op->getResults())
      if (ShardingAttr s = getSharding(r.getType()))
        states[r] = {store(Layout::fromAttr(s)), true,
                     {Origin::AnnotatedResult, op}};
    if (auto shard = dyn_cast<ShardOp>(op)) {
      auto [it, inserted] = constraintOf.try_emplace(shard.getInput(), shard);
      if (!inserted && getSharding(it->second.getType()) !=
                           getSharding(shard.getType())) {
        InFlightDiagnostic diag =
            shard.emitOpError()
            << "contradicts another weft.shard constraint on the same value: "
            << getSharding(shard.getType()) << " here, "
            << getSharding(it->second.getType()) << " there";
        diag.attachNote(it->second.getLoc()) << "the other constraint";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult Propagator::computeOrder() {
  // Size the maps once: rehashing maps of rules dominates on big programs.
  size_t numOps = func.getBody().front().getOperations().size();
  rules.reserve(numOps);
  index.reserve(numOps);
  states.reserve(numOps + func.getNumArguments());
  order.reserve(numOps);
  // Every op must be one propagation knows.
  for (Operation &op : func.getBody().getOps()) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (!ShardingRule::get(&op))
      return op.emitOpError() << "is not handled by weft-propagate (only weft "
                                 "index-letter ops and weft.shard are)";
  }
  if (!func.getBody().hasOneBlock())
    return func.emitOpError() << "weft functions have a single block";

  // Depth-first post-order from the return's operands, iteratively.
  llvm::DenseSet<Operation *> visited;
  auto visitFrom = [&](Operation *root) {
    if (isa<func::ReturnOp>(root) || !visited.insert(root).second)
      return;
    SmallVector<std::pair<Operation *, unsigned>> stack{{root, 0}};
    while (!stack.empty()) {
      auto &[op, next] = stack.back();
      if (next < op->getNumOperands()) {
        Operation *def = op->getOperand(next++).getDefiningOp();
        if (def && !isa<func::ReturnOp>(def) && visited.insert(def).second)
          stack.push_back({def, 0});
        continue;
      }
      index[op] = order.size();
      order.push_back(op);
      rules.push_back(*ShardingRule::get(op));
      stack.pop_back();
    }
  };
  Operation *ret = func.getBody().front().getTerminator();
  for (Value v : ret->getOperands())
    if (Operation *def = v.getDefiningOp())
      visitFrom(def);
  for (Operation &op : func.getBody().getOps())
    visitFrom(&op);
  return success();
}

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
      if (axes.empty())
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
      if (l.usedAxes().empty())
        continue;
      setLayout(v, l, {Origin::Propagated, op});
    }
  }
}

unsigned Propagator::sharersOf(Value v, const Layout &target,
                               Operation *self) {
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
        possible &= it == props.end() ? want.empty()
                                      : want == it->second.front();
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
    bool reused = llvm::is_contained(requested.lookup(v), to);
    // An operand resharded to a layout that other undecided consumers may
    // also take is materialized once: each consumer bears its share.
    unsigned sharers = isOperand && !reused ? sharersOf(v, to, rule.getOp())
                                            : 0;
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
    if (int(i) == c.acceptedOperand) {
      req.partial = s.layout->partial;
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
static bool better(const Candidate &a, const Candidate &b) {
  double eps = 1e-9 * std::max({1.0, a.cost, b.cost});
  if (a.cost < b.cost - eps)
    return true;
  if (a.cost > b.cost + eps)
    return false;
  if (a.fixedResharded != b.fixedResharded)
    return a.fixedResharded < b.fixedResharded;
  return a.axesUsed > b.axesUsed;
}

void Propagator::decide(Operation *op) {
  const ShardingRule &rule = ruleOf(op);
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
  if (isa<IndexLetterOpInterface>(op))
    rule.writeSplit(best->letters);
  conflicted.erase(index[op]);

  // Record the reshards it pays for and fill unknown tensors.
  const LetterMap &map = best->letters;
  for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
    Value v = rule.getTensor(i);
    if (i == rule.getResultIndex()) {
      if (!states[v].layout)
        setLayout(v,
                  rule.naturalResult(
                      map, best->acceptedOperand >= 0
                               ? &*states[rule.getTensor(best->acceptedOperand)]
                                      .layout
                               : nullptr),
                  {Origin::Computed, op});
      continue;
    }
    Layout req = rule.requiredLayout(i, map);
    if (!states[v].layout) {
      setLayout(v, req, {Origin::Required, op});
      continue;
    }
    if (int(i) == best->acceptedOperand) {
      req.partial = states[v].layout->partial;
      req.partialKind = states[v].layout->partialKind;
    }
    if (*states[v].layout != req && !llvm::is_contained(requested[v], req))
      requested[v].push_back(req);
  }

  if (!explain)
    return;
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
         << " from "
         << describeOrigin(rule.getTensor(i));
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
  totalCost += best->cost;
}

void Propagator::writeBack() {
  auto retype = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    ValueState &s = states[v];
    Layout l = s.layout ? *s.layout : Layout::replicated(type.getRank());
    v.setType(RankedTensorType::get(type.getShape(), type.getElementType(),
                                    l.toAttr(mesh.ref)));
  };
  for (BlockArgument arg : func.getArguments())
    if (isa<RankedTensorType>(arg.getType()))
      retype(arg);
  for (Operation *op : order) {
    for (Value r : op->getResults())
      retype(r);
  }

  Operation *ret = func.getBody().front().getTerminator();
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getBody().getArgumentTypes(),
                                         ret->getOperandTypes()));
}

LogicalResult Propagator::run() {
  if (failed(computeOrder()) || failed(collectAnnotations()))
    return failure();
  queued.resize(order.size());
  decided.resize(order.size());
  for (unsigned i = 0; i < order.size(); ++i)
    enqueue(i);
  propagateCompatible();
  // Resolve conflicts one at a time, in canonical order.
  while (true) {
    auto it = llvm::find_if(conflicted, [&](unsigned idx) {
      return !decided.test(idx);
    });
    if (it == conflicted.end())
      break;
    decide(order[*it]);
    if (undecidable)
      return failure();
    propagateCompatible();
  }
  for (Operation *op : order)
    if (!isDecided(op)) {
      decide(op);
      if (undecidable)
        return failure();
      propagateCompatible();
    }
  writeBack();
  if (explain) {
    for (Operation &op : func.getBody().getOps())
      if (explanations.count(&op))
        op.emitRemark() << explanations[&op];
    func.emitRemark() << "weft-propagate: " << order.size() << " op(s) on mesh "
                      << mesh.ref << ", estimated "
                      << formatBytes(totalCost)
                      << " sent per device (weighted)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct WeftPropagatePass
    : public weft::impl::WeftPropagateBase<WeftPropagatePass> {
  using WeftPropagateBase::WeftPropagateBase;

  LogicalResult parseWeights(AxisWeights &out) {
    for (const std::string &entry : axisWeights) {
      auto [axis, value] = StringRef(entry).split(':');
      double w;
      if (axis.empty() || value.getAsDouble(w) || w <= 0) {
        getOperation().emitError()
            << "bad axis-weights entry '" << entry
            << "' (expected axis:weight with a weight > 0)";
        return failure();
      }
      out.weights[axis] = w;
    }
    return success();
  }

  void runOnOperation() override {
    AxisWeights weights;
    if (failed(parseWeights(weights)))
      return signalPassFailure();
    SymbolTableCollection tables;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(verifyGlobalView(func, "weft-propagate")))
        return signalPassFailure();
      FailureOr<MeshOp> mesh = getFunctionMesh(func, tables);
      if (failed(mesh))
        return signalPassFailure();
      if (!*mesh)
        continue; // No mesh at all: nothing to shard.
      MeshInfo info(*mesh);
      Propagator propagator(func, info, weights, explain);
      if (failed(propagator.run()))
        return signalPassFailure();
    }
  }
};
} // namespace

//===- Propagator.h - weft-propagate's shared state -------------*- C++ -*-===//
//
// The propagation of one function, split by concern (docs/propagation.md):
//   PropagateState.cpp       value states, annotations, the canonical order,
//                            writing layouts back
//   PropagateCompatible.cpp  compatible propagation to a fixed point
//   PropagateCost.cpp        the cost model: pricing a letter map
//   PropagateConflicts.cpp   deciding an op: enumerate, price, choose
//   PropagateExplain.cpp     explanations (--weft-propagate=explain)
//   PropagateSearch.cpp      the global search over whole plans
//   PriceEmitted.cpp         what a plan costs once partitioned and combined
//   Propagate.cpp            the driver and the pass
// Private to lib/Dialect/Weft/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_LIB_DIALECT_WEFT_TRANSFORMS_PROPAGATOR_H
#define WEFT_LIB_DIALECT_WEFT_TRANSFORMS_PROPAGATOR_H

#include "weft/Dialect/Weft/Transforms/MachineProfile.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/PriceLocal.h"
#include "weft/Dialect/Weft/Transforms/Reshard.h"
#include "weft/Dialect/Weft/Transforms/ShardingRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Allocator.h"

#include <memory>
#include <queue>
#include <set>
#include <string>
#include <vector>

namespace mlir::weft::propagate {

/// Where a value's layout came from, for explanations (formatted only then).
struct Origin {
  enum Kind {
    AnnotatedArgument,
    AnnotatedResult,
    Propagated,
    Computed,
    Required
  } kind = Propagated;
  /// The op that gave the layout (none for an annotated argument).
  Operation *by = nullptr;
};

/// Kept small (the map of states is the pass's hottest data); layouts live
/// in a store that never moves them.
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

/// Whether candidate `a` is strictly better than `b` (PropagateCost.cpp).
bool better(const Candidate &a, const Candidate &b);
/// Whether every dimension `map` splits divides evenly over its axes (an
/// uneven split needs weft-pad-uneven's padding).
bool splitsEvenly(const ShardingRule &rule, const LetterMap &map,
                  const Mesh &mesh);
/// `1.5 MiB`, `24 B`: bytes for explanations.
std::string formatBytes(double bytes);
/// `{f = {"model"}}` or `{} (nothing split)`, letters named by `rule`.
std::string letterMapStr(const ShardingRule &rule, const LetterMap &map);

/// The global search's work bounds, weft-propagate's options of the same
/// names (docs/propagation.md, "Search limits"). Past one, the search keeps
/// fewer candidates or states and its remark says the plan was pruned.
struct SearchLimits {
  /// Most letter maps enumerated per op (the greedy map is always added).
  int64_t maxCandidates = 2048;
  /// Most transitions the beam DP makes per function.
  int64_t maxTransitions = 20000000;
  /// Most transitions the local search after the DP may spend.
  int64_t localSearchBudget = 4000000;
  /// Most transitions search=exhaustive tries per function.
  int64_t exhaustiveLimit = 20000000;
};

/// Whether the search compares its candidate plans by the program they emit
/// (PriceEmitted.cpp), and the combiner's threshold weftc runs with.
struct EmittedPricing {
  bool enabled = false;
  /// weft-combine-collectives' max-bytes (0: the combiner does not run)
  /// and per-call.
  int64_t combineBytes = 1 << 20;
  bool combinePerCall = true;
};

/// The price, under `profile`, of the program weftc emits from `func` as
/// its types now stand: weft-pad-uneven, weft-partition,
/// weft-optimize-collectives and weft-combine-collectives run on a copy.
/// Fails (silently) where the copy cannot be emitted alone: a function with
/// calls, or one the passes refuse.
FailureOr<LocalPrice> priceEmitted(func::FuncOp func,
                                   const MachineProfile &profile,
                                   int64_t combineBytes, bool combinePerCall);

class Propagator {
public:
  /// `search`: "greedy", "global" or "exhaustive" (PropagateSearch.cpp).
  Propagator(func::FuncOp func, const Mesh &mesh, const AxisWeights &weights,
             bool explain, StringRef search, const MachineProfile &profile,
             int64_t beam, bool freeBoundary, int64_t memoryBudget,
             bool reshardAnnotated, const SearchLimits &limits = {},
             const EmittedPricing &emitted = {})
      : func(func), mesh(mesh), weights(weights), explain(explain),
        searchMode(search), profile(profile), beam(beam),
        freeBoundary(freeBoundary), memoryBudget(memoryBudget),
        reshardAnnotated(reshardAnnotated), limits(limits), emitted(emitted),
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
  const Candidate *
  decideFinerReduced(const ShardingRule &rule,
                     llvm::SmallDenseMap<char, SmallVector<AxisList, 2>> &props,
                     std::vector<Candidate> &candidates);
  /// With `explain`: the remark text of `op`'s decision, every route
  /// priced and the one taken.
  void explainDecision(Operation *op, const ShardingRule &rule,
                       ArrayRef<Candidate> candidates, const Candidate *best);
  void setLayout(Value v, const Layout &layout, Origin origin);
  std::string describeOrigin(Value v);
  void writeBack();
  std::string name(Value v);
  /// Replaces the greedy plan by the global search's when it is cheaper
  /// under `profile` (PropagateSearch.cpp). With `freeBoundary` or a
  /// `memoryBudget` (bytes per device; 0: none), the unannotated arguments
  /// and results are choices too.
  LogicalResult globalSearch(const MachineProfile &profile, StringRef mode,
                             int64_t beam, int64_t memoryBudget);

  func::FuncOp func;
  const Mesh &mesh;
  const AxisWeights &weights;
  bool explain;
  std::string searchMode;
  const MachineProfile &profile;
  int64_t beam;
  bool freeBoundary;
  int64_t memoryBudget;
  /// Whether the global search may read an annotated value in another
  /// layout than its annotation (docs/propagation.md, "Annotations are
  /// intent").
  bool reshardAnnotated;
  SearchLimits limits;
  EmittedPricing emitted;
  /// With `explain`: the global search's summary, appended to the
  /// function's remark.
  std::string searchSummary;
  /// SSA names for explanations; built only with `explain`.
  std::unique_ptr<AsmState> asmState;

  llvm::DenseMap<Value, ValueState> states;
  /// Layouts never move once stored. A bump allocator, not a deque: a
  /// Layout is large, and libstdc++'s deque allocates a node per element
  /// of that size.
  llvm::SpecificBumpPtrAllocator<Layout> layoutStore;
  const Layout *store(Layout l) {
    return new (layoutStore.Allocate()) Layout(std::move(l));
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
  /// The letter maps a previous run recorded (`weft.split` on the input):
  /// the global search keeps them, so propagating a propagated program
  /// gives the same plan.
  llvm::DenseMap<Operation *, LetterMap> recordedSplits;
  /// Set when an op could not be decided; the pass fails.
  bool undecidable = false;
  /// With `explain`: the text of each op's remark, emitted in program order.
  llvm::DenseMap<Operation *, std::string> explanations;
  double totalCost = 0;
  /// Reshards already paid for: (value, target layout).
  /// (No inline element: a Layout is large, and this map has a bucket per
  /// resharded value.)
  llvm::DenseMap<Value, SmallVector<Layout, 0>> requested;
};

} // namespace mlir::weft::propagate

#endif // WEFT_LIB_DIALECT_WEFT_TRANSFORMS_PROPAGATOR_H

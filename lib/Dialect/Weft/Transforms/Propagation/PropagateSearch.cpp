//===- PropagateSearch.cpp - the global search over whole plans -----------===//
//
// weft-propagate's `search=global` (docs/propagation.md, "The global
// search"). The greedy propagation runs first; its plan is the baseline. The
// search then chooses every op's letter map (and every unannotated
// argument's layout) together, minimizing an estimate of the step time
// under a machine profile:
//
//   sum over ops of compute time (roofline: FLOPs of a contraction over the
//     profile's FLOP/s, bytes touched over its memory bandwidth, on the
//     local blocks the letter map leaves each device)
// + sum over the reshards the partitioner will insert of their collectives'
//   time (a latency plus bytes per device over the axes' bandwidth).
//
// A reshard of a value to a layout is paid once: later consumers wanting
// that layout reuse it, and every reshard starts from the cheapest layout
// of the value already materialized, as weft-partition does.
//
// Method: dynamic programming over the canonical order. A DP state holds,
// for every value live across the cut, its layout and the set of layouts
// already materialized (the reuse above); a transition chooses the next
// op's letter map. States with equal content merge (keeping the cheaper),
// so the search is exact (the optimum of the objective) whenever no layer
// exceeds `beam` states; otherwise the cheapest `beam` states are kept and
// the remark says so. The greedy plan is always evaluated too: the search
// returns it when it is not strictly cheaper, so the result is never worse
// than greedy under the objective. `search=exhaustive` enumerates every
// plan instead (the oracle of the tests; small programs only).
//
//===----------------------------------------------------------------------===//

#include "Propagator.h"

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/Transforms/MachineProfile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <thread>
#include <tuple>

#define DEBUG_TYPE "weft-propagate"

/// The location name of ZeRO-1's constraint of an updated parameter to its
/// own layout (Optimizer.cpp writes it, PropagateSearch.cpp reads it): the
/// search lets that update be computed in the state's layout and gathered.
static constexpr llvm::StringLiteral kZero1GatherLoc =
    "ZeRO-1 all-gather of the updated shard";

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::propagate;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Layout ids below this are tracked in a state's materialized set.
constexpr unsigned kMaskBits = 64;
/// Most nodes the enumeration of one op's letter maps visits.
constexpr uint64_t kMaxEnumerationNodes = 200000;
/// Most DP nodes kept for the trace back (16 bytes each).
constexpr uint64_t kMaxNodes = 1 << 24;
/// Most steps search=exhaustive recurses through.
constexpr size_t kMaxExhaustiveSteps = 2000;
/// Every step's first choice is greedy propagation's.
constexpr unsigned kGreedyChoice = 0;
/// Smallest saving (seconds) for which the search's plan replaces greedy's.
constexpr double kMinGainSeconds = 1e-8;
/// The probe that prices reading annotated values in other layouts keeps
/// at most this many states per layer (it only informs a note).
constexpr int64_t kProbeBeam = 256;
/// The note appears when the probe's plan is cheaper by more than this
/// fraction of the kept plan's estimate.
constexpr double kNoteSaving = 0.10;
/// ... and by at least this many seconds (0.1 us): savings below it are
/// below what the profile's figures can tell apart.
constexpr double kNoteMinSeconds = 1e-7;

/// A value the search gives a layout. Most values have a few layouts: the
/// per-id vectors keep four inline, and the map back from global ids is
/// built only past kLinearIds (a linear scan before).
constexpr unsigned kLinearIds = 8;
struct SValue {
  Value value;
  RankedTensorType type;
  /// Interned layouts (owned by Search::globalLayouts); an id is an index.
  SmallVector<const Layout *, 4> layouts;
  /// Per local id: the id over all values (Search::internGlobal), and back.
  SmallVector<int, 4> globalIds;
  llvm::DenseMap<int, int> idOfGlobal;
  /// The fixed layout's id (an annotation, or greedy's layout of the
  /// function's boundary), or -1.
  int fixedId = -1;
  /// Whether `fixedId` is the user's annotation (a typed argument or op
  /// result, a weft.shard), not a boundary the search keeps.
  bool annotated = false;
  /// A weft.param argument: its annotation is where it is stored and
  /// updated, and readers may gather it (FSDP); docs/propagation.md.
  bool param = false;
  /// The last step reading it (INT_MAX when the function returns it).
  int lastUse = -1;
  /// A function argument: resident for the whole step (the harness loads
  /// every input first), so its bytes count for the whole program.
  bool isArg = false;
  /// Per local id: bytes of one device's block.
  SmallVector<double, 4> bytes;
  /// Per local id: whether the layout splits a dimension unevenly.
  SmallVector<char, 4> uneven;
};

/// One choice of a step.
struct Choice {
  /// Owned by the Search (its per-signature templates or extraMaps).
  const LetterMap *map = nullptr;
  /// Seconds of the op's own work under `map` (0 for an argument).
  double compute = 0;
  /// Per operand: the layout id `map` requires (not partial).
  SmallVector<int, 3> required;
  /// The result's layout id when no operand stays partial (an argument
  /// step: the chosen layout).
  int natural = -1;
  /// Whether the choice reads every annotated operand in its annotated
  /// layout (of those the op can: docs/propagation.md, "Annotations are
  /// intent"). Only such choices are taken unless Search::keepAnnotations
  /// is off.
  bool keepsAnnotations = true;
  /// False when the op carries a letter map recorded by a previous run and
  /// this is not it: never taken.
  bool asRecorded = true;
};

/// An op, or the layout choice of an unannotated argument (placed just
/// before its first reader).
struct Step {
  Operation *op = nullptr;
  const ShardingRule *rule = nullptr;
  int result = -1;
  SmallVector<int, 3> operands;
  /// Choice kGreedyChoice is greedy propagation's.
  std::vector<Choice> choices;
  std::vector<int> dying;
};

struct Entry {
  uint32_t val;
  uint32_t id;
  uint64_t mask;
};
/// Live values by value index; with a memory budget, two more entries at
/// the end (kPermVal, kPeakVal) carry in `mask` the argument bytes chosen so
/// far and the largest other live bytes of any step so far.
using State = SmallVector<Entry, 8>;
constexpr uint32_t kPermVal = UINT32_MAX - 1;
constexpr uint32_t kPeakVal = UINT32_MAX;

/// A multiply-xorshift mix of one entry. A state's hash is the sum of its
/// entries' (wrapping), so a transition updates it by the entries it
/// changes instead of rehashing every live value (that was a fifth of
/// T2's compile).
uint64_t entryHash(const Entry &e) {
  uint64_t x = (uint64_t(e.val) << 32 | e.id) * 0x9e3779b97f4a7c15ull ^
               (e.mask * 0xff51afd7ed558ccdull);
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 29;
  return x;
}
uint64_t stateHash(const State &st) {
  uint64_t h = 0;
  for (const Entry &e : st)
    h += entryHash(e);
  return h;
}

/// What one transition changes in a state (Search::transition). The DP
/// keeps a candidate of the next layer as its parent state and this delta:
/// it builds (materialize) only the candidates that are neither merged nor
/// pruned, and compares candidates without building them. Copying the
/// parent for every transition, once more for every new state, and
/// comparing whole states was half of T2's propagation
/// (docs/propagation.md, "States as deltas"). Positions are indices in the
/// base state, found once by the transition.
struct Delta {
  /// (index, new mask): at most one per index.
  SmallVector<std::pair<unsigned, uint64_t>, 4> masks;
  /// The step's result, when it stays live (its value is never in the
  /// base: it is defined by the step), inserted before index `insertAt`.
  bool inserts = false;
  Entry inserted{0, 0, 0};
  unsigned insertAt = 0;
  /// Indices of the entries removed (the step's dying values), ascending.
  SmallVector<unsigned, 4> cuts;
  /// Entries of the state the delta makes.
  unsigned size = 0;

  void clear() {
    masks.clear();
    inserts = false;
    cuts.clear();
    size = 0;
  }
  uint64_t maskAt(const State &base, unsigned i) const {
    for (auto &[j, m] : masks)
      if (j == i)
        return m;
    return base[i].mask;
  }
  void setMask(unsigned i, uint64_t m) {
    for (auto &[j, old] : masks)
      if (j == i) {
        old = m;
        return;
      }
    masks.push_back({i, m});
  }
};

/// The entries of base + delta in order. The transition's memory check
/// walks it before the cuts are set, so it sees the dying values too.
class DeltaCursor {
public:
  DeltaCursor(const State &base, const Delta &d) : base(base), d(d) {}
  bool next(Entry &out) {
    while (true) {
      if (d.inserts && !insertedDone && i == d.insertAt) {
        insertedDone = true;
        out = d.inserted;
        return true;
      }
      if (i >= base.size())
        return false;
      unsigned at = i++;
      if (llvm::is_contained(d.cuts, at))
        continue;
      out = base[at];
      out.mask = d.maskAt(base, at);
      return true;
    }
  }

private:
  const State &base;
  const Delta &d;
  unsigned i = 0;
  bool insertedDone = false;
};

/// Index of the first entry of `st` (sorted by value) whose value is not
/// below `val`.
unsigned lowerIndex(const State &st, unsigned val) {
  return unsigned(
      llvm::lower_bound(st, val,
                        [](const Entry &a, unsigned v) { return a.val < v; }) -
      st.begin());
}

/// Writes base + delta to `out`: the base's runs between the entries the
/// delta drops are block copies (an entry-by-entry walk was a fifth of the
/// search).
void materialize(const State &base, const Delta &d, State &out) {
  out.resize_for_overwrite(d.size);
  Entry *o = out.data();
  auto copy = [&](unsigned from, unsigned to) {
    if (to > from)
      std::memcpy(o, base.data() + from, (to - from) * sizeof(Entry));
    o += to - from;
  };
  unsigned i = 0;
  bool pending = d.inserts;
  auto insertBefore = [&](unsigned end) {
    if (pending && d.insertAt >= i && d.insertAt <= end) {
      copy(i, d.insertAt);
      *o++ = d.inserted;
      i = d.insertAt;
      pending = false;
    }
  };
  for (unsigned cut : d.cuts) {
    insertBefore(cut);
    copy(i, cut);
    i = cut + 1;
  }
  insertBefore(base.size());
  copy(i, base.size());
  assert(o == out.data() + d.size && "the delta's size");
  // The new masks, at each entry's index in `out`.
  for (auto &[at, mask] : d.masks) {
    if (llvm::is_contained(d.cuts, at))
      continue;
    unsigned pos = at + (d.inserts && d.insertAt <= at ? 1 : 0);
    for (unsigned cut : d.cuts)
      pos -= cut < at ? 1 : 0;
    out[pos].mask = mask;
  }
}

/// Whether base + delta of one candidate equals another's, both of the
/// same step. Every state of a DP layer holds the same values (liveness
/// follows the step order, not the choices), so the two are equal when the
/// bases are, outside the entries either delta changes or drops: block
/// compares between those (the general walk when the bases differ in
/// size).
bool sameContent(const State &baseA, const Delta &dA, const State &baseB,
                 const Delta &dB) {
  if (dA.size != dB.size || dA.inserts != dB.inserts ||
      (dA.inserts && (dA.inserted.val != dB.inserted.val ||
                      dA.inserted.id != dB.inserted.id)))
    return false;
  if (baseA.size() != baseB.size()) {
    DeltaCursor a(baseA, dA), b(baseB, dB);
    Entry ea{0, 0, 0}, eb{0, 0, 0};
    while (a.next(ea)) {
      b.next(eb);
      if (ea.val != eb.val || ea.id != eb.id || ea.mask != eb.mask)
        return false;
    }
    return true;
  }
  SmallVector<unsigned, 8> special(dA.cuts.begin(), dA.cuts.end());
  for (auto &[at, mask] : dA.masks)
    special.push_back(at);
  for (auto &[at, mask] : dB.masks)
    special.push_back(at);
  llvm::sort(special);
  special.erase(std::unique(special.begin(), special.end()), special.end());
  unsigned i = 0;
  for (unsigned at : special) {
    if (at > i && std::memcmp(baseA.data() + i, baseB.data() + i,
                              (at - i) * sizeof(Entry)) != 0)
      return false;
    i = at + 1;
    if (baseA[at].val != baseB[at].val)
      return false;
    if (llvm::is_contained(dA.cuts, at))
      continue;
    if (baseA[at].id != baseB[at].id ||
        dA.maskAt(baseA, at) != dB.maskAt(baseB, at))
      return false;
  }
  return i >= baseA.size() ||
         std::memcmp(baseA.data() + i, baseB.data() + i,
                     (baseA.size() - i) * sizeof(Entry)) == 0;
}

std::string mapKey(const LetterMap &map) {
  std::vector<std::pair<char, std::string>> items;
  for (auto &[c, axes] : map) {
    if (axes.empty())
      continue;
    std::string s;
    for (StringRef a : axes)
      s += a.str() + ",";
    items.push_back({c, s});
  }
  llvm::sort(items);
  std::string key;
  for (auto &[c, s] : items)
    key += std::string(1, c) + ":" + s + ";";
  return key;
}

class Search {
public:
  Search(const Mesh &mesh, const MachineProfile &profile,
         const AxisWeights &weights, const SearchLimits &limits)
      : limits(limits), mesh(mesh), profile(profile), weights(weights) {}

  /// weft-propagate's max-candidates, max-transitions, local-search-budget
  /// and exhaustive-limit.
  SearchLimits limits;

  std::vector<SValue> values;
  std::vector<Step> steps;
  llvm::DenseMap<Value, int> valueIndex;
  /// Whether choices that read an annotated value in another layout are
  /// refused (the default; off with reshard-annotated, and for the probe
  /// that tells the user what an annotation costs).
  bool keepAnnotations = true;
  /// When set, apply() adds the bytes per device (times the axis weights)
  /// of every reshard it pays for: the summary's byte count of a plan.
  double *bytesSent = nullptr;

  int valueOf(Value v) {
    auto [it, inserted] = valueIndex.try_emplace(v, values.size());
    if (inserted) {
      SValue s;
      s.value = v;
      s.type = cast<RankedTensorType>(v.getType());
      values.push_back(std::move(s));
    }
    return it->second;
  }

  int intern(int val, const Layout &l) {
    return internId(val, internGlobal(l));
  }

  /// The local id of global layout `global` for `val`, added on first use.
  int internId(int val, int global) {
    SValue &s = values[val];
    if (s.globalIds.size() <= kLinearIds) {
      for (auto [id, g] : llvm::enumerate(s.globalIds))
        if (g == global)
          return id;
      if (s.globalIds.size() == kLinearIds)
        for (auto [id, g] : llvm::enumerate(s.globalIds))
          s.idOfGlobal[g] = id;
    }
    if (s.globalIds.size() >= kLinearIds) {
      auto [it, inserted] = s.idOfGlobal.try_emplace(global, s.layouts.size());
      if (!inserted)
        return it->second;
    }
    const Layout &l = globalLayouts[global];
    s.layouts.push_back(&l);
    s.globalIds.push_back(global);
    auto [bit, binserted] = blockCache.try_emplace(
        std::make_pair(s.type.getAsOpaquePointer(), global),
        std::make_pair(0.0, false));
    if (binserted) {
      bool uneven = false;
      for (unsigned d = 0; d < l.dims.size(); ++d)
        uneven |= s.type.getDimSize(d) % mesh.getGroupSize(l.dims[d]) != 0;
      bit->second = {blockBytes(s.type, l), uneven};
    }
    s.bytes.push_back(bit->second.first);
    s.uneven.push_back(bit->second.second);
    return s.layouts.size() - 1;
  }

  /// One id per distinct layout over all values: reshard costs are cached
  /// per (type, layout, layout), so the layers of a chain share them.
  int internGlobal(const Layout &l) {
    std::string key;
    for (const AxisList &dim : l.dims) {
      for (StringRef a : dim)
        key.append(a.data(), a.size()).push_back(',');
      key.push_back(';');
    }
    if (l.isPartial()) {
      key.push_back('|');
      for (StringRef a : l.partialAxes)
        key.append(a.data(), a.size()).push_back(',');
      key += std::to_string(int(l.partialKind));
    }
    auto [it, inserted] =
        globalLayoutIds.try_emplace(key, globalLayouts.size());
    if (inserted)
      globalLayouts.push_back(l);
    return it->second;
  }

  /// Seconds to reshard value `val` from layout `from` to `to` (kInf when
  /// no plan exists).
  double reshardSeconds(int val, int from, int to) {
    if (from == to)
      return 0;
    const SValue &s = values[val];
    auto key = std::make_tuple(s.type.getAsOpaquePointer(), s.globalIds[from],
                               s.globalIds[to]);
    auto it = reshardCache.find(key);
    if (it != reshardCache.end())
      return it->second;
    double t = 0;
    FailureOr<ReshardPlan> plan =
        planReshard(*s.layouts[from], *s.layouts[to], s.type, mesh);
    if (failed(plan)) {
      t = kInf;
    } else {
      for (const ReshardStep &step : plan->steps) {
        if (step.kind == ReshardStep::SliceShard ||
            mesh.getGroupSize(step.axes) == 1)
          continue;
        SmallVector<StringRef> axes(step.axes.begin(), step.axes.end());
        AxisLink link = profile.linkOf(axes);
        t += link.latencySeconds +
             step.bytesPerDevice * weights.of(axes) / link.bytesPerSecond;
      }
    }
    reshardCache[key] = t;
    return t;
  }

  /// Bytes per device (times the axis weights) of resharding `val` from
  /// `from` to `to`, as reshardSeconds prices them (not cached: reports).
  double reshardBytes(int val, int from, int to) {
    if (from == to)
      return 0;
    const SValue &s = values[val];
    FailureOr<ReshardPlan> plan =
        planReshard(*s.layouts[from], *s.layouts[to], s.type, mesh);
    double bytes = 0;
    if (succeeded(plan))
      for (const ReshardStep &step : plan->steps) {
        if (step.kind == ReshardStep::SliceShard ||
            mesh.getGroupSize(step.axes) == 1)
          continue;
        SmallVector<StringRef> axes(step.axes.begin(), step.axes.end());
        bytes += step.bytesPerDevice * weights.of(axes);
      }
    return bytes;
  }

  /// Whether a value computed in layout `primary` may not be resharded to
  /// `want`: a dimension split unevenly (padded by weft-pad-uneven, and
  /// every copy of the value keeps the pads) goes only to replicated or the
  /// same split, as the pads would not divide another group.
  bool unevenConflict(int val, int primary, int want) {
    const SValue &s = values[val];
    if (!s.uneven[primary])
      return false;
    const Layout &from = *s.layouts[primary], &to = *s.layouts[want];
    for (unsigned d = 0; d < from.dims.size(); ++d)
      if (s.type.getDimSize(d) % mesh.getGroupSize(from.dims[d]) != 0 &&
          !to.dims[d].empty() && to.dims[d] != from.dims[d])
        return true;
    return false;
  }

  /// Whether layout `id` of `val` splits a dimension unevenly.
  bool isUneven(int val, int id) const { return values[val].uneven[id]; }

  /// The id of layout `want` of `val` kept partial as layout `cur` is
  /// (an operand the op accepts partial), interned once per triple: the DP
  /// asks for it on every transition.
  int keepPartial(int val, int want, int cur) {
    auto [it, inserted] =
        keptPartial.try_emplace(std::make_tuple(val, want, cur), -1);
    if (inserted) {
      Layout req = *values[val].layouts[want];
      const Layout &from = *values[val].layouts[cur];
      req.partialAxes = from.partialAxes;
      req.partialKind = from.partialKind;
      it->second = intern(val, req);
    }
    return it->second;
  }

  /// Applies choice `c` of step `k` to `st`, adding its seconds to `cost`.
  /// False when the choice has no plan from `st`. `resultId` receives the
  /// layout id of the value the step defines.
  bool apply(State &st, unsigned k, unsigned c, double &cost,
             int *resultId = nullptr) {
    Delta d;
    if (!transition(st, k, c, cost, d, resultId))
      return false;
    materialize(st, d, applyScratch);
    std::swap(st, applyScratch);
    return true;
  }

  /// apply() without writing the new state: what it changes goes to `d`
  /// (cleared first). With `hash`, stateHash(st) on entry, updated to the
  /// new state's.
  bool transition(const State &st, unsigned k, unsigned c, double &cost,
                  Delta &d, int *resultId = nullptr, uint64_t *hash = nullptr) {
    Step &step = steps[k];
    const Choice &ch = step.choices[c];
    d.clear();
    // Entries are sorted by value index.
    auto find = [&](int val) -> int {
      unsigned at = lowerIndex(st, unsigned(val));
      return at < st.size() && st[at].val == unsigned(val) ? int(at) : -1;
    };
    int resId;
    if (!step.op) {
      resId = ch.natural;
    } else {
      const ShardingRule &rule = *step.rule;
      if (refused(step, ch))
        return false;
      cost += ch.compute;
      // Which operand stays partial (if any) depends on the operands'
      // current layouts.
      int accepted = -1;
      SmallVector<int, 3> entries;
      bool anyPartial = false;
      for (int val : step.operands) {
        int e = find(val);
        if (e < 0)
          return false; // Defined by nothing before (cannot happen).
        entries.push_back(e);
        anyPartial |= values[val].layouts[st[e].id]->isPartial();
      }
      if (anyPartial) {
        SmallVector<const Layout *, 3> layouts;
        for (auto [i, val] : llvm::enumerate(step.operands))
          layouts.push_back(values[val].layouts[st[entries[i]].id]);
        accepted = rule.acceptedPartialOperand(layouts, *ch.map);
      }
      for (auto [i, val] : llvm::enumerate(step.operands)) {
        const Entry &e = st[entries[i]];
        // An operand read twice sees the first read's reshard.
        uint64_t mask = d.maskAt(st, entries[i]);
        int want = ch.required[i];
        if (rule.keepsPartial(i, accepted))
          want = keepPartial(val, want, e.id);
        if (unsigned(want) == e.id ||
            (want < int(kMaskBits) && (mask >> want) & 1))
          continue;
        if (unevenConflict(val, e.id, want))
          return false;
        double best = reshardSeconds(val, e.id, want);
        int bestFrom = e.id;
        for (unsigned b = 0; b < kMaskBits && mask >> b; ++b)
          if ((mask >> b) & 1) {
            double t = reshardSeconds(val, b, want);
            if (t < best) {
              best = t;
              bestFrom = b;
            }
          }
        if (best == kInf)
          return false;
        cost += best;
        if (bytesSent)
          *bytesSent += reshardBytes(val, bestFrom, want);
        // A value with a padded dimension is not shared between readers:
        // weft-pad-uneven may clear its pads differently for each (0 for a
        // sum, -inf for a max), and each then reshards its own copy.
        if (want < int(kMaskBits) && !isUneven(val, e.id)) {
          uint64_t grown = mask | uint64_t(1) << want;
          if (hash)
            *hash += entryHash({e.val, e.id, grown}) -
                     entryHash({e.val, e.id, mask});
          d.setMask(entries[i], grown);
        }
      }
      resId = ch.natural;
      if (accepted >= 0) {
        const Layout &acc =
            *values[step.operands[accepted]].layouts[st[entries[accepted]].id];
        auto key = std::make_tuple(int(k), int(c), accepted,
                                   int(st[entries[accepted]].id));
        auto [it, inserted] = naturalWithPartial.try_emplace(key, -1);
        if (inserted)
          it->second = intern(step.result, rule.naturalResult(*ch.map, &acc));
        resId = it->second;
      }
      const SValue &res = values[step.result];
      if (res.fixedId < 0 && res.lastUse == std::numeric_limits<int>::max() &&
          res.layouts[resId]->isPartial()) {
        // A returned value the search lays out (a free boundary) is never
        // partial: the function's caller reads whole values.
        auto [it, inserted] =
            wholeOf.try_emplace(std::make_pair(step.result, resId), -1);
        if (inserted) {
          Layout whole = *res.layouts[resId];
          whole.partialAxes.clear();
          it->second = intern(step.result, whole);
        }
        int wholeId = it->second;
        double t = reshardSeconds(step.result, resId, wholeId);
        if (t == kInf)
          return false;
        cost += t;
        if (bytesSent)
          *bytesSent += reshardBytes(step.result, resId, wholeId);
        resId = wholeId;
      }
      if (res.fixedId >= 0 && res.fixedId != resId) {
        double t = reshardSeconds(step.result, resId, res.fixedId);
        if (t == kInf)
          return false;
        cost += t;
        if (bytesSent)
          *bytesSent += reshardBytes(step.result, resId, res.fixedId);
        resId = res.fixedId;
      }
    }
    if (resultId)
      *resultId = resId;
    bool resultLive = values[step.result].lastUse > int(k);
    d.size = st.size();
    if (resultLive) {
      d.inserts = true;
      d.inserted = {unsigned(step.result), unsigned(resId), 0};
      d.insertAt = lowerIndex(st, d.inserted.val);
      ++d.size;
      if (hash)
        *hash += entryHash(d.inserted);
    }
    if (memoryBudget > 0 && !withinBudget(st, d, step, resId, resultLive, hash))
      return false;
    // step.dying is sorted by value, so the cuts are ascending.
    for (int val : step.dying) {
      int e = find(val);
      if (e < 0)
        continue;
      d.cuts.push_back(e);
      --d.size;
      if (hash)
        *hash -= entryHash({st[e].val, st[e].id, d.maskAt(st, e)});
    }
    return true;
  }

  /// Whether apply() refuses choice `ch` of `step` whatever the state: a
  /// letter map other than the one a previous run recorded, or one that
  /// reads an annotated value in another layout while annotations are
  /// kept. The DP skips these before copying a state.
  bool refused(const Step &step, const Choice &ch) const {
    return step.op &&
           (!ch.asRecorded || (keepAnnotations && !ch.keepsAnnotations));
  }

  /// The memory side of a step (with a budget): the bytes live while it
  /// runs (every live value's block and the copies of it materialized so
  /// far, the operands it frees still held, its result) plus every
  /// argument's block must fit. Updates the state's running figures.
  /// `st` + `d` is the state before the step's dying values go; the
  /// running figures' new values go to `d` (and `hash`).
  bool withinBudget(const State &st, Delta &d, const Step &step, int resId,
                    bool resultLive, uint64_t *hash) {
    unsigned permAt = st.size() - 2, peakAt = st.size() - 1;
    auto setFigure = [&](unsigned at, uint64_t value) {
      if (hash)
        *hash += entryHash({st[at].val, st[at].id, value}) -
                 entryHash({st[at].val, st[at].id, d.maskAt(st, at)});
      d.setMask(at, value);
    };
    double permBytes = double(d.maskAt(st, permAt));
    uint64_t peak = d.maskAt(st, peakAt);
    const SValue &res = values[step.result];
    if (!step.op) {
      // An argument's block is resident from the start: it adds to the
      // largest step seen so far too.
      permBytes += res.bytes[resId];
      setFigure(permAt, uint64_t(permBytes));
      return permBytes + double(peak) <= memoryBudget;
    }
    double live = resultLive ? 0 : res.bytes[resId];
    DeltaCursor cursor(st, d); // No cuts yet: the dying values count.
    Entry e;
    while (cursor.next(e)) {
      if (e.val >= kPermVal)
        continue;
      const SValue &v = values[e.val];
      if (!v.isArg)
        live += v.bytes[e.id];
      for (unsigned b = 0; b < kMaskBits && e.mask >> b; ++b)
        if ((e.mask >> b) & 1)
          live += v.bytes[b];
    }
    setFigure(peakAt, std::max(peak, uint64_t(live)));
    return permBytes + live <= memoryBudget;
  }

  /// The state before the first step.
  State initialState() const {
    State st;
    if (memoryBudget > 0) {
      st.push_back({kPermVal, 0, 0});
      st.push_back({kPeakVal, 0, 0});
    }
    return st;
  }

  /// With a budget: the estimated peak of `st` at the end of a plan.
  double peakOf(const State &st) const { return peakOf(st, Delta()); }
  /// ... of `st` + `d`.
  double peakOf(const State &st, const Delta &d) const {
    return memoryBudget > 0 ? double(d.maskAt(st, st.size() - 2)) +
                                  double(d.maskAt(st, st.size() - 1))
                            : 0;
  }

  /// Bytes per device a plan may hold at once (0: no limit).
  double memoryBudget = 0;
  /// apply()'s buffer for the state it builds.
  State applyScratch;

  /// The objective of a whole plan, or nullopt when it has no plan.
  std::optional<double> evaluate(ArrayRef<unsigned> plan,
                                 SmallVectorImpl<int> *resultIds = nullptr,
                                 double *peak = nullptr) {
    State st = initialState();
    double cost = 0;
    for (unsigned k = 0; k < steps.size(); ++k) {
      int id = -1;
      if (!apply(st, k, plan[k], cost, &id))
        return std::nullopt;
      if (resultIds)
        resultIds->push_back(id);
    }
    if (peak)
      *peak = peakOf(st);
    return cost;
  }

  struct Result {
    std::vector<unsigned> plan;
    double cost = kInf;
    bool pruned = false;
    uint64_t states = 0;
  };

  Result dynamicProgram(int64_t beam) {
    struct Node {
      double cost;
      int parent;
      unsigned choice;
    };
    std::vector<std::vector<Node>> layers(steps.size());
    std::vector<State> cur{initialState()};
    std::vector<int> curNode{-1};
    std::vector<double> curCost{0};
    std::vector<uint64_t> curHash{stateHash(cur[0])};
    Result r;
    // States of the next layer by content: hash -> first index, then a
    // chain through `sameHash`. Hashes are stateHash's, kept per state and
    // updated by apply(); the top bit cleared: DenseMap reserves ~0 and
    // ~0 - 1.
    llvm::DenseMap<uint64_t, unsigned> seen;
    std::vector<int> sameHash;
    std::vector<uint64_t> nextHash;
    // The next layer's states, unbuilt: a state of this layer and what the
    // transition changes (only the states the beam keeps are built).
    struct Candidate {
      unsigned parent;
      Delta delta;
    };
    std::vector<Candidate> next;
    std::vector<Node> nodes;
    Delta d;
    // States no layer holds any more, kept for their heap buffers (states
    // of more than 8 live values): a new state of the next layer reuses
    // one instead of allocating (allocation was a sixth of T2's compile).
    std::vector<State> spare;
    auto recycle = [&](std::vector<State> &states) {
      for (State &x : states)
        if (x.capacity() > 8)
          spare.push_back(std::move(x));
      states.clear();
    };
    uint64_t transitionsLeft = uint64_t(limits.maxTransitions);
    // The nodes kept for the trace back bound every layer's states.
    beam = std::min<int64_t>(
        beam,
        std::max<int64_t>(16, kMaxNodes / std::max<size_t>(1, steps.size())));
    for (unsigned k = 0; k < steps.size(); ++k) {
      seen.clear();
      // Keep the work bounded: the states this layer may expand, given the
      // transitions left for the remaining layers.
      uint64_t perLayer = transitionsLeft / (steps.size() - k);
      uint64_t cap = std::max<uint64_t>(
          1, perLayer / std::max<size_t>(1, steps[k].choices.size()));
      if (cur.size() > cap) {
        r.pruned = true;
        std::vector<unsigned> order(cur.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(
            order.begin(), order.end(),
            [&](unsigned a, unsigned b) { return curCost[a] < curCost[b]; });
        order.resize(cap);
        std::vector<State> keptStates;
        std::vector<int> keptNodes;
        std::vector<double> keptCosts;
        std::vector<uint64_t> keptHashes;
        for (unsigned i : order) {
          keptStates.push_back(std::move(cur[i]));
          keptNodes.push_back(curNode[i]);
          keptCosts.push_back(curCost[i]);
          keptHashes.push_back(curHash[i]);
        }
        // The states left behind keep their buffers for this layer's new
        // states (freeing them here and allocating again was most of the
        // DP's malloc and free).
        recycle(cur);
        cur = std::move(keptStates);
        curNode = std::move(keptNodes);
        curCost = std::move(keptCosts);
        curHash = std::move(keptHashes);
      }
      uint64_t work = cur.size() * steps[k].choices.size();
      transitionsLeft -= std::min(transitionsLeft, work);
      next.clear();
      nodes.clear();
      sameHash.clear();
      nextHash.clear();
      for (unsigned s = 0; s < cur.size(); ++s) {
        for (unsigned c = 0; c < steps[k].choices.size(); ++c) {
          if (refused(steps[k], steps[k].choices[c]))
            continue;
          double cost = curCost[s];
          uint64_t hash = curHash[s];
          if (!transition(cur[s], k, c, cost, d, nullptr, &hash))
            continue;
          auto [it, inserted] = seen.try_emplace(hash >> 1, next.size());
          int found = -1;
          if (!inserted) {
            int last = it->second;
            for (int i = last; i >= 0; i = sameHash[i]) {
              last = i;
              if (sameContent(cur[next[i].parent], next[i].delta, cur[s], d)) {
                found = i;
                break;
              }
            }
            if (found < 0)
              sameHash[last] = next.size();
          }
          if (found < 0) {
            next.push_back({s, d});
            nodes.push_back({cost, curNode[s], c});
            sameHash.push_back(-1);
            nextHash.push_back(hash);
          } else if (cost < nodes[found].cost -
                                1e-12 * std::max(1.0, std::abs(cost))) {
            nodes[found] = {cost, curNode[s], c};
          }
        }
      }
      r.states += next.size();
      if (next.empty())
        return r; // No plan (cost stays infinite).
      std::vector<unsigned> keep(next.size());
      std::iota(keep.begin(), keep.end(), 0);
      if (int64_t(next.size()) > beam) {
        r.pruned = true;
        std::stable_sort(keep.begin(), keep.end(), [&](unsigned a, unsigned b) {
          return nodes[a].cost < nodes[b].cost;
        });
        if (memoryBudget > 0) {
          // Under a budget the cheapest states are often the largest: keep
          // half by time, half by the memory they hold so far.
          int64_t half = beam / 2;
          std::vector<unsigned> lean(keep.begin() + half, keep.end());
          std::stable_sort(lean.begin(), lean.end(),
                           [&](unsigned a, unsigned b) {
                             return peakOf(cur[next[a].parent], next[a].delta) <
                                    peakOf(cur[next[b].parent], next[b].delta);
                           });
          keep.resize(half);
          keep.insert(keep.end(), lean.begin(),
                      lean.begin() +
                          std::min<int64_t>(beam - half, lean.size()));
        } else {
          keep.resize(beam);
        }
      }
      std::vector<State> built;
      built.reserve(keep.size());
      for (unsigned i : keep) {
        built.emplace_back();
        if (!spare.empty()) {
          built.back() = std::move(spare.back());
          spare.pop_back();
        }
        materialize(cur[next[i].parent], next[i].delta, built.back());
      }
      recycle(cur);
      cur = std::move(built);
      curNode.clear();
      curCost.clear();
      curHash.clear();
      for (unsigned i : keep) {
        curNode.push_back(layers[k].size());
        curCost.push_back(nodes[i].cost);
        curHash.push_back(nextHash[i]);
        layers[k].push_back(nodes[i]);
      }
    }
    unsigned best = 0;
    for (unsigned i = 1; i < curCost.size(); ++i)
      if (curCost[i] < curCost[best])
        best = i;
    r.cost = curCost[best];
    r.plan.assign(steps.size(), 0);
    int node = curNode[best];
    for (int k = steps.size() - 1; k >= 0; --k) {
      r.plan[k] = layers[k][node].choice;
      node = layers[k][node].parent;
    }
    return r;
  }

  /// Local search after the beam: changes one step's choice at a time
  /// (the rest of the plan held), keeping any change that lowers the
  /// objective, until no single change does or `budget` transitions are
  /// spent. States before every step of the current plan are kept, so a
  /// change at step k replays only steps k onwards. Returns whether `plan`
  /// changed; `cost` is updated, `converged` says whether it stopped at a
  /// local optimum (not the budget).
  bool improveLocally(std::vector<unsigned> &plan, double &cost,
                      uint64_t budget, bool &converged) {
    unsigned n = steps.size();
    std::vector<State> before(n + 1);
    std::vector<double> costBefore(n + 1, 0);
    auto replayFrom = [&](unsigned from) {
      for (unsigned k = from; k < n; ++k) {
        before[k + 1] = before[k];
        costBefore[k + 1] = costBefore[k];
        bool ok = apply(before[k + 1], k, plan[k], costBefore[k + 1]);
        (void)ok;
        assert(ok && "the current plan replays");
      }
    };
    before[0] = initialState();
    replayFrom(0);
    cost = costBefore[n];
    bool changed = false;
    uint64_t spent = n;
    State st;
    converged = false;
    while (true) {
      bool improved = false;
      for (unsigned k = 0; k < n; ++k) {
        if (steps[k].choices.size() < 2)
          continue;
        for (unsigned c = 0; c < steps[k].choices.size(); ++c) {
          if (c == plan[k])
            continue;
          if (spent > budget)
            return changed;
          st = before[k];
          double alt = costBefore[k];
          bool ok = apply(st, k, c, alt);
          ++spent;
          for (unsigned j = k + 1; ok && j < n && alt < cost; ++j, ++spent)
            ok = apply(st, j, plan[j], alt);
          if (!ok || alt >= cost * (1 - 1e-9) - 1e-15)
            continue;
          plan[k] = c;
          replayFrom(k);
          spent += n - k;
          cost = costBefore[n];
          changed = improved = true;
        }
      }
      if (!improved) {
        converged = true;
        return changed;
      }
    }
  }

  /// Every plan, depth first (the oracle of the DP: independent of its
  /// state merging and beam). A branch is cut only when its cost so far
  /// already exceeds the best complete plan's (every term is >= 0, so
  /// this stays exact). Fails past `limit` transitions.
  FailureOr<Result> exhaustive(uint64_t limit) {
    Result r;
    std::vector<unsigned> plan(steps.size());
    uint64_t visited = 0;
    bool overflow = false;
    std::function<void(unsigned, const State &, double)> visit =
        [&](unsigned k, const State &st, double cost) {
          if (overflow || cost > r.cost)
            return;
          if (k == steps.size()) {
            if (cost < r.cost) {
              r.cost = cost;
              r.plan = plan;
            }
            return;
          }
          for (unsigned c = 0; c < steps[k].choices.size(); ++c) {
            if (++visited > limit) {
              overflow = true;
              return;
            }
            State next = st;
            double nc = cost;
            if (!apply(next, k, c, nc))
              continue;
            plan[k] = c;
            visit(k + 1, next, nc);
          }
        };
    visit(0, initialState(), 0);
    r.states = visited;
    if (overflow)
      return failure();
    return r;
  }

  /// Bytes of one device's block of a `type` tensor in layout `l`.
  double blockBytes(RankedTensorType type, const Layout &l) const {
    double b = elementBytes(type);
    for (int64_t n : l.getLocalShape(mesh, type.getShape()))
      b *= double(n);
    return b;
  }

  /// Seconds of `rule`'s op under `map` on each device. A weft.shard is
  /// no work: weft-partition replaces it by its reshard (priced apart) or
  /// by nothing, so the emitted program has no op to match it
  /// (weft-price-local prices the emitted program; docs/propagation.md,
  /// "Pricing what is emitted").
  double computeSeconds(const ShardingRule &rule, const LetterMap &map) {
    Operation *op = rule.getOp();
    if (isa<ShardOp>(op))
      return 0;
    double bytes = 0;
    llvm::SmallDenseMap<char, int64_t> letterSize;
    for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
      auto type = cast<RankedTensorType>(rule.getTensor(i).getType());
      for (auto [d, c] : llvm::enumerate(rule.getTensorLetters(i)))
        letterSize.try_emplace(c, type.getDimSize(d));
      bytes += blockBytes(type, rule.requiredLayout(i, map));
    }
    double flops = 0;
    if (isa<EinsumOp>(op)) {
      flops = 2;
      for (auto &[c, n] : letterSize) {
        auto it = map.find(c);
        int64_t g = it == map.end() ? 1 : mesh.getGroupSize(it->second);
        flops *= double((n + g - 1) / g);
      }
    }
    Type elem =
        cast<RankedTensorType>(rule.getTensor(0).getType()).getElementType();
    return profile.computeSeconds(bytes, flops, elem);
  }

  /// Whether every dimension `map` splits divides evenly.
  bool divides(const ShardingRule &rule, const LetterMap &map) {
    return splitsEvenly(rule, map, mesh);
  }

  /// One letter map of an op signature with what the search needs of it.
  struct MapTemplate {
    LetterMap map;
    /// mapKey(map).
    std::string key;
    /// Seconds of the op's own work under `map`.
    double compute = 0;
    /// Per operand: the global id of the layout `map` requires.
    SmallVector<int, 3> required;
    /// The global id of the result's layout when no operand stays partial.
    int natural = -1;
  };

  /// enumerateMaps with each map's compute seconds and layouts, memoized
  /// per op signature (kind, reduction, letters, types, splittable
  /// letters): the layers of a chain share them.
  const std::vector<MapTemplate> &templatesOf(const ShardingRule &rule) {
    std::string key = rule.getOp()->getName().getStringRef().str();
    if (std::optional<ReductionKind> kind = rule.getReductionKind())
      key.append("/").append(std::to_string(int(*kind)));
    for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
      key += "|";
      key += rule.getTensorLetters(i);
      key += ":";
      key += std::to_string(reinterpret_cast<uintptr_t>(
          rule.getTensor(i).getType().getAsOpaquePointer()));
    }
    key += "|";
    for (char c : rule.getLetters())
      key.push_back(rule.canSplit(c) ? c : '_');
    auto [it, inserted] = templateCache.try_emplace(key);
    if (inserted)
      for (LetterMap &m : enumerateMaps(rule))
        it->second.push_back(makeTemplate(rule, std::move(m)));
    return it->second;
  }
  std::map<std::string, std::vector<MapTemplate>> templateCache;

  MapTemplate makeTemplate(const ShardingRule &rule, LetterMap m) {
    MapTemplate t;
    t.key = mapKey(m);
    t.compute = computeSeconds(rule, m);
    for (unsigned i = 0; i < rule.getNumOperands(); ++i)
      t.required.push_back(internGlobal(rule.requiredLayout(i, m)));
    t.natural = internGlobal(rule.naturalResult(m, nullptr));
    t.map = std::move(m);
    return t;
  }
  /// Letter maps of choices that no template holds (greedy's map where
  /// enumerateMaps did not list it); a deque keeps their addresses.
  std::deque<MapTemplate> extraMaps;

  /// Every letter map of `rule` over the mesh's axes of size > 1 (each axis
  /// on one splittable letter or none, a letter's axes in mesh order),
  /// even splits only, at most limits.maxCandidates.
  std::vector<LetterMap> enumerateMaps(const ShardingRule &rule) {
    std::string letters;
    for (char c : rule.getLetters())
      if (rule.canSplit(c))
        letters.push_back(c);
    SmallVector<StringRef> axes;
    for (auto [name, size] :
         llvm::zip(mesh.getAxisNames(), mesh.getAxisSizes()))
      if (size > 1)
        axes.push_back(name);
    std::vector<LetterMap> out;
    LetterMap cur;
    // Bounded by the nodes visited, not only the maps kept: a mesh of many
    // axes (up to 20 of size 2) has (letters + 1)^axes leaves, most of which
    // divides() may refuse.
    uint64_t visited = 0;
    std::function<void(unsigned)> rec = [&](unsigned a) {
      if (out.size() >= size_t(limits.maxCandidates) ||
          ++visited > kMaxEnumerationNodes)
        return;
      if (a == axes.size()) {
        if (divides(rule, cur))
          out.push_back(cur);
        return;
      }
      rec(a + 1); // Axis unused.
      for (char c : letters) {
        cur[c].push_back(axes[a]);
        rec(a + 1);
        cur[c].pop_back();
        if (cur[c].empty())
          cur.erase(c);
      }
    };
    rec(0);
    return out;
  }

  const Mesh &mesh;
  const MachineProfile &profile;
  const AxisWeights &weights;
  llvm::DenseMap<std::tuple<const void *, int, int>, double> reshardCache;
  llvm::StringMap<int> globalLayoutIds;
  /// Per global id: the layout (a deque: SValue::layouts points into it).
  std::deque<Layout> globalLayouts;
  /// (type, global id) -> (block bytes, uneven).
  llvm::DenseMap<std::pair<const void *, int>, std::pair<double, bool>>
      blockCache;
  /// Memos of apply's interning (see keepPartial): (val, want, cur) -> id;
  /// (step, choice, accepted operand, its layout id) -> result id; (val,
  /// partial id) -> its whole layout's id.
  llvm::DenseMap<std::tuple<int, int, int>, int> keptPartial;
  llvm::DenseMap<std::tuple<int, int, int, int>, int> naturalWithPartial;
  llvm::DenseMap<std::pair<int, int>, int> wholeOf;
};

/// A value as the user wrote it: an argument by its weft.name or position,
/// an op result by its op and line.
std::string describeValue(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    StringAttr name =
        func
            ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "weft.name")
            : StringAttr();
    if (name)
      os << "argument '" << name.getValue() << "'";
    else
      os << "argument #" << arg.getArgNumber();
    return s;
  }
  Operation *op = v.getDefiningOp();
  os << "the result of " << op->getName();
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at line " << loc.getLine();
  return s;
}

/// Whether an op computing `natural` computes the value in layout `wanted`:
/// the same dims, or a partial sum whose resolution (an all-reduce, or a
/// reduce-scatter onto more axes of a dim) gives them.
bool computesAs(const Layout &natural, const Layout &wanted) {
  if (natural.dims == wanted.dims)
    return true;
  if (!natural.isPartial() || natural.dims.size() != wanted.dims.size())
    return false;
  for (auto [have, want] : llvm::zip(natural.dims, wanted.dims)) {
    if (have.size() > want.size() ||
        !std::equal(have.begin(), have.end(), want.begin()))
      return false;
    for (StringRef a : ArrayRef<StringRef>(want).drop_front(have.size()))
      if (!llvm::is_contained(natural.partialAxes, a))
        return false;
  }
  return true;
}

/// Whether `to` is `from` with some dims split over more axes, the same
/// partial sum otherwise: reached by a local slice, no communication. An
/// op that reads an annotated value so still reads it as annotated (each
/// device takes a piece of the block it holds).
bool slicesTo(const Layout &from, const Layout &to) {
  if (from.dims.size() != to.dims.size() ||
      from.partialAxes != to.partialAxes ||
      (from.isPartial() && from.partialKind != to.partialKind))
    return false;
  for (auto [have, want] : llvm::zip(from.dims, to.dims))
    if (have.size() > want.size() ||
        !std::equal(have.begin(), have.end(), want.begin()))
      return false;
  return true;
}

std::string formatSeconds(double s) {
  if (s == kInf)
    return "no plan";
  if (s >= 1)
    return llvm::formatv("{0:F3} s", s).str();
  if (s >= 1e-3)
    return llvm::formatv("{0:F3} ms", s * 1e3).str();
  return llvm::formatv("{0:F3} us", s * 1e6).str();
}

} // namespace

/// Which choices keep the annotations, in order: what tells the two
/// spaces apart.
static std::vector<char> choiceFlags(const Search &search) {
  std::vector<char> f;
  for (const Step &step : search.steps)
    for (const Choice &ch : step.choices)
      f.push_back(ch.keepsAnnotations);
  return f;
}

LogicalResult Propagator::globalSearch(const MachineProfile &profile,
                                       StringRef mode, int64_t beam,
                                       int64_t memoryBudget) {
  Search search(mesh, profile, weights, limits);
  search.memoryBudget = double(memoryBudget);
  // A memory budget is auto-sharding: the boundary is a choice too.
  bool freeBoundary = this->freeBoundary || memoryBudget > 0;
  // Values: arguments and op results, with their fixed layouts.
  Operation *ret = func.getBody().front().getTerminator();
  // The function's boundary: annotated values are fixed; without
  // `freeBoundary`, so are the layouts greedy propagation gave the
  // unannotated arguments and returned values (what a caller provides and
  // receives), and the search re-plans the inside only.
  llvm::DenseSet<Value> returned(ret->getOperands().begin(),
                                 ret->getOperands().end());
  auto addValue = [&](Value v) {
    int val = search.valueOf(v);
    const ValueState &s = states[v];
    bool boundary = isa<BlockArgument>(v) || returned.contains(v);
    search.values[val].isArg = isa<BlockArgument>(v);
    if (auto arg = dyn_cast<BlockArgument>(v))
      search.values[val].param =
          func.getArgAttr(arg.getArgNumber(), kParamAttr) != nullptr;
    if (s.fixed && s.layout) {
      search.values[val].fixedId = search.intern(val, *s.layout);
      search.values[val].annotated = true;
    } else if (boundary && !freeBoundary)
      search.values[val].fixedId = search.intern(
          val, s.layout ? *s.layout
                        : Layout::getReplicated(
                              cast<RankedTensorType>(v.getType()).getRank()));
    return val;
  };
  llvm::DenseMap<Value, int> argStep;
  // Every value and step is an argument or an op's result: reserved, as
  // their members are copied, not moved, when a vector grows.
  search.values.reserve(func.getNumArguments() + order.size());
  search.steps.reserve(func.getNumArguments() + order.size());
  for (auto [k, op] : llvm::enumerate(order)) {
    const ShardingRule &rule = rules[k];
    // Arguments without an annotation: a choice step before the first
    // reader.
    for (unsigned i = 0; i < rule.getNumOperands(); ++i) {
      Value v = rule.getTensor(i);
      if (!isa<BlockArgument>(v) || search.valueIndex.count(v))
        continue;
      int val = addValue(v);
      if (search.values[val].fixedId >= 0) {
        // An annotated argument: a step with its one layout.
        Step step;
        step.result = val;
        step.choices.push_back(Choice());
        step.choices.back().natural = search.values[val].fixedId;
        search.steps.push_back(std::move(step));
        continue;
      }
      argStep[v] = search.steps.size();
      Step step;
      step.result = val;
      search.steps.push_back(std::move(step));
    }
    Step step;
    step.op = op;
    step.rule = &rule;
    for (unsigned i = 0; i < rule.getNumOperands(); ++i)
      step.operands.push_back(search.valueIndex.lookup(rule.getTensor(i)));
    step.result = addValue(rule.getTensor(rule.getResultIndex()));
    search.steps.push_back(std::move(step));
  }
  // Last uses.
  for (auto [k, step] : llvm::enumerate(search.steps))
    for (int val : step.operands)
      search.values[val].lastUse = std::max(search.values[val].lastUse, int(k));
  for (Value v : ret->getOperands())
    if (search.valueIndex.count(v))
      search.values[search.valueIndex[v]].lastUse =
          std::numeric_limits<int>::max();
  for (auto [k, step] : llvm::enumerate(search.steps)) {
    llvm::SmallDenseSet<int, 4> done;
    for (int val : step.operands)
      if (search.values[val].lastUse == int(k) && done.insert(val).second)
        step.dying.push_back(val);
    // Sorted as a state's entries are (apply erases them in one pass).
    llvm::sort(step.dying);
  }

  // Op choices: every letter map (the greedy one first among equals).
  for (Step &step : search.steps) {
    if (!step.op)
      continue;
    const ShardingRule &rule = *step.rule;
    LetterMap greedyMap;
    if (ShardingRule::hasSplit(step.op)) {
      FailureOr<LetterMap> m = ShardingRule::readSplit(step.op);
      if (failed(m))
        return step.op->emitOpError("weft-propagate: no letter map recorded "
                                    "by the greedy pass (internal error)");
      greedyMap = *m;
    } else {
      // weft.shard and ops without operands: the map of the result layout.
      if (const Layout *l =
              states[rule.getTensor(rule.getResultIndex())].layout)
        for (auto [d, c] :
             llvm::enumerate(rule.getTensorLetters(rule.getResultIndex())))
          if (!l->dims[d].empty())
            greedyMap[c] = l->dims[d];
    }
    static const std::vector<Search::MapTemplate> kNoMaps;
    const std::vector<Search::MapTemplate> &maps =
        isa<ShardOp>(step.op) ? kNoMaps : search.templatesOf(rule);
    std::string greedyKey = mapKey(greedyMap);
    auto pos = llvm::find_if(
        maps, [&](const Search::MapTemplate &m) { return m.key == greedyKey; });
    auto addChoice = [&](const Search::MapTemplate &t) {
      Choice &ch = step.choices.emplace_back();
      ch.map = &t.map;
      ch.compute = t.compute;
      for (unsigned i = 0; i < rule.getNumOperands(); ++i)
        ch.required.push_back(search.internId(step.operands[i], t.required[i]));
      ch.natural = search.internId(step.result, t.natural);
    };
    // Greedy's map first.
    step.choices.reserve(maps.size() + (pos == maps.end()));
    if (pos != maps.end())
      addChoice(*pos);
    else
      addChoice(
          search.extraMaps.emplace_back(search.makeTemplate(rule, greedyMap)));
    for (auto it = maps.begin(); it != maps.end(); ++it)
      if (it != pos)
        addChoice(*it);
  }
  // Argument choices: every layout a reader can require, the greedy layout
  // first.
  for (auto &[v, k] : argStep) {
    Step &step = search.steps[k];
    int val = step.result;
    Layout greedyLayout =
        states[v].layout ? *states[v].layout
                         : Layout::getReplicated(
                               cast<RankedTensorType>(v.getType()).getRank());
    std::vector<int> ids{search.intern(val, greedyLayout)};
    for (const Step &reader : search.steps)
      for (auto [i, operand] : llvm::enumerate(reader.operands))
        if (operand == val)
          for (const Choice &ch : reader.choices)
            if (!llvm::is_contained(ids, ch.required[i]))
              ids.push_back(ch.required[i]);
    for (int id : ids) {
      Choice ch;
      ch.natural = id;
      step.choices.push_back(std::move(ch));
    }
  }

  // Annotations are intent: an op reading an annotated value reads it in
  // its annotated layout. Where an op cannot read all of its annotated
  // operands so (two annotations disagree on a letter), the choices that
  // keep the most of them are allowed.
  // A value constrained by weft.shard is computed in the constrained
  // layout by the op that defines it (its letter map gives the constrained
  // dims, a partial sum resolved into them allowed): a gradient as its
  // parameter lives, an SGD update as its parameter. Not so ZeRO-1's
  // constraint of the updated parameter (kZero1GatherLoc): the update is
  // computed in the state's layout and gathered, by design. An annotated
  // result type says where the value lives, not how it is computed.
  llvm::DenseMap<int, const Layout *> wantedResult;
  for (Step &step : search.steps) {
    const SValue &res = search.values[step.result];
    if (!step.op || !res.annotated)
      continue;
    auto name = dyn_cast<NameLoc>(step.op->getLoc());
    if (isa<ShardOp>(step.op) &&
        !(name && name.getName().getValue() == kZero1GatherLoc))
      wantedResult.try_emplace(step.operands[0], res.layouts[res.fixedId]);
  }
  llvm::DenseSet<const Step *> recordedSteps;
  for (Step &step : search.steps) {
    if (!step.op || isa<ShardOp>(step.op))
      continue;
    // A letter map recorded by a previous run is kept (idempotence).
    auto recorded = recordedSplits.find(step.op);
    if (recorded != recordedSplits.end()) {
      std::string key = mapKey(recorded->second);
      bool found = false;
      for (Choice &ch : step.choices) {
        ch.asRecorded = mapKey(*ch.map) == key;
        found |= ch.asRecorded;
      }
      if (!found) {
        // Not enumerated (an uneven split): added as a choice of its own.
        const Search::MapTemplate &t = search.extraMaps.emplace_back(
            search.makeTemplate(*step.rule, recorded->second));
        Choice &ch = step.choices.emplace_back();
        ch.map = &t.map;
        ch.compute = t.compute;
        for (unsigned i = 0; i < step.rule->getNumOperands(); ++i)
          ch.required.push_back(
              search.internId(step.operands[i], t.required[i]));
        ch.natural = search.internId(step.result, t.natural);
      }
      recordedSteps.insert(&step);
      continue;
    }
  }
  // Which choices keep the annotations. A choice that reads an annotated
  // operand by a local slice of its annotated layout (the annotated split a
  // prefix of each dim's axes) reads it as annotated too (`slices`). The
  // search runs in both spaces: every such choice widens the space the
  // beam prunes, and neither space's beam plan is always the cheaper one
  // (docs/propagation.md, "A local slice is a read as annotated").
  // Returns whether some choice is refused.
  auto markKept = [&](bool slices) {
    bool constrained = false;
    for (Step &step : search.steps) {
      if (!step.op || isa<ShardOp>(step.op) || recordedSteps.contains(&step))
        continue;
      SmallVector<unsigned, 16> kept(step.choices.size(), 0);
      unsigned most = 0;
      const Layout *wanted = wantedResult.lookup(step.result);
      const SValue &res = search.values[step.result];
      for (auto [c, ch] : llvm::enumerate(step.choices)) {
        for (auto [i, val] : llvm::enumerate(step.operands)) {
          const SValue &v = search.values[val];
          if (v.annotated && !v.param &&
              (ch.required[i] == v.fixedId ||
               (slices &&
                slicesTo(*v.layouts[v.fixedId], *v.layouts[ch.required[i]]))))
            ++kept[c];
        }
        if (wanted && computesAs(*res.layouts[ch.natural], *wanted))
          ++kept[c];
        most = std::max(most, kept[c]);
      }
      for (auto [c, ch] : llvm::enumerate(step.choices)) {
        ch.keepsAnnotations = kept[c] == most;
        constrained |= !ch.keepsAnnotations;
      }
    }
    return constrained;
  };
  bool constrained = markKept(/*slices=*/false);
  bool slicesRead = false;
  search.keepAnnotations = !reshardAnnotated;

  std::vector<unsigned> greedyPlan(search.steps.size(), kGreedyChoice);
  // Greedy's estimate whatever it does with the annotations (the summary
  // prints it); its plan is a fallback only where it keeps them.
  std::optional<double> greedyCost;
  bool greedyAllowed;
  {
    bool keep = search.keepAnnotations;
    search.keepAnnotations = false;
    greedyCost = search.evaluate(greedyPlan);
    search.keepAnnotations = keep;
    greedyAllowed = !keep || search.evaluate(greedyPlan).has_value();
  }
  // With a budget: the replicated plan's footprint, for the report.
  std::optional<double> replicatedPeak;
  if (memoryBudget > 0) {
    std::vector<unsigned> replicated;
    for (const Step &step : search.steps) {
      const SValue &res = search.values[step.result];
      auto it = llvm::find_if(step.choices, [&](const Choice &ch) {
        if (step.op)
          return llvm::all_of(*ch.map,
                              [](auto &e) { return e.second.empty(); });
        return res.layouts[ch.natural]->getUsedAxes().empty();
      });
      if (it == step.choices.end())
        break;
      replicated.push_back(it - step.choices.begin());
    }
    if (replicated.size() == search.steps.size()) {
      double peak = 0;
      double budget = search.memoryBudget;
      search.memoryBudget = std::numeric_limits<double>::max();
      if (search.evaluate(replicated, nullptr, &peak))
        replicatedPeak = peak;
      search.memoryBudget = budget;
    }
  }

  Search::Result found;
  bool enumerated = true;
  // The DP of the wider space (below) does not depend on the first one's
  // result: with threading on, it runs at the same time on a copy of the
  // search (its caches and interned layouts its own; the letter maps and
  // the layouts interned so far are shared, read-only) on a thread of its
  // own. docs/propagation.md, "The two spaces run at once".
  std::optional<Search> wideSearch;
  std::optional<Search::Result> wideFound;
  std::thread wideThread;
  if (mode != "exhaustive" && search.keepAnnotations &&
      func->getContext()->isMultithreadingEnabled()) {
    std::vector<char> exact = choiceFlags(search);
    markKept(/*slices=*/true);
    if (choiceFlags(search) != exact) {
      WEFT_DEBUG(llvm::dbgs() << "[weft-propagate] the wider space's DP "
                                 "runs on a thread of its own\n");
      wideSearch.emplace(search);
      wideFound.emplace();
      wideThread =
          std::thread([&] { *wideFound = wideSearch->dynamicProgram(beam); });
    }
    markKept(/*slices=*/false);
  }
  auto runSearch = [&] {
    if (mode != "exhaustive")
      return search.dynamicProgram(beam);
    FailureOr<Search::Result> r =
        search.steps.size() > kMaxExhaustiveSteps
            ? FailureOr<Search::Result>(failure())
            : search.exhaustive(uint64_t(limits.exhaustiveLimit));
    if (succeeded(r))
      return *r;
    // Too big to enumerate: say so and keep the greedy plan.
    func.emitWarning() << "weft-propagate search=exhaustive: more than "
                       << limits.exhaustiveLimit << " transitions or "
                       << kMaxExhaustiveSteps
                       << " steps; not enumerated, greedy plan kept "
                          "(use search=global)";
    enumerated = false;
    return Search::Result();
  };
  found = runSearch();
  if (wideThread.joinable())
    wideThread.join();
  // Local slices of annotated values read them as annotated too: the
  // search runs again with those choices allowed, and the cheaper plan of
  // the two spaces is taken (the exact one on ties). Where no plan reads
  // every annotated value exactly, the wider space is the only one.
  if (enumerated && search.keepAnnotations) {
    std::vector<char> exact = choiceFlags(search);
    bool widened = markKept(/*slices=*/true);
    if (choiceFlags(search) != exact) {
      Search::Result wide = wideFound ? std::move(*wideFound) : runSearch();
      wide.states += found.states;
      if (wide.cost < found.cost) {
        found = std::move(wide);
        slicesRead = true;
        constrained = widened;
        greedyAllowed = search.evaluate(greedyPlan).has_value();
      } else {
        found.states = wide.states;
        markKept(/*slices=*/false);
      }
    }
  }
  // The search's plan replaces greedy's only when it saves more than
  // kMinGainSeconds (and 1e-6 relative): estimates finer than that are
  // noise, and on ties greedy's plan (GSPMD's, following the annotations)
  // is the one users expect.
  bool useFound = found.cost != kInf &&
                  (!greedyCost || !greedyAllowed ||
                   found.cost < *greedyCost * (1 - 1e-6) - kMinGainSeconds);
  std::vector<unsigned> plan = useFound ? found.plan : greedyPlan;
  double planCostSeconds = useFound ? found.cost : greedyCost.value_or(kInf);
  // A pruned DP may leave single-step improvements: take them (an exact
  // DP's plan is optimal over the same space, so nothing to gain there).
  std::string localSummary;
  // Not under a memory budget: its estimate is of the DP's plans, and a
  // changed plan may hold reshard copies longer than it counts.
  if (found.pruned && mode == "global" && planCostSeconds != kInf &&
      memoryBudget == 0 && (useFound || greedyAllowed)) {
    bool converged = false;
    double before = planCostSeconds;
    if (search.improveLocally(plan, planCostSeconds,
                              uint64_t(limits.localSearchBudget), converged))
      useFound = true;
    localSummary =
        llvm::formatv("local search {0} -> {1}{2}", formatSeconds(before),
                      formatSeconds(planCostSeconds),
                      converged ? " (no single change improves it)"
                                : " (stopped at its budget)")
            .str();
  }

  // Writes `plan`'s layouts into the value states (and the letter maps of
  // ops that record them); false when the plan does not replay. `bytes`
  // receives the bytes it sends per device.
  auto applyPlan = [&](ArrayRef<unsigned> p, double *bytes) {
    SmallVector<int> resultIds;
    search.bytesSent = bytes;
    bool replayed = search.evaluate(p, &resultIds).has_value();
    search.bytesSent = nullptr;
    if (!replayed)
      return false;
    for (auto [k, step] : llvm::enumerate(search.steps)) {
      const SValue &res = search.values[step.result];
      ValueState &s = states[res.value];
      s.layout = store(*res.layouts[resultIds[k]]);
      if (step.op) {
        if (ShardingRule::hasSplit(step.op))
          step.rule->writeSplit(*step.choices[p[k]].map);
        s.origin = {Origin::Computed, step.op};
      }
    }
    return true;
  };

  // Price what is emitted (docs/propagation.md, "Pricing what is
  // emitted"): the plan above and its runner-up (greedy's plan, or the
  // DP's where greedy's was kept) are each written into the function,
  // emitted on a copy (partition, collective passes, combiner) and priced;
  // the cheaper emitted program wins, ties to the plan above. The DP
  // prices every all-reduce with its own latency; the combiner merges
  // independent ones, so the DP's order of two plans can be wrong.
  std::string emittedSummary;
  std::optional<double> emittedSeconds;
  // A plan the objective refuses (no plan keeps every annotation, and
  // greedy's is kept) is still emitted: it is priced too.
  if (emitted.enabled && memoryBudget == 0) {
    std::vector<std::vector<unsigned>> candidates{plan};
    if (plan != greedyPlan && greedyAllowed)
      candidates.push_back(greedyPlan);
    else if (plan == greedyPlan && found.cost != kInf && found.plan != plan)
      candidates.push_back(found.plan);
    // Greedy's layouts are the states as they stand; a trial overwrites
    // them and the letter maps, so both are restored after each.
    llvm::DenseMap<Value, ValueState> greedyStates = states;
    SmallVector<std::pair<Operation *, DictionaryAttr>> savedAttrs;
    for (const Step &step : search.steps)
      if (step.op && ShardingRule::hasSplit(step.op))
        savedAttrs.push_back({step.op, step.op->getAttrDictionary()});
    std::vector<std::optional<LocalPrice>> prices;
    for (const std::vector<unsigned> &c : candidates) {
      std::optional<LocalPrice> price;
      if (c == greedyPlan || applyPlan(c, nullptr)) {
        writeBack();
        FailureOr<LocalPrice> p = priceEmitted(
            func, profile, emitted.combineBytes, emitted.combinePerCall);
        if (succeeded(p))
          price = *p;
      }
      states = greedyStates;
      for (auto [op, attrs] : savedAttrs)
        op->setAttrs(attrs);
      prices.push_back(price);
    }
    if (prices[0]) {
      unsigned best = 0;
      if (prices.size() > 1 && prices[1] &&
          prices[1]->totalSeconds() <
              prices[0]->totalSeconds() * (1 - 1e-6) - kMinGainSeconds)
        best = 1;
      auto describe = [&](unsigned i) -> std::string {
        StringRef who = candidates[i] == greedyPlan ? "greedy's plan"
                        : candidates[i] == found.plan
                            ? "the search's plan"
                            : "the search's plan after the local search";
        if (!prices[i])
          return (who + " not emitted").str();
        return llvm::formatv("{0} {1} ({2} collective(s))", who,
                             formatSeconds(prices[i]->totalSeconds()),
                             prices[i]->collectives)
            .str();
      };
      emittedSummary = "emitted (partitioned, collectives combined up to " +
                       std::to_string(emitted.combineBytes) +
                       " bytes): " + describe(0);
      if (prices.size() > 1)
        emittedSummary += ", " + describe(1);
      emittedSummary +=
          "; took " + std::string(best == 0 ? "the first" : "the second");
      if (best == 1) {
        plan = candidates[1];
        useFound = plan != greedyPlan;
        planCostSeconds = search.evaluate(plan).value_or(kInf);
      }
      emittedSeconds = prices[best]->totalSeconds();
    }
  }

  // Annotations are kept; say so when reading annotated values in other
  // layouts would be much cheaper. The probe is the search without the
  // rule, with a smaller beam: its plan is a real one, so the saving it
  // reports is one the objective confirms (a lower bound on what the
  // rule costs).
  std::string annotationSummary;
  if (search.keepAnnotations && constrained && mode == "global" &&
      memoryBudget == 0 && planCostSeconds != kInf) {
    search.keepAnnotations = false;
    Search::Result probe =
        search.dynamicProgram(std::min<int64_t>(beam, kProbeBeam));
    search.keepAnnotations = true;
    if (probe.cost < planCostSeconds * (1 - kNoteSaving) &&
        planCostSeconds - probe.cost >= kNoteMinSeconds) {
      std::vector<std::string> names;
      llvm::SmallDenseSet<int> listed;
      for (auto [k, step] : llvm::enumerate(search.steps)) {
        if (!step.op)
          continue;
        const Choice &ch = step.choices[probe.plan[k]];
        for (auto [i, val] : llvm::enumerate(step.operands)) {
          const SValue &v = search.values[val];
          if (v.annotated && !v.param && ch.required[i] != v.fixedId &&
              !slicesTo(*v.layouts[v.fixedId], *v.layouts[ch.required[i]]) &&
              listed.insert(val).second)
            names.push_back(describeValue(v.value));
        }
        const SValue &res = search.values[step.result];
        const Layout *wanted = wantedResult.lookup(step.result);
        if (wanted && !isa<ShardOp>(step.op) &&
            !computesAs(*res.layouts[ch.natural], *wanted) &&
            listed.insert(step.result).second)
          names.push_back(describeValue(res.value));
      }
      // A probe whose plan reads every annotated value as annotated (it
      // differs elsewhere) names nothing to allow: no note.
      if (!names.empty()) {
        std::string list;
        for (auto [i, n] : llvm::enumerate(names)) {
          if (i == 4) {
            list += llvm::formatv(" and {0} more", names.size() - 4).str();
            break;
          }
          list += (i ? ", " : "") + n;
        }
        annotationSummary =
            llvm::formatv(
                "computing with annotated values in other layouts ({0}) would "
                "lower "
                "the estimated step time from {1} to {2} (-{3:F0}%)",
                list, formatSeconds(planCostSeconds), formatSeconds(probe.cost),
                100 * (1 - probe.cost / planCostSeconds))
                .str();
        mlir::emitRemark(func.getLoc())
            << "weft-propagate: note: @" << func.getSymName()
            << " keeps its annotated layouts where it computes with them; "
            << annotationSummary
            << ": allow it with weftc --reshard-annotated "
               "(--weft-propagate=reshard-annotated=true), or change those "
               "annotations";
      }
    }
  }
  if (memoryBudget > 0) {
    auto fmt = [](double b) { return std::to_string(int64_t(b)); };
    if (planCostSeconds == kInf) {
      InFlightDiagnostic diag =
          func.emitOpError()
          << "weft-propagate: no plan fits the memory budget of "
          << memoryBudget << " bytes per device";
      if (replicatedPeak)
        diag << " (replicated, the function needs " << fmt(*replicatedPeak)
             << ")";
      diag << (found.pruned ? "; the search was beam-pruned, a larger "
                              "beam may find one"
                            : "; the search was exact: none exists under "
                              "this schedule");
      return failure();
    }
    double peak = 0;
    search.evaluate(plan, nullptr, &peak);
    InFlightDiagnostic remark = func.emitRemark();
    remark << "weft-propagate memory: estimated peak " << fmt(peak)
           << " bytes per device, budget " << memoryBudget;
    if (replicatedPeak)
      remark << ", replicated " << fmt(*replicatedPeak);
    remark << " (every argument's block, and the blocks live at the "
              "busiest op, in the canonical order)";
  }

  if (useFound) {
    double bytes = 0;
    if (!applyPlan(plan, &bytes))
      return func.emitOpError("weft-propagate: the global plan does not "
                              "replay (internal error)");
    // The function's remark reports the plan taken.
    totalCost = bytes;
  }

  if (explain) {
    for (auto [k, step] : llvm::enumerate(search.steps)) {
      if (!step.op)
        continue;
      const ShardingRule &rule = *step.rule;
      std::string text;
      llvm::raw_string_ostream os(text);
      const Choice &chosen = step.choices[plan[k]];
      os << "global search: letters " << letterMapStr(rule, *chosen.map)
         << (plan[k] == kGreedyChoice
                 ? " (as greedy)"
                 : " (greedy chose " +
                       letterMapStr(rule, *step.choices[kGreedyChoice].map) +
                       ")")
         << ", compute " << formatSeconds(chosen.compute);
      if (search.steps.size() <= 400) {
        os << "\nwith the rest of the plan held:";
        std::vector<unsigned> alt = plan;
        for (unsigned c = 0; c < step.choices.size(); ++c) {
          if (c == plan[k])
            continue;
          alt[k] = c;
          std::optional<double> cost = search.evaluate(alt);
          os << "\n  " << letterMapStr(rule, *step.choices[c].map) << ": ";
          if (cost)
            os << "+" << formatSeconds(*cost - planCostSeconds);
          else
            os << "no plan";
        }
      }
      std::string &existing = explanations[step.op];
      if (!useFound || plan[k] == kGreedyChoice)
        existing += (existing.empty() ? "" : "\n") + text;
      else
        existing = text;
    }
    llvm::raw_string_ostream(searchSummary)
        << "weft-propagate search=" << mode << " (profile " << profile.name
        << "): plan estimated " << formatSeconds(planCostSeconds)
        << " per step, greedy "
        << (greedyCost ? formatSeconds(*greedyCost) : std::string("no plan"))
        << "; "
        << (useFound ? "took the search's plan" : "kept the greedy plan")
        << "; " << found.states << " state(s), "
        << (mode == "exhaustive" ? "every plan enumerated"
            : found.pruned       ? "beam-pruned (not proven "
                                   "optimal)"
                                 : "exact")
        << llvm::formatv("\nobjective seconds: search {0:e9}, "
                         "greedy {1:e9}",
                         found.cost,
                         greedyAllowed ? greedyCost.value_or(kInf) : kInf)
               .str()
        << (!search.keepAnnotations
                ? "\nannotated values may be read resharded "
                  "(reshard-annotated)"
            : constrained
                ? "\nannotated values read as "
                  "annotated" +
                      std::string(slicesRead ? " (some by a local slice)"
                                             : "") +
                      std::string(greedyAllowed ? ""
                                                : " (greedy's "
                                                  "plan does "
                                                  "not)")
                : "")
        << (localSummary.empty() ? "" : "\n" + localSummary)
        << (annotationSummary.empty() ? "" : "\nnote: " + annotationSummary)
        << (emittedSummary.empty() ? "" : "\n" + emittedSummary)
        << llvm::formatv("\nplan taken: objective {0:e9} s{1}",
                         emittedSeconds.value_or(planCostSeconds),
                         emittedSeconds ? " (as emitted)" : "")
               .str();
  }
  return success();
}

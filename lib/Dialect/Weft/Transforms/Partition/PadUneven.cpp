//===- PadUneven.cpp - pad the dimensions their axes do not divide --------===//
//
// --weft-pad-uneven, between --weft-propagate and --weft-partition: a
// dimension of size n split over axes whose product k does not divide n is
// padded at its end, so partitioning, collectives and kernels only ever see
// even blocks (XLA pads the same way, block by block). Dimensions that one
// letter ties together (einsum operands and result, a map's broadcast, the
// two sides of a weft.shard) form a class and are padded alike, to the
// next multiple of the lcm of every group size that splits a member: in
// its type's sharding, or in the layout an op's letter map (`weft.split`)
// has the partitioner reshard it to (N4: a dimension padded for its own
// axes and then sliced over another group).
//
// The pads must never change a valid element. The invariant: every
// value's pads read 0. Arguments are loaded with zero pads (the runtime's
// block I/O); an op whose result could hold something else in its pads
// (PadOpInterface::padsNeedZeroing: lib/Dialect/Weft/IR/WeftPadding.cpp
// lists the cases) is followed by `weft.pad_fill ... fill 0`, a select
// (NaN- and inf-proof). Sums over a padded letter then add zeros; max and
// min reductions over a padded letter read their input through
// `pad_fill fill -inf` (+inf) on the pads of the reduced letters only (the
// kept letters' pads stay 0, so the result's pads are max(0, -inf) = 0).
// An op that cannot take pads on some dimension refuses them
// (PadOpInterface::verifyPadding). The pass names no op.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/Limits.h"
#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/IR/WeftBuilders.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/ShardingRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTPADUNEVEN
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

#define DEBUG_TYPE "weft-pad-uneven"

using namespace mlir;
using namespace mlir::weft;

namespace {

/// The spec an op's messages quote.
StringRef specOf(Operation *op) {
  auto spec = op->getAttrOfType<StringAttr>("spec");
  return spec ? spec.getValue() : StringRef();
}

/// One dimension of one value.
using Slot = std::pair<Value, unsigned>;

class Padder {
public:
  Padder(func::FuncOp func, const Mesh &mesh)
      : func(func), mesh(mesh), builder(func.getContext()) {}
  LogicalResult run();

private:
  unsigned slot(Value v, unsigned d) {
    auto [it, inserted] = slotIds.try_emplace(Slot(v, d), slots.size());
    if (inserted) {
      slots.push_back(Slot(v, d));
      classes.insert(it->second);
    }
    return it->second;
  }
  LogicalResult linkOp(Operation *op);
  LogicalResult sizeClasses();
  /// The padded size of `v`'s dimension d (its size when not padded).
  int64_t paddedSize(Value v, unsigned d) {
    auto it = slotIds.find(Slot(v, d));
    if (it == slotIds.end())
      return cast<RankedTensorType>(v.getType()).getDimSize(d);
    auto p = padded.find(classes.getLeaderValue(it->second));
    return p == padded.end() ? cast<RankedTensorType>(v.getType()).getDimSize(d)
                             : p->second;
  }
  bool isPadded(Value v, unsigned d) {
    return paddedSize(v, d) !=
           cast<RankedTensorType>(v.getType()).getDimSize(d);
  }
  /// Whether `letter` of `rule` is a padded dimension.
  bool letterPadded(const ShardingRule &rule, char letter);
  bool needsZeroing(Operation *op, const ShardingRule *rule);
  Value insertFill(Value v, ArrayRef<int64_t> valid, double fill,
                   Operation *before);

  func::FuncOp func;
  const Mesh &mesh;
  OpBuilder builder;
  llvm::DenseMap<Slot, unsigned> slotIds;
  SmallVector<Slot> slots;
  llvm::EquivalenceClasses<unsigned> classes;
  /// Leader -> padded size, for the classes that are padded.
  llvm::DenseMap<unsigned, int64_t> padded;
  /// Logical shapes of the values whose type was padded.
  llvm::DenseMap<Value, SmallVector<int64_t>> logical;
  /// A reshape's merged dimension (hk) and the dimension of its major
  /// letter h on the other side: padded as h's padded size times the minor
  /// letters' product, so the pads are whole rows of h at the end.
  struct Merged {
    Operation *op;
    unsigned merged, major; // slots
    int64_t minorProduct;
    SmallVector<unsigned> minors; // the minor letters' own dimensions
    int64_t splitGroup;           // devices splitting h (weft.split)
  };
  SmallVector<Merged> mergedDims;
  /// (slot, group size): a dimension an op's letter map splits (linkOp).
  SmallVector<std::pair<unsigned, int64_t>> splitBy;
};

} // namespace

LogicalResult Padder::linkOp(Operation *op) {
  if (isa<func::ReturnOp>(op))
    return success(); // Results are the returned values.
  std::optional<ShardingRule> rule = ShardingRule::get(op);
  if (!rule)
    return op->emitOpError() << "is not handled by weft-pad-uneven (it has no "
                                "sharding rule)";
  // A reshape ties only the letters that are dimensions of their own on
  // both sides; a group's size is not its major letter's.
  std::string grouped;
  auto pads = dyn_cast<PadOpInterface>(op);
  if (!pads)
    return op->emitOpError() << "is not handled by weft-pad-uneven (it does "
                                "not say how pads flow through it)";
  auto dimGroups = pads.getDimGroups();
  if (failed(dimGroups))
    return failure();
  if (std::optional<std::pair<SmallVector<std::string>,
                              SmallVector<std::string>>> &groups = *dimGroups) {
    FailureOr<LetterMap> split = ShardingRule::readSplit(op);
    Value sides[2] = {op->getOperand(0), op->getResult(0)};
    const SmallVector<std::string> *groupsOf[2] = {&groups->first,
                                                   &groups->second};
    // Each letter's own dimension (a group of one), on either side.
    llvm::SmallDenseMap<char, Slot> own;
    for (int side = 0; side < 2; ++side)
      for (auto [d, g] : llvm::enumerate(*groupsOf[side]))
        if (g.size() == 1)
          own[g[0]] = Slot(sides[side], d);
    for (int side = 0; side < 2; ++side)
      for (auto [d, g] : llvm::enumerate(*groupsOf[side])) {
        if (g.size() < 2)
          continue;
        grouped += g;
        if (!own.count(g[0]))
          continue; // The verifier requires it; nothing to derive.
        Merged m{op, slot(sides[side], d), 0, 1, {}, 1};
        Slot major = own.lookup(g[0]);
        m.major = slot(major.first, major.second);
        for (char c : StringRef(g).drop_front()) {
          if (!own.count(c))
            continue;
          Slot minor = own.lookup(c);
          m.minors.push_back(slot(minor.first, minor.second));
          m.minorProduct *= cast<RankedTensorType>(minor.first.getType())
                                .getDimSize(minor.second);
        }
        if (succeeded(split))
          if (auto it = split->find(g[0]); it != split->end())
            m.splitGroup = mesh.getGroupSize(it->second);
        mergedDims.push_back(m);
      }
  }
  // The partitioner reshards each operand to the layout the op's letter
  // map requires and computes the result in the map's layout: a letter the
  // map splits over axes A is split over A on every dimension it names,
  // whatever the types say (a reshard plan only passes through prefixes of
  // its source's and its target's axes, so these and the types' are all
  // the splits a dimension sees). (A reshape's grouped letters: Merged.
  // top_k's selected dimension is computed whole.)
  if (ShardingRule::hasSplit(op))
    if (FailureOr<LetterMap> map = ShardingRule::readSplit(op); succeeded(map))
      for (auto &[c, axes] : *map) {
        int64_t k = mesh.getGroupSize(axes);
        if (k == 1 || StringRef(grouped).contains(c) ||
            pads.computesLetterWhole(c))
          continue;
        for (unsigned i = 0; i <= rule->getNumOperands(); ++i) {
          size_t d = rule->getTensorLetters(i).find(c);
          Value v = rule->getTensor(i);
          if (d != StringRef::npos && isa<RankedTensorType>(v.getType()))
            splitBy.push_back({slot(v, d), k});
        }
      }
  for (char c : rule->getLetters()) {
    if (StringRef(grouped).contains(c))
      continue;
    std::optional<unsigned> first;
    for (unsigned i = 0; i <= rule->getNumOperands(); ++i) {
      StringRef letters = rule->getTensorLetters(i);
      size_t d = letters.find(c);
      if (d == StringRef::npos)
        continue;
      Value v = rule->getTensor(i);
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      unsigned s = slot(v, d);
      if (first)
        classes.unionSets(*first, s);
      else
        first = s;
    }
  }
  return success();
}

LogicalResult Padder::sizeClasses() {
  // Every group size that splits a member, per class (leader).
  llvm::DenseMap<unsigned, int64_t> lcm;
  llvm::DenseMap<unsigned, int64_t> size;
  for (auto [id, s] : llvm::enumerate(slots)) {
    auto type = cast<RankedTensorType>(s.first.getType());
    unsigned leader = classes.getLeaderValue(id);
    int64_t n = type.getDimSize(s.second);
    auto [it, inserted] = size.try_emplace(leader, n);
    if (!inserted && it->second != n) {
      // At the value (an argument's location, not the whole function).
      if (Operation *op = s.first.getDefiningOp())
        return op->emitOpError()
               << "dimension " << s.second << " has size " << n
               << ", but a letter ties it to a dimension of size "
               << it->second;
      return emitError(s.first.getLoc())
             << "dimension " << s.second << " of argument #"
             << cast<BlockArgument>(s.first).getArgNumber() << " has size " << n
             << ", but a letter ties it to a dimension of size " << it->second;
    }
    ShardingAttr sharding = getSharding(type);
    if (!sharding)
      continue;
    int64_t k = mesh.getGroupSize(sharding.getDimAxes(s.second));
    int64_t &l = lcm.try_emplace(leader, 1).first->second;
    l = std::lcm(l, k); // Divisors of the device count: bounded.
  }
  for (auto [id, k] : splitBy) {
    int64_t &l = lcm.try_emplace(classes.getLeaderValue(id), 1).first->second;
    l = std::lcm(l, k); // Divisors of the device count: bounded.
  }
  // A merged dimension (hk) split over k' devices holds whole rows of h:
  // h's padded size is a multiple of the devices splitting h and of
  // k' / gcd(k', K), so that the merged size h' * K divides too. (Chains
  // of reshapes: a few rounds reach the fixed point.)
  auto leaderOf = [&](unsigned s) { return classes.getLeaderValue(s); };
  for (int round = 0; round < 4; ++round)
    for (Merged &m : mergedDims) {
      int64_t lm = lcm.lookup(leaderOf(m.merged));
      if (lm == 0)
        lm = 1;
      int64_t need = std::lcm(lm / std::gcd(lm, m.minorProduct), m.splitGroup);
      int64_t &l = lcm.try_emplace(leaderOf(m.major), 1).first->second;
      l = std::lcm(l, need); // Divisors of the device count: bounded.
    }
  for (auto [leader, l] : lcm) {
    int64_t n = size.lookup(leader);
    if (n % l == 0)
      continue;
    padded[leader] = (n / l + 1) * l; // n, l <= 2^48: no overflow.
  }
  // The merged dimensions follow their major letter: h' * K, pads last.
  for (int round = 0; round < 4; ++round)
    for (Merged &m : mergedDims) {
      unsigned major = leaderOf(m.major), merged = leaderOf(m.merged);
      int64_t h =
          padded.count(major) ? padded.lookup(major) : size.lookup(major);
      int64_t want = h * m.minorProduct; // <= 2^48 * 2^20: no overflow.
      int64_t now =
          padded.count(merged) ? padded.lookup(merged) : size.lookup(merged);
      if (now == want)
        continue;
      int64_t lm = std::max<int64_t>(1, lcm.lookup(merged));
      if (want < size.lookup(merged) || want % lm != 0 || round == 3)
        return m.op->emitOpError()
               << "cannot pad the merged dimension of its spec \""
               << specOf(m.op) << "\" consistently with the dimensions a "
               << "letter ties it to (" << now << " vs " << want
               << "): split it over axes that divide it";
      padded[merged] = want;
    }
  return success();
}

bool Padder::letterPadded(const ShardingRule &rule, char letter) {
  for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
    size_t d = rule.getTensorLetters(i).find(letter);
    if (d != StringRef::npos)
      return isPadded(rule.getTensor(i), d);
  }
  return false;
}

bool Padder::needsZeroing(Operation *op, const ShardingRule *rule) {
  Value result = op->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  bool any = false;
  for (unsigned d = 0; d < type.getRank(); ++d)
    any |= isPadded(result, d);
  if (!any)
    return false;
  auto pads = dyn_cast<PadOpInterface>(op);
  if (!rule || !pads)
    return true;
  // The letters of the result's padded dimensions.
  SmallVector<char> paddedLetters;
  for (auto [d, c] :
       llvm::enumerate(rule->getTensorLetters(rule->getResultIndex())))
    if (isPadded(result, d))
      paddedLetters.push_back(c);
  return pads.padsNeedZeroing(paddedLetters);
}

Value Padder::insertFill(Value v, ArrayRef<int64_t> valid, double fill,
                         Operation *before) {
  builder.setInsertionPoint(before);
  auto type = cast<RankedTensorType>(v.getType());
  Operation *op =
      buildPadFill(builder, v.getLoc(), v, valid, fill).getDefiningOp();
  WEFT_DEBUG(llvm::dbgs() << "[weft-pad-uneven] fill the padding of " << v
                          << " with " << fill << " before " << before->getName()
                          << " at " << before->getLoc() << "\n");
  // Partitioned like its input: each placeholder letter keeps its axes.
  if (ShardingAttr s = getSharding(type)) {
    std::optional<ShardingRule> rule = ShardingRule::get(op);
    LetterMap map;
    StringRef letters = rule->getTensorLetters(0);
    for (unsigned d = 0; d < type.getRank(); ++d) {
      SmallVector<StringRef> axes = s.getDimAxes(d);
      if (!axes.empty())
        map[letters[d]] = AxisList(axes.begin(), axes.end());
    }
    rule->writeSplit(map);
  } else {
    op->setAttr(kSplitAttr, builder.getDictionaryAttr({}));
  }
  return op->getResult(0);
}

LogicalResult Padder::run() {
  Block &body = func.getBody().front();
  for (BlockArgument arg : func.getArguments())
    if (auto t = dyn_cast<RankedTensorType>(arg.getType()))
      for (unsigned d = 0; d < t.getRank(); ++d)
        slot(arg, d);
  for (Operation &op : body) {
    if (op.getNumRegions() != 0)
      return op.emitOpError() << "has regions; weft-pad-uneven handles flat "
                                 "functions";
    for (Value r : op.getResults())
      if (auto t = dyn_cast<RankedTensorType>(r.getType()))
        for (unsigned d = 0; d < t.getRank(); ++d)
          slot(r, d);
    if (failed(linkOp(&op)))
      return failure();
  }
  if (failed(sizeClasses()))
    return failure();
  if (padded.empty())
    return success(); // Every split divides: nothing to do.
  // A reshape moves no element: its merged dimensions follow their major
  // letter (sizeClasses), so their pads are whole rows of it at the end;
  // a padded minor letter would interleave pads with elements.
  for (Merged &m : mergedDims)
    for (unsigned minor : m.minors)
      if (isPadded(slots[minor].first, slots[minor].second))
        return m.op->emitOpError()
               << "has a minor letter of a merged dimension (spec \""
               << specOf(m.op) << "\") whose own dimension #"
               << slots[minor].second << " of its "
               << (slots[minor].first == m.op->getOperand(0) ? "input"
                                                             : "result")
               << " a sharding splits over axes that do not divide it: "
                  "pads would interleave with elements; split that "
                  "dimension over axes that divide it, or none";
  // Where pads cannot go (a slice's range, a concat's joined dimension,
  // top_k's k), the op refuses them.
  for (Operation &op : body)
    if (auto pads = dyn_cast<PadOpInterface>(op))
      if (failed(pads.verifyPadding(
              [&](Value v, unsigned d) { return paddedSize(v, d); })))
        return failure();

  // Decide the fills on the unpadded program, then retype.
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    if (!isa<func::ReturnOp>(op))
      ops.push_back(&op);
  SmallVector<Operation *> zeroAfter;
  SmallVector<std::pair<Operation *, double>> fillInput; // max/min: operand 0
  for (Operation *op : ops) {
    std::optional<ShardingRule> rule = ShardingRule::get(op);
    if (op->getNumResults() == 1 &&
        isa<RankedTensorType>(op->getResult(0).getType()) &&
        needsZeroing(op, rule ? &*rule : nullptr))
      zeroAfter.push_back(op);
    // An op that combines a padded letter by max or min (reduce max/min,
    // top_k's selection) reads its input with those pads at -inf / +inf.
    std::optional<ReductionKind> kind =
        rule ? rule->getReductionKind() : std::nullopt;
    if (kind && *kind != ReductionKind::Sum) {
      bool reducesPad = false;
      for (char c : rule->getLetters())
        reducesPad |= rule->isReduced(c) && letterPadded(*rule, c);
      if (reducesPad)
        fillInput.push_back(
            {op, *kind == ReductionKind::Max
                     ? -std::numeric_limits<double>::infinity()
                     : std::numeric_limits<double>::infinity()});
    }
  }

  // Retype every value with a padded dimension.
  auto retype = [&](Value v) -> LogicalResult {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return success();
    SmallVector<int64_t> shape;
    bool changed = false;
    for (unsigned d = 0; d < t.getRank(); ++d) {
      shape.push_back(paddedSize(v, d));
      changed |= shape.back() != t.getDimSize(d);
    }
    if (!changed)
      return success();
    if (!boundedProduct(shape, kMaxElements)) {
      // At the value (an argument's location, not the whole function).
      if (Operation *op = v.getDefiningOp())
        return op->emitOpError() << "padding " << t << " to its axes exceeds "
                                 << kMaxElements << " elements";
      return emitError(v.getLoc())
             << "padding argument #" << cast<BlockArgument>(v).getArgNumber()
             << " " << t << " to its axes exceeds " << kMaxElements
             << " elements";
    }
    logical[v] = SmallVector<int64_t>(t.getShape());
    v.setType(
        RankedTensorType::get(shape, t.getElementType(), t.getEncoding()));
    return success();
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(retype(arg)))
      return failure();
  for (Operation *op : ops)
    for (Value r : op->getResults())
      if (failed(retype(r)))
        return failure();

  // The ids of a padded vocabulary stay below its logical size.
  for (Operation *op : ops)
    if (auto block = dyn_cast<BlockIndexedOpInterface>(op);
        block && op->getNumOperands() > 0) {
      std::optional<ShardingRule> rule = ShardingRule::get(op);
      char c = block.getBlockLetter();
      for (unsigned i = 0; rule && i <= rule->getNumOperands(); ++i) {
        Value v = rule->getTensor(i);
        size_t d = rule->getTensorLetters(i).find(c);
        if (d == StringRef::npos || !logical.count(v) ||
            logical.lookup(v)[d] ==
                cast<RankedTensorType>(v.getType()).getDimSize(d))
          continue;
        op->setAttr(kVocabSizeAttr,
                    builder.getI64IntegerAttr(logical.lookup(v)[d]));
        break;
      }
    }
  SmallVector<Operation *> zeroFills;
  for (Operation *op : zeroAfter) {
    Value r = op->getResult(0);
    Value fill = insertFill(r, logical.lookup(r), 0.0, op->getNextNode());
    r.replaceAllUsesExcept(fill, fill.getDefiningOp());
    zeroFills.push_back(fill.getDefiningOp());
    logical[fill] = logical.lookup(r);
  }
  for (auto [op, value] : fillInput) {
    Value in = op->getOperand(0);
    // Only the pads of the reduced letters: the kept letters' pads keep
    // their zeros, so the result's pads are max(0, ..., 0, -inf, ...) = 0
    // (a reduced letter always has a valid index). Filling those too would
    // leave -inf in the result's pads.
    SmallVector<int64_t> valid(cast<RankedTensorType>(in.getType()).getShape());
    std::optional<ShardingRule> rule = ShardingRule::get(op);
    for (auto [d, c] : llvm::enumerate(rule->getTensorLetters(0)))
      if (rule->isReduced(c) && logical.count(in))
        valid[d] = logical.lookup(in)[d];
    // A zero fill right before adds nothing: fill its input instead.
    if (std::optional<PadFillParts> zero = matchPadFill(in);
        zero && zero->valid == ArrayRef<int64_t>(valid) && zero->fill == 0.0)
      in = zero->input;
    op->setOperand(0, insertFill(in, valid, value, op));
  }

  // A zero fill whose only reader took the -inf fill of its input instead
  // is dead: drop it (no pass over the tensor for nothing).
  for (Operation *fill : zeroFills)
    if (fill->use_empty())
      fill->erase();

  // The signature: padded types, the logical shapes beside them.
  Operation *ret = body.getTerminator();
  func.setFunctionType(FunctionType::get(
      func.getContext(), body.getArgumentTypes(), ret->getOperandTypes()));
  for (BlockArgument arg : func.getArguments())
    if (logical.count(arg))
      func.setArgAttr(arg.getArgNumber(), kLogicalShapeAttr,
                      builder.getDenseI64ArrayAttr(logical.lookup(arg)));
  for (auto [i, v] : llvm::enumerate(ret->getOperands()))
    if (logical.count(v))
      func.setResultAttr(i, kLogicalShapeAttr,
                         builder.getDenseI64ArrayAttr(logical.lookup(v)));
  return success();
}

namespace {
struct WeftPadUnevenPass
    : public mlir::weft::impl::WeftPadUnevenBase<WeftPadUnevenPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (isLocalView(func)) {
      func.emitOpError() << "is already partitioned; run --weft-pad-uneven "
                            "between --weft-propagate and --weft-partition";
      return signalPassFailure();
    }
    SymbolTableCollection tables;
    auto meshOp = getFunctionMesh(func, tables);
    if (failed(meshOp))
      return signalPassFailure();
    if (!*meshOp)
      return; // No mesh: nothing is split.
    Mesh mesh(*meshOp);
    if (failed(Padder(func, mesh).run()))
      return signalPassFailure();
  }
};
} // namespace

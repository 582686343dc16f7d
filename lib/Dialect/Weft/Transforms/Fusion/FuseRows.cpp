//===- FuseRows.cpp - the weft-fuse-rows pass -----------------------------===//
//
// --weft-fuse-rows, on the local view: a weft.reduce over the trailing
// letters of its input, with the maps and reductions around it over the
// same rows (softmax's max, subtract, exp, sum and divide; a norm's square,
// sum, rsqrt and multiply), becomes one weft.fused_rows, which the runtime
// computes one row at a time: each operand read once, only the last value
// written.
//
// The index space of a group is its seed reduction's input: kept positions
// then row positions. A member is a map whose result spans the space (a
// full value) or its kept positions (a row value), or a reduction from
// the full space to the kept positions. Every edge between members is
// checked positionally: the consumer reads the producer's value at an
// operand whose letters are the space (or its kept part) in order. From
// the seed the group extends
//  - downward while the current output's every use is one map (softmax's
//    divide, a norm's rsqrt chain and multiply), and
//  - upward, breadth-first, over producers whose every use is a member
//    (exp of softmax, read by the sum and the divide; the max reduction;
//    a norm's square),
// so exactly one value, the output, is used outside the group and nothing
// is computed twice. Groups over the runtime's limits (8 operands, 16
// steps) are left alone.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FusedSteps.h"
#include "weft/Dialect/Weft/IR/IndexSpec.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/rt/ElementPlans.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTFUSEROWS
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

#define DEBUG_TYPE "weft-fuse-rows"

using namespace mlir;
using namespace mlir::weft;

namespace {

IndexSpec parsedSpec(StringRef text, bool allowBroadcast) {
  std::string error;
  FailureOr<IndexSpec> spec = IndexSpec::parse(text, error, allowBroadcast);
  assert(succeeded(spec) && "verified spec");
  return *spec;
}

/// The seed reduction's index space: `numKept` kept positions then
/// `numRows` row positions; `names` are the seed input's letters, which
/// name the positions in the fused op.
struct Space {
  std::string names;
  unsigned numKept = 0, numRows = 0;
  SmallVector<int64_t> fullShape, rowShape;
  Type elementType;
};

/// A map or reduction of the space: whether its value is full, and where
/// each letter of its operands sits in the space (-1: not in it).
struct MemberShape {
  bool full = false;
  SmallVector<SmallVector<int>, 2> operandPositions;
};

std::optional<MemberShape> memberShape(Operation *op, const Space &space) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.getElementType() != space.elementType)
    return std::nullopt;
  MemberShape m;
  IndexSpec spec;
  std::string positionsOf; // the op's letters in position order
  if (auto red = dyn_cast<ReduceOp>(op)) {
    spec = parsedSpec(red.getSpec(), false);
    auto in = cast<RankedTensorType>(red.getInput().getType());
    // Full space in, its kept prefix out: the reduced letters trail.
    if (in.getShape() != ArrayRef<int64_t>(space.fullShape) ||
        type.getShape() != ArrayRef<int64_t>(space.rowShape) ||
        spec.result != spec.inputs[0].substr(0, space.numKept))
      return std::nullopt;
    positionsOf = spec.inputs[0];
    m.full = false;
  } else if (auto map = dyn_cast<MapOp>(op)) {
    spec = parsedSpec(map.getSpec(), true);
    if (type.getShape() == ArrayRef<int64_t>(space.fullShape))
      m.full = true;
    else if (type.getShape() == ArrayRef<int64_t>(space.rowShape))
      m.full = false;
    else
      return std::nullopt;
    positionsOf = spec.result;
  } else {
    return std::nullopt;
  }
  for (const std::string &letters : spec.inputs) {
    SmallVector<int> pos;
    for (char c : letters) {
      size_t at = positionsOf.find(c);
      pos.push_back(at == std::string::npos ? -1 : static_cast<int>(at));
    }
    m.operandPositions.push_back(pos);
  }
  return m;
}

/// Whether `positions` are 0, 1, ..., n-1.
bool isIota(ArrayRef<int> positions, unsigned n) {
  if (positions.size() != n)
    return false;
  for (unsigned i = 0; i < n; ++i)
    if (positions[i] != static_cast<int>(i))
      return false;
  return true;
}

struct RowGroup {
  Space space;
  SmallVector<Operation *> members; // the seed first
  llvm::SmallPtrSet<Operation *, 16> inGroup;
  llvm::DenseMap<Operation *, MemberShape> shapes;
  Operation *output = nullptr;

  bool add(Operation *op) {
    std::optional<MemberShape> m = memberShape(op, space);
    if (!m)
      return false;
    shapes[op] = *m;
    members.push_back(op);
    inGroup.insert(op);
    return true;
  }

  /// Whether `user` (a member or candidate) reads `producer`'s value at
  /// operand `k` as the producer's whole value, position for position.
  bool readsWhole(Operation *user, unsigned k, Operation *producer) {
    auto u = shapes.find(user), p = shapes.find(producer);
    if (u == shapes.end() || p == shapes.end())
      return false;
    unsigned n = space.numKept + (p->second.full ? space.numRows : 0);
    return isIota(u->second.operandPositions[k], n);
  }

  /// Whether `p` (not a member) can join: a map or reduction of the space
  /// whose every use is a member reading it whole.
  bool canAbsorb(Operation *p, Block *block) {
    if (!isa<MapOp, ReduceOp>(p) || p->getBlock() != block || p->use_empty() ||
        inGroup.contains(p))
      return false;
    std::optional<MemberShape> m = memberShape(p, space);
    if (!m)
      return false;
    shapes[p] = *m;
    for (OpOperand &use : p->getUses())
      if (!inGroup.contains(use.getOwner()) ||
          !readsWhole(use.getOwner(), use.getOperandNumber(), p)) {
        shapes.erase(p);
        return false;
      }
    members.push_back(p);
    inGroup.insert(p);
    return true;
  }

  // Built by build():
  SmallVector<std::pair<Value, std::string>> inputs;
  SmallVector<FusedMapStep> steps;
  llvm::DenseMap<Operation *, int> built;
  static constexpr int kStepBase = 1 << 20;

  /// `letters` of an operand that is no member, in the space's names;
  /// false unless it holds all row positions, trailing and in order, or
  /// none.
  bool inputLetters(ArrayRef<int> positions, std::string &letters) {
    letters.clear();
    unsigned rowsSeen = 0;
    for (auto [i, pos] : llvm::enumerate(positions)) {
      if (pos < 0)
        return false;
      if (static_cast<unsigned>(pos) >= space.numKept) {
        // A row position: the i-th from the end must be the last rows.
        unsigned fromEnd = positions.size() - i;
        if (fromEnd > space.numRows ||
            static_cast<unsigned>(pos) !=
                space.numKept + space.numRows - fromEnd)
          return false;
        ++rowsSeen;
      }
      letters.push_back(space.names[pos]);
    }
    return rowsSeen == 0 || rowsSeen == space.numRows;
  }

  int input(Value v, const std::string &letters) {
    for (auto [i, in] : llvm::enumerate(inputs))
      if (in.first == v && in.second == letters)
        return static_cast<int>(i);
    inputs.push_back({v, letters});
    return static_cast<int>(inputs.size() - 1);
  }

  /// Emits `op`'s subtree in post-order; -1 when the group cannot be
  /// expressed as a fused_rows.
  int build(Operation *op) {
    if (auto it = built.find(op); it != built.end())
      return it->second;
    const MemberShape &m = shapes[op];
    int ids[2] = {-1, -1};
    bool anyFull = false;
    for (unsigned k = 0; k < op->getNumOperands(); ++k) {
      Operation *producer = op->getOperand(k).getDefiningOp();
      if (producer && inGroup.contains(producer)) {
        if (!readsWhole(op, k, producer))
          return -1;
        ids[k] = build(producer);
        if (ids[k] < 0)
          return -1;
        anyFull |= shapes[producer].full;
        continue;
      }
      std::string letters;
      if (!inputLetters(m.operandPositions[k], letters))
        return -1;
      anyFull |=
          letters.size() > 0 && llvm::any_of(m.operandPositions[k], [&](int p) {
            return p >= static_cast<int>(space.numKept);
          });
      ids[k] = input(op->getOperand(k), letters);
    }
    FusedMapStep step;
    if (auto red = dyn_cast<ReduceOp>(op)) {
      step.reduce = true;
      step.reduceKind = red.getKind();
      step.a = ids[0];
    } else {
      auto map = cast<MapOp>(op);
      // A full map of row values only would broadcast: not a row step.
      if (m.full != anyFull)
        return -1;
      step.kind = map.getKind();
      step.a = ids[0];
      step.b = ids[1];
      step.scalar = map.getScalar() ? map.getScalar()->convertToDouble() : 0.0;
    }
    steps.push_back(step);
    int id = kStepBase + static_cast<int>(steps.size() - 1);
    built[op] = id;
    return id;
  }

  bool buildAll() {
    if (build(output) < 0 ||
        inputs.size() > static_cast<size_t>(::weft::rt::kMaxFusedInputs) ||
        steps.size() > static_cast<size_t>(::weft::rt::kMaxFusedSteps) ||
        built.size() != members.size())
      return false;
    int n = static_cast<int>(inputs.size());
    for (FusedMapStep &st : steps)
      for (int *id : {&st.a, &st.b})
        if (*id >= kStepBase)
          *id = *id - kStepBase + n;
    return true;
  }
};

/// A reduction over the trailing letters of its input: a group's seed.
std::optional<Space> seedSpace(ReduceOp red) {
  IndexSpec spec = parsedSpec(red.getSpec(), false);
  const std::string &in = spec.inputs[0];
  if (spec.result.empty() || spec.result.size() >= in.size() ||
      spec.result != in.substr(0, spec.result.size()))
    return std::nullopt;
  auto inType = cast<RankedTensorType>(red.getInput().getType());
  auto outType = cast<RankedTensorType>(red.getType());
  Space s;
  s.names = in;
  s.numKept = spec.result.size();
  s.numRows = in.size() - spec.result.size();
  s.fullShape.assign(inType.getShape().begin(), inType.getShape().end());
  s.rowShape.assign(outType.getShape().begin(), outType.getShape().end());
  s.elementType = inType.getElementType();
  return s;
}

struct FuseRowsPass : public mlir::weft::impl::WeftFuseRowsBase<FuseRowsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<ReduceOp> seeds;
    func.walk([&](ReduceOp op) { seeds.push_back(op); });
    llvm::SmallPtrSet<Operation *, 32> erased;
    for (ReduceOp seed : llvm::reverse(seeds)) {
      if (erased.contains(seed))
        continue;
      std::optional<Space> space = seedSpace(seed);
      if (!space)
        continue;
      RowGroup g;
      g.space = *space;
      if (!g.add(seed))
        continue;
      Block *block = seed->getBlock();
      // Downward: while the output's every use is one map of the space,
      // reading it whole.
      g.output = seed;
      for (;;) {
        Value out = g.output->getResult(0);
        if (out.use_empty())
          break;
        Operation *user = out.getUses().begin()->getOwner();
        if (!isa<MapOp>(user) || user->getBlock() != block ||
            llvm::any_of(out.getUses(),
                         [&](OpOperand &u) { return u.getOwner() != user; }))
          break;
        std::optional<MemberShape> m = memberShape(user, g.space);
        if (!m)
          break;
        g.shapes[user] = *m;
        if (!llvm::all_of(out.getUses(), [&](OpOperand &u) {
              return g.readsWhole(user, u.getOperandNumber(), g.output);
            })) {
          g.shapes.erase(user);
          break;
        }
        g.members.push_back(user);
        g.inGroup.insert(user);
        g.output = user;
      }
      // Upward: producers whose every use is a member, until none joins.
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < g.members.size(); ++i)
          for (Value operand : g.members[i]->getOperands())
            if (Operation *p = operand.getDefiningOp();
                p &&
                g.members.size() <
                    static_cast<size_t>(::weft::rt::kMaxFusedSteps) &&
                g.canAbsorb(p, block))
              changed = true;
      }
      if (g.members.size() < 2 || !g.buildAll())
        continue;
      std::string spec;
      SmallVector<Value> operands;
      for (auto [i, in] : llvm::enumerate(g.inputs)) {
        spec += (i ? "," : "") + in.second;
        operands.push_back(in.first);
      }
      bool full = g.shapes[g.output].full;
      spec += "->" + g.space.names.substr(0, g.space.numKept +
                                                 (full ? g.space.numRows : 0));
      std::string rows = g.space.names.substr(g.space.numKept);
      OpBuilder b(g.output);
      auto fused = FusedRowsOp::create(
          b, g.output->getLoc(), g.output->getResult(0).getType(),
          b.getStringAttr(spec), b.getStringAttr(rows), operands,
          b.getStringAttr(printFusedSteps(g.steps, operands.size())));
      WEFT_DEBUG(llvm::dbgs()
                 << "[weft-fuse-rows] " << g.members.size()
                 << " ops -> weft.fused_rows \"" << spec << "\" rows \"" << rows
                 << "\" at " << g.output->getLoc() << "\n");
      g.output->getResult(0).replaceAllUsesWith(fused.getResult());
      // Every member's users are members: drop their uses, then erase.
      for (Operation *m : g.members) {
        erased.insert(m);
        m->dropAllUses();
      }
      for (Operation *m : g.members)
        m->erase();
    }
  }
};

} // namespace

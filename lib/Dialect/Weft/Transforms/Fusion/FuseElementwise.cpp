//===- FuseElementwise.cpp - the weft-fuse-elementwise pass ---------------===//
//
// --weft-fuse-elementwise, on the local view: chains of weft.map become one
// weft.fused_map, which the runtime computes in one pass over memory (one
// kernel launch on a GPU). Maps are visited from the last; each unfused map
// roots a group that absorbs, breadth-first, the maps producing its
// operands when every use of the producer is by a member, at an operand
// spanning that member's whole index space in result order (so every member
// runs over the root's elements, letter for letter). The group is cut to the
// runtime's limits (8 operands, 16 steps) by dropping the last producers
// taken. Operands keep their own letters, renamed into the root's.
//
// The fused op is built at the root's position, so a producer taken into
// it is computed there, and its operands live until then instead of its
// result. A producer is taken only if the operands whose lives that
// extends across an op outside the group that allocates a tensor (not read
// at or after the root anyway) hold no more bytes than its result (and a
// sixteenth), which the fused op no longer makes: an elementwise chain
// fuses as before, but a producer of two full-size operands is not moved
// past other work. Without the rule an unrolled 1F1B pipeline's peak grew
// with its micro-batch count (docs/pipeline.md, "1F1B").
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
#define GEN_PASS_DEF_WEFTFUSEELEMENTWISE
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

#define DEBUG_TYPE "weft-fuse-elementwise"

using namespace mlir;
using namespace mlir::weft;

namespace {

IndexSpec specOf(MapOp op) {
  std::string error;
  FailureOr<IndexSpec> spec =
      IndexSpec::parse(op.getSpec(), error, /*allowBroadcast=*/true);
  assert(succeeded(spec) && "verified map spec");
  return *spec;
}

/// Whether operand `k` of `user` covers the user's index space in result
/// order (its letters are the result's).
bool spansResult(MapOp user, unsigned k) {
  IndexSpec spec = specOf(user);
  return spec.inputs[k] == spec.result;
}

/// Whether `producer` can join a group whose members are `inGroup`: every
/// use is by a member, at an operand spanning that member's index space
/// (so fusing computes nothing twice and the value is never needed whole).
bool canAbsorb(MapOp producer,
               const llvm::SmallPtrSetImpl<Operation *> &inGroup) {
  if (producer->use_empty())
    return false;
  for (OpOperand &use : producer->getUses()) {
    auto user = dyn_cast<MapOp>(use.getOwner());
    if (!user || !inGroup.contains(user) ||
        user->getBlock() != producer->getBlock() ||
        !spansResult(user, use.getOperandNumber()))
      return false;
  }
  return true;
}

/// Bytes of a tensor value (0 for any other type).
int64_t bytesOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return 0;
  return t.getNumElements() *
         static_cast<int64_t>((t.getElementTypeBitWidth() + 7) / 8);
}

/// Whether `op` makes a tensor (an allocation the runtime keeps until its
/// last use).
bool allocates(Operation *op) {
  return llvm::any_of(op->getResultTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

/// A group under construction: its members (the root first, then
/// producers breadth-first) and, once built, the fused op's pieces.
struct Group {
  SmallVector<MapOp> members;
  llvm::SmallPtrSet<Operation *, 16> inGroup;
  // Built by build():
  SmallVector<std::pair<Value, std::string>> inputs;
  SmallVector<FusedMapStep> steps;

  /// Value id of (value, letters) as an operand, adding it when new.
  int input(Value v, const std::string &letters) {
    for (auto [i, in] : llvm::enumerate(inputs))
      if (in.first == v && in.second == letters)
        return static_cast<int>(i);
    inputs.push_back({v, letters});
    return static_cast<int>(inputs.size() - 1);
  }

  /// Emits `op`'s subtree in post-order; `rename` maps op's result letters
  /// to the root's. Step value ids are offset by kStepBase until the
  /// operand count is known.
  static constexpr int kStepBase = 1 << 20;
  llvm::DenseMap<Operation *, int> built;
  int build(MapOp op, const llvm::DenseMap<char, char> &rename) {
    if (auto it = built.find(op); it != built.end())
      return it->second; // A member read twice (x * sigmoid(x)).
    IndexSpec spec = specOf(op);
    int ids[2] = {-1, -1};
    for (unsigned k = 0; k < op->getNumOperands(); ++k) {
      auto producer = op->getOperand(k).getDefiningOp<MapOp>();
      if (producer && inGroup.contains(producer)) {
        // Producer's result letter at position d is op's result letter d.
        IndexSpec ps = specOf(producer);
        llvm::DenseMap<char, char> inner;
        for (size_t d = 0; d < ps.result.size(); ++d)
          inner[ps.result[d]] = rename.lookup(spec.result[d]);
        ids[k] = build(producer, inner);
        continue;
      }
      std::string letters;
      for (char c : spec.inputs[k])
        letters.push_back(rename.lookup(c));
      ids[k] = input(op->getOperand(k), letters);
    }
    FusedMapStep step;
    step.kind = op.getKind();
    step.a = ids[0];
    step.b = ids[1];
    step.scalar = op.getScalar() ? op.getScalar()->convertToDouble() : 0.0;
    steps.push_back(step);
    int id = kStepBase + static_cast<int>(steps.size() - 1);
    built[op] = id;
    return id;
  }

  /// Builds inputs and steps from the members; false when over a limit.
  bool buildAll() {
    inputs.clear();
    steps.clear();
    built.clear();
    MapOp root = members.front();
    IndexSpec spec = specOf(root);
    llvm::DenseMap<char, char> identity;
    for (char c : spec.result)
      identity[c] = c;
    build(root, identity);
    if (inputs.size() > static_cast<size_t>(::weft::rt::kMaxFusedInputs) ||
        steps.size() > static_cast<size_t>(::weft::rt::kMaxFusedSteps))
      return false;
    int n = static_cast<int>(inputs.size());
    for (FusedMapStep &st : steps)
      for (int *id : {&st.a, &st.b})
        if (*id >= kStepBase)
          *id = *id - kStepBase + n;
    return true;
  }
};

/// Program order of a function's ops (per block), kept as groups fuse: a
/// fused op takes its root's place (erased members are no longer in the
/// block, so the walks below do not meet them).
struct Order {
  llvm::DenseMap<Operation *, unsigned> position;

  explicit Order(func::FuncOp func) {
    func.walk([&](Block *block) {
      unsigned i = 0;
      for (Operation &op : *block)
        position[&op] = i++;
    });
  }

  /// Whether moving `producer` to `root`, the group's place, would keep
  /// operands of it alive across an op outside the group that allocates,
  /// more bytes of them than the producer's result.
  bool extendsLives(MapOp producer, MapOp root, const Group &g) const {
    unsigned at = position.lookup(producer), end = position.lookup(root);
    int64_t extended = 0;
    llvm::SmallPtrSet<Value, 2> seen;
    for (Value v : producer->getOperands()) {
      if (!seen.insert(v).second)
        continue;
      unsigned last = at;
      bool liveAtRoot = false;
      for (Operation *user : v.getUsers()) {
        if (user == producer || g.inGroup.contains(user))
          continue;
        auto it = position.find(user);
        if (user->getBlock() != root->getBlock() || it == position.end() ||
            it->second >= end) {
          liveAtRoot = true;
          break;
        }
        last = std::max(last, it->second);
      }
      if (liveAtRoot)
        continue;
      for (Operation *op = producer->getNextNode();
           op && op != root.getOperation(); op = op->getNextNode()) {
        if (position.lookup(op) <= last || g.inGroup.contains(op))
          continue;
        if (allocates(op)) {
          extended += bytesOf(v);
          break;
        }
      }
    }
    // A sixteenth of slack: a broadcast operand (a row's statistic, a
    // scalar) beside a full-size one is not worth a pass over memory.
    return extended * 16 > bytesOf(producer.getResult()) * 17;
  }
};

struct FuseElementwisePass
    : public mlir::weft::impl::WeftFuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<MapOp> maps;
    func.walk([&](MapOp op) { maps.push_back(op); });
    Order order(func);
    llvm::SmallPtrSet<Operation *, 32> erased;
    for (MapOp root : llvm::reverse(maps)) {
      if (erased.contains(root))
        continue;
      Group g;
      g.members.push_back(root);
      g.inGroup.insert(root);
      // Takes the producers of `m`'s operands that qualify.
      auto absorbProducers = [&](MapOp m) {
        for (Value operand : m->getOperands()) {
          auto p = operand.getDefiningOp<MapOp>();
          if (p && !g.inGroup.contains(p) && canAbsorb(p, g.inGroup) &&
              g.members.size() <
                  static_cast<size_t>(::weft::rt::kMaxFusedSteps) &&
              !order.extendsLives(p, root, g)) {
            g.members.push_back(p);
            g.inGroup.insert(p);
          }
        }
      };
      for (size_t i = 0; i < g.members.size(); ++i) {
        absorbProducers(g.members[i]);
        // A producer refused earlier may qualify once its other user joined.
        if (i + 1 == g.members.size())
          for (size_t j = 0; j < g.members.size(); ++j)
            absorbProducers(g.members[j]);
      }
      // Over a limit: drop the last producer taken, then every member left
      // with a user outside the group, until it fits.
      while (g.members.size() > 1 && !g.buildAll()) {
        g.inGroup.erase(g.members.back());
        g.members.pop_back();
        for (bool changed = true; changed;) {
          changed = false;
          for (size_t j = 1; j < g.members.size(); ++j)
            if (!canAbsorb(g.members[j], g.inGroup)) {
              g.inGroup.erase(g.members[j]);
              g.members.erase(g.members.begin() + j);
              changed = true;
              break;
            }
        }
      }
      if (g.members.size() < 2)
        continue;
      std::string spec;
      SmallVector<Value> operands;
      for (auto [i, in] : llvm::enumerate(g.inputs)) {
        spec += (i ? "," : "") + in.second;
        operands.push_back(in.first);
      }
      spec += "->" + specOf(root).result;
      OpBuilder b(root);
      auto fused = FusedMapOp::create(
          b, root.getLoc(), root.getType(), b.getStringAttr(spec), operands,
          b.getStringAttr(printFusedSteps(g.steps, operands.size())));
      WEFT_DEBUG(llvm::dbgs() << "[weft-fuse-elementwise] " << g.members.size()
                              << " maps -> weft.fused_map \"" << spec
                              << "\" at " << root.getLoc() << "\n");
      order.position[fused] = order.position.lookup(root);
      root.getResult().replaceAllUsesWith(fused.getResult());
      // Every member's users are members: drop their uses, then erase.
      for (MapOp m : g.members) {
        erased.insert(m);
        order.position.erase(m); // A new op may take its address.
        m->dropAllUses();
      }
      for (MapOp m : g.members)
        m->erase();
    }
  }
};

} // namespace

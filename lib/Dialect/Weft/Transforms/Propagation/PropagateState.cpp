//===- PropagateState.cpp - value states and annotations ------------------===//

#include "Propagator.h"

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

#define DEBUG_TYPE "weft-propagate"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::propagate;

void Propagator::setLayout(Value v, const Layout &layout, Origin origin) {
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
      states[arg] = {
          store(Layout::get(s)), true, {Origin::AnnotatedArgument, nullptr}};
  }
  // weft.shard constraints on one value must agree.
  llvm::DenseMap<Value, ShardOp> constraintOf;
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    if (ShardingRule::hasSplit(op) && op->hasAttr(kSplitAttr)) {
      FailureOr<LetterMap> recorded = ShardingRule::readSplit(op);
      if (failed(recorded)) {
        op->emitOpError()
            << "has a malformed `weft.split` letter map "
            << op->getAttr(kSplitAttr)
            << ": each entry maps one index letter to an array of mesh axis "
               "names (remove the attribute to let weft-propagate choose)";
        return WalkResult::interrupt();
      }
      recordedSplits[op] = std::move(*recorded);
    }
    for (Value r : op->getResults())
      if (ShardingAttr s = getSharding(r.getType()))
        states[r] = {
            store(Layout::get(s)), true, {Origin::AnnotatedResult, op}};
    if (auto shard = dyn_cast<ShardOp>(op)) {
      auto [it, inserted] = constraintOf.try_emplace(shard.getInput(), shard);
      if (!inserted &&
          getSharding(it->second.getType()) != getSharding(shard.getType())) {
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
  // Every op must be one propagation knows. The rules are built here once,
  // in program order, and moved into `rules` in the canonical order below.
  std::vector<std::optional<ShardingRule>> ruleAt;
  llvm::DenseMap<Operation *, unsigned> position;
  ruleAt.reserve(numOps);
  position.reserve(numOps);
  for (Operation &op : func.getBody().getOps()) {
    if (isa<func::ReturnOp>(op))
      continue;
    position[&op] = ruleAt.size();
    ruleAt.push_back(ShardingRule::get(&op));
    if (!ruleAt.back())
      return op.emitOpError()
             << "is not handled by weft-propagate (only weft index-letter ops "
                "and weft.shard are)"
             << (isa<func::CallOp>(op) ? "; flatten layer calls first with "
                                         "--weft-inline-calls (weftc does)"
                                       : "");
  }
  if (!func.getBody().hasOneBlock())
    return func.emitOpError() << "weft functions have a single block";

  // Depth-first post-order from the return's operands, iteratively.
  llvm::DenseSet<Operation *> visited;
  visited.reserve(numOps);
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
      rules.push_back(std::move(*ruleAt[position.find(op)->second]));
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

void Propagator::writeBack() {
  // Building a ShardingAttr uniques every axis name and list; the values of
  // a program share few layouts. The key is the layout's axis names by
  // address and length: equal keys are equal layouts.
  std::map<SmallVector<uintptr_t, 16>, ShardingAttr> attrs;
  auto attrOf = [&](const Layout &l) {
    SmallVector<uintptr_t, 16> key;
    auto add = [&](ArrayRef<StringRef> axes) {
      for (StringRef a : axes)
        key.append({reinterpret_cast<uintptr_t>(a.data()), a.size()});
      key.push_back(0);
    };
    for (const AxisList &axes : l.dims)
      add(axes);
    key.push_back(uintptr_t(l.partialKind));
    add(l.partialAxes);
    auto [it, inserted] = attrs.try_emplace(std::move(key));
    if (inserted)
      it->second = l.getAttr(mesh.getRef());
    return it->second;
  };
  auto retype = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    ValueState &s = states[v];
    ShardingAttr attr = s.layout
                            ? attrOf(*s.layout)
                            : attrOf(Layout::getReplicated(type.getRank()));
    v.setType(
        RankedTensorType::get(type.getShape(), type.getElementType(), attr));
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

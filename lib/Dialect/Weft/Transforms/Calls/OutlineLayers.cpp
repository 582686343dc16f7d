//===- OutlineLayers.cpp - the weft-outline-layers pass -------------------===//
//
// The local program is compiled flat (weft-inline-calls first), so every
// layer call left L copies of the layer's ops, forward and backward. This
// pass finds them again and outlines each set of equal copies into one
// function, so that the lowering emits one C++ function per layer body and
// a call per call site: the generated C++ and its compile no longer grow
// with depth (docs/calls.md, "Outlining the local program").
//
//   1. Runs: maximal contiguous sequences of the entry's ops whose location
//      is `callsite(<line in the layer> at <call>)` with the same call.
//   2. Canonical form of a run: per op, its name, attributes (but
//      weft.reason, which names lines and values), result types, and each
//      operand as "external value k" (first-use order, with its type) or
//      "result j of the run's op i". Runs with the same form compute the
//      same function of their external values.
//      An asynchronous collective's start and wait stay in one function
//      (the verifier's rule): one whose partner is outside its run is left
//      in the caller, the run cut there.
//   3. Each form shared by two or more runs becomes a private function of
//      the external values returning the union over its runs of the values
//      used after the run; each run becomes a func.call at the call's
//      location.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>
#include <set>
#include <vector>

#define DEBUG_TYPE "weft-outline-layers"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTOUTLINELAYERS
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// The call `loc` was inlined through (the caller of its outermost
/// call-site location, seen through a name) and the location inside the
/// callee; no call: a null caller. An optimizer update's name location
/// (kUpdateLocPrefix) is its own caller.
std::pair<LocationAttr, Location> splitCallSite(Location loc) {
  if (auto site = dyn_cast<CallSiteLoc>(loc))
    return {site.getCaller(), site.getCallee()};
  if (auto name = dyn_cast<NameLoc>(loc)) {
    // One parameter's optimizer update (--weft-optimizer) is a group as a
    // call is.
    if (name.getName().getValue().starts_with(kUpdateLocPrefix))
      return {name, name.getChildLoc()};
    auto [caller, callee] = splitCallSite(name.getChildLoc());
    if (caller)
      return {caller, NameLoc::get(name.getName(), callee)};
  }
  return {LocationAttr(), loc};
}

/// Whether a run's group is an optimizer update (not a call).
bool isUpdate(LocationAttr group) {
  auto name = dyn_cast_or_null<NameLoc>(group);
  return name && name.getName().getValue().starts_with(kUpdateLocPrefix);
}

/// One run: contiguous ops from one call.
struct Run {
  SmallVector<Operation *> ops;
  LocationAttr call;
  /// The values the run reads and does not make, in first-use order.
  SmallVector<Value> externals;
};

/// An op may be outlined: one block's plain op, no region, no terminator,
/// no call.
bool outlinable(Operation *op) {
  return op->getNumRegions() == 0 && !op->hasTrait<OpTrait::IsTerminator>() &&
         !isa<func::CallOp>(op);
}

/// The canonical form of `run` (step 2 above) as a sequence of opaque
/// words; fills `run.externals`.
std::vector<const void *> canonicalForm(Run &run) {
  std::vector<const void *> form;
  DenseMap<Operation *, unsigned> index;
  DenseMap<Value, unsigned> external;
  auto word = [](uintptr_t v) { return reinterpret_cast<const void *>(v); };
  for (auto [i, op] : llvm::enumerate(run.ops)) {
    index[op] = i;
    form.push_back(op->getName().getAsOpaquePointer());
    NamedAttrList attrs(op->getAttrDictionary());
    attrs.erase(kReasonAttr);
    form.push_back(attrs.getDictionary(op->getContext()).getAsOpaquePointer());
    form.push_back(word(op->getNumResults()));
    for (Type t : op->getResultTypes())
      form.push_back(t.getAsOpaquePointer());
    form.push_back(word(op->getNumOperands()));
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      auto it = def ? index.find(def) : index.end();
      if (it != index.end()) {
        form.push_back(word(1));
        form.push_back(word(it->second));
        form.push_back(word(cast<OpResult>(v).getResultNumber()));
        continue;
      }
      auto [ext, inserted] = external.try_emplace(v, run.externals.size());
      if (inserted)
        run.externals.push_back(v);
      form.push_back(word(2));
      form.push_back(word(ext->second));
      form.push_back(v.getType().getAsOpaquePointer());
    }
  }
  return form;
}

/// The runs of `body`: maximal contiguous sequences of outlinable ops with
/// one call site, of two ops or more.
SmallVector<Run> findRuns(Block &body) {
  SmallVector<Run> runs;
  Run current{{}, LocationAttr(), {}};
  auto close = [&] {
    if (current.ops.size() >= 2)
      runs.push_back(current);
    current = Run{{}, LocationAttr(), {}};
  };
  for (Operation &op : body) {
    LocationAttr call =
        outlinable(&op) ? splitCallSite(op.getLoc()).first : LocationAttr();
    if (!call || call != current.call)
      close();
    if (!call)
      continue;
    current.call = call;
    current.ops.push_back(&op);
  }
  close();
  return runs;
}

/// Whether `op` is half of an asynchronous collective whose other half is
/// not in `inRun`: a start (weft.async) whose wait is outside, or a wait
/// whose start is. The verifier wants a start's one use to be its wait in
/// the same function, so such an op stays in the caller.
bool pairedOutside(Operation *op,
                   const llvm::SmallPtrSetImpl<Operation *> &inRun) {
  if (op->hasAttr(kAsyncAttr))
    return llvm::any_of(op->getUsers(),
                        [&](Operation *u) { return !inRun.contains(u); });
  if (op->hasTrait<CompletesCollective>())
    return llvm::any_of(op->getOperands(), [&](Value v) {
      return !v.getDefiningOp() || !inRun.contains(v.getDefiningOp());
    });
  return false;
}

/// `runs` with every op paired outside its run taken out, the run cut
/// there (pieces of one op dropped), until no run has one.
SmallVector<Run> cutAtAsyncPairs(SmallVector<Run> runs) {
  for (bool changed = true; changed;) {
    changed = false;
    SmallVector<Run> out;
    for (Run &run : runs) {
      llvm::SmallPtrSet<Operation *, 32> inRun(run.ops.begin(), run.ops.end());
      Run piece{{}, run.call, {}};
      auto close = [&] {
        if (piece.ops.size() >= 2)
          out.push_back(piece);
        piece.ops.clear();
      };
      for (Operation *op : run.ops) {
        if (pairedOutside(op, inRun)) {
          changed = true;
          close();
          continue;
        }
        piece.ops.push_back(op);
      }
      close();
    }
    runs = std::move(out);
  }
  return runs;
}

struct WeftOutlineLayers
    : public weft::impl::WeftOutlineLayersBase<WeftOutlineLayers> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    unsigned next = 0;
    for (func::FuncOp f : funcs)
      if (!f.isExternal() && f.getBody().hasOneBlock())
        outline(f, symbols, next);
  }

  /// The results of outlined runs' ops, by the call results that replace
  /// them.
  DenseMap<Value, Value> replaced;
  /// The ops of the outlined runs.
  SmallVector<Operation *> dead;

  void outline(func::FuncOp entry, SymbolTable &symbols, unsigned &next) {
    SmallVector<Run> runs = cutAtAsyncPairs(findRuns(entry.getBody().front()));
    // A program written without layer calls keeps its flat lowering, its
    // optimizer updates included (docs/calls.md).
    if (llvm::all_of(runs, [](const Run &r) { return isUpdate(r.call); }))
      return;
    // Classes of equal forms, in the order of their first run.
    std::map<std::vector<const void *>, unsigned> classOf;
    SmallVector<SmallVector<unsigned>> classes;
    for (unsigned r = 0; r < runs.size(); ++r) {
      auto [it, inserted] =
          classOf.try_emplace(canonicalForm(runs[r]), classes.size());
      if (inserted)
        classes.emplace_back();
      classes[it->second].push_back(r);
    }
    for (ArrayRef<unsigned> members : classes)
      if (members.size() >= 2)
        outlineClass(entry, runs, members, symbols, next);
    for (Operation *op : dead)
      op->dropAllReferences();
    for (Operation *op : dead)
      op->erase();
    dead.clear();
    replaced.clear();
  }

  void outlineClass(func::FuncOp entry, MutableArrayRef<Run> runs,
                    ArrayRef<unsigned> members, SymbolTable &symbols,
                    unsigned &next) {
    MLIRContext *ctx = entry.getContext();
    // An external value an earlier outlined run made is now its call's
    // result.
    for (unsigned m : members)
      for (Value &v : runs[m].externals)
        if (Value r = replaced.lookup(v))
          v = r;
    Run &first = runs[members.front()];
    // The values used after the run by any member: (op, result) of the run.
    std::set<std::pair<unsigned, unsigned>> escaping;
    for (unsigned m : members) {
      Run &run = runs[m];
      llvm::SmallPtrSet<Operation *, 32> inRun(run.ops.begin(), run.ops.end());
      for (auto [i, op] : llvm::enumerate(run.ops))
        for (OpResult r : op->getResults())
          if (llvm::any_of(r.getUsers(),
                           [&](Operation *u) { return !inRun.contains(u); }))
            escaping.insert({static_cast<unsigned>(i), r.getResultNumber()});
    }
    // weft.reason names lines and values of one call: kept where every
    // member agrees.
    SmallVector<bool> sameReason;
    for (auto [i, op] : llvm::enumerate(first.ops))
      sameReason.push_back(llvm::all_of(members, [&](unsigned m) {
        return runs[m].ops[i]->getAttr(kReasonAttr) == op->getAttr(kReasonAttr);
      }));

    // The function, before the entry.
    SmallVector<Type> argTypes, resultTypes;
    for (Value v : first.externals)
      argTypes.push_back(v.getType());
    for (auto [i, j] : escaping)
      resultTypes.push_back(first.ops[i]->getResult(j).getType());
    OpBuilder b(entry);
    std::string name;
    StringRef prefix = isUpdate(first.call) ? "update_" : "layer_";
    do
      name = (prefix + Twine(next++)).str();
    while (symbols.lookup(name));
    Location fnLoc = splitCallSite(first.ops.front()->getLoc()).second;
    auto fn = func::FuncOp::create(
        b, fnLoc, name, FunctionType::get(ctx, argTypes, resultTypes));
    fn.setPrivate();
    symbols.insert(fn);
    SmallVector<Location> argLocs(argTypes.size(), fnLoc);
    Block *body = b.createBlock(&fn.getBody(), {}, argTypes, argLocs);
    IRMapping mapping;
    for (auto [v, arg] : llvm::zip_equal(first.externals, body->getArguments()))
      mapping.map(v, arg);
    for (auto [i, op] : llvm::enumerate(first.ops)) {
      Operation *copy = b.clone(*op, mapping);
      copy->setLoc(splitCallSite(op->getLoc()).second);
      if (!sameReason[i])
        copy->removeAttr(kReasonAttr);
    }
    SmallVector<Value> returned;
    for (auto [i, j] : escaping)
      returned.push_back(mapping.lookup(first.ops[i]->getResult(j)));
    func::ReturnOp::create(b, fnLoc, returned);

    // Each member becomes a call.
    for (unsigned m : members) {
      Run &run = runs[m];
      OpBuilder at(run.ops.front());
      // (A member may read what an earlier member made.)
      for (Value &v : run.externals)
        if (Value r = replaced.lookup(v))
          v = r;
      auto call =
          func::CallOp::create(at, Location(run.call), fn, run.externals);
      llvm::SmallPtrSet<Operation *, 32> inRun(run.ops.begin(), run.ops.end());
      for (auto [k, ij] : llvm::enumerate(escaping)) {
        Value old = run.ops[ij.first]->getResult(ij.second);
        replaced[old] = call.getResult(k);
        old.replaceUsesWithIf(call.getResult(k), [&](OpOperand &use) {
          return !inRun.contains(use.getOwner());
        });
      }
      // Erased at the end: `replaced` is keyed by these ops' results, whose
      // memory a new op could otherwise take.
      dead.append(run.ops.begin(), run.ops.end());
    }
  }
};

} // namespace

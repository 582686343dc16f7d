//===- PlanLayers.cpp - One sharding plan per layer call ------------------===//
//
// weft-plan-layers (docs/calls.md, "One plan per layer"). Propagation's
// global search costs time per op, and a model with L layer calls has L
// copies of the layer's forward, backward and optimizer ops once inlined
// and differentiated. This pass propagates a copy of the program that keeps
// three calls of each layer function called four times or more (the first,
// the second and the last; a middle call's results are replaced by its
// operands), and gives the module's ops the plan of their counterparts in
// the copy: the first and last calls their own, every middle call the
// second call's. Propagation's work then does not grow with the number of
// calls, and the middle calls compile to one local function each
// (weft-outline-layers).
//
//===----------------------------------------------------------------------===//

#include "PlanLayers.h"

#include "weft/Pipeline/Pipeline.h"

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/Transforms/Vjp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"

#include <string>

using namespace mlir;
using namespace mlir::weft;

namespace {

/// A layer function called fewer times gains nothing from the copy.
constexpr unsigned kMinCalls = 4;

/// How the module's names map onto the copy's.
struct Reduction {
  /// The location of each elided call -> that of the call standing for it.
  llvm::DenseMap<const void *, Location> callers;
  /// Entry argument # of the module -> of the copy (before training).
  SmallVector<unsigned> args;
  /// An erased argument's name -> the standing argument's: a name location
  /// ending in a parameter's name (autodiff's "gradient of Wq_3") names
  /// its counterpart so.
  llvm::StringMap<std::string> names;
};

/// The one public function with a body that makes calls; none when there
/// are several.
func::FuncOp findEntry(ModuleOp module) {
  func::FuncOp entry;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal() || !f.isPublic())
      continue;
    bool calls = false;
    f.walk([&](func::CallOp) { calls = true; });
    if (!calls)
      continue;
    if (entry)
      return {};
    entry = f;
  }
  return entry;
}

/// A call whose first results have its first operands' types: the layer
/// of a residual stream, elided by passing those operands on. A vjp's call
/// (its first result is its first operand's gradient) is none.
bool elidable(func::CallOp call) {
  if (call.getNumResults() > call.getNumOperands())
    return false;
  if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      callee && callee->hasAttr(kVjpOfAttr))
    return false;
  for (auto [r, o] : llvm::zip(call.getResults(), call.getOperands()))
    if (r.getType() != o.getType())
      return false;
  return true;
}

/// The calls of each function `entry`'s block calls, in program order.
llvm::MapVector<StringAttr, SmallVector<func::CallOp>>
callsByCallee(func::FuncOp entry) {
  llvm::MapVector<StringAttr, SmallVector<func::CallOp>> byCallee;
  for (Operation &op : entry.front())
    if (auto call = dyn_cast<func::CallOp>(op))
      byCallee[call.getCalleeAttr().getAttr()].push_back(call);
  return byCallee;
}

/// Whether `calls` are of a layer the copy shortens.
bool repeated(ArrayRef<func::CallOp> calls) {
  return calls.size() >= kMinCalls && llvm::all_of(calls, elidable);
}

/// Elides the middle calls of every layer function `entry` calls
/// kMinCalls times or more (ops of its block only) and erases the entry
/// arguments only they read. Fails where nothing is elided or two calls
/// share a location (a location is how an inlined op names its call).
FailureOr<Reduction> reduce(func::FuncOp entry) {
  Block &body = entry.front();
  auto byCallee = callsByCallee(entry);
  llvm::DenseSet<const void *> locs;
  for (auto &[callee, calls] : byCallee)
    for (func::CallOp call : calls)
      if (!locs.insert(call.getLoc().getAsOpaquePointer()).second)
        return failure();
  Reduction r;
  unsigned n = entry.getNumArguments();
  // An argument only elided calls read -> the argument the standing call
  // reads in its place.
  llvm::DenseMap<unsigned, unsigned> standsFor;
  bool any = false;
  for (auto &[callee, calls] : byCallee) {
    if (!repeated(calls))
      continue;
    any = true;
    func::CallOp rep = calls[1];
    for (unsigned k = 2; k + 1 < calls.size(); ++k) {
      func::CallOp call = calls[k];
      r.callers.try_emplace(call.getLoc().getAsOpaquePointer(), rep.getLoc());
      for (auto [j, operand] : llvm::enumerate(call.getOperands())) {
        auto arg = dyn_cast<BlockArgument>(operand);
        auto repArg = dyn_cast<BlockArgument>(rep.getOperand(j));
        if (arg && repArg && arg.getOwner() == &body &&
            repArg.getOwner() == &body)
          standsFor.try_emplace(arg.getArgNumber(), repArg.getArgNumber());
      }
      for (auto [res, operand] :
           llvm::zip(call.getResults(), call.getOperands()))
        res.replaceAllUsesWith(operand);
      call.erase();
    }
  }
  if (!any)
    return failure();
  llvm::BitVector erase(n);
  for (auto [i, rep] : standsFor)
    if (entry.getArgument(i).use_empty())
      erase.set(i);
  SmallVector<unsigned> kept(n);
  for (unsigned i = 0, next = 0; i < n; ++i)
    kept[i] = erase.test(i) ? ~0u : next++;
  r.args.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    r.args[i] = erase.test(i) ? kept[standsFor[i]] : kept[i];
    if (erase.test(i))
      r.names[getArgNameOr(entry, i)] = getArgNameOr(entry, standsFor[i]);
  }
  if (failed(entry.eraseArguments(erase)))
    return failure();
  return r;
}

/// `loc` of a module op as the copy names its counterpart: an elided
/// call's site becomes the standing call's, an optimizer update's
/// parameter # the copy's.
Location mapLoc(Location loc, const Reduction &r) {
  MLIRContext *ctx = loc.getContext();
  if (auto site = dyn_cast<CallSiteLoc>(loc)) {
    auto it = r.callers.find(site.getCaller().getAsOpaquePointer());
    return it == r.callers.end()
               ? loc
               : CallSiteLoc::get(site.getCallee(), it->second);
  }
  if (auto name = dyn_cast<NameLoc>(loc)) {
    StringAttr id = name.getName();
    StringRef text = id.getValue();
    unsigned arg;
    if (text.starts_with(kUpdateLocPrefix) &&
        !text.drop_front(kUpdateLocPrefix.size()).getAsInteger(10, arg) &&
        arg < r.args.size())
      id = StringAttr::get(ctx, (kUpdateLocPrefix + Twine(r.args[arg])).str());
    else {
      auto [head, last] = text.rsplit(' ');
      auto it = r.names.find(last);
      if (it != r.names.end())
        id = StringAttr::get(
            ctx, head.empty() ? it->second : (head + " " + it->second).str());
    }
    return NameLoc::get(id, mapLoc(name.getChildLoc(), r));
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    SmallVector<Location> parts;
    for (Location l : fused.getLocations())
      parts.push_back(mapLoc(l, r));
    return FusedLoc::get(ctx, parts, fused.getMetadata());
  }
  return loc;
}

/// The copy's argument standing for argument `i` of the module's entry
/// (after training: parameters' states and hyperparameters appended), or
/// -1.
int argOf(func::FuncOp full, func::FuncOp copy, unsigned i,
          unsigned numOriginal, const Reduction &r) {
  if (i < numOriginal)
    return r.args[i];
  if (auto of = full.getArgAttrOfType<IntegerAttr>(i, kStateOfAttr)) {
    unsigned ordinal = 0;
    for (unsigned k = numOriginal; k < i; ++k)
      if (full.getArgAttr(k, kStateOfAttr) == of)
        ++ordinal;
    uint64_t param = of.getInt();
    if (param >= r.args.size())
      return -1;
    for (unsigned k = 0; k < copy.getNumArguments(); ++k) {
      auto s = copy.getArgAttrOfType<IntegerAttr>(k, kStateOfAttr);
      if (s && uint64_t(s.getInt()) == r.args[param] && ordinal-- == 0)
        return k;
    }
    return -1;
  }
  if (auto h = full.getArgAttr(i, kHyperparamAttr)) {
    for (unsigned k = 0; k < copy.getNumArguments(); ++k)
      if (copy.getArgAttr(k, kHyperparamAttr) == h)
        return k;
  }
  return -1;
}

bool sameShape(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb)
    return a == b;
  return ta.getShape() == tb.getShape() &&
         ta.getElementType() == tb.getElementType();
}

/// Whether an op at `loc` belongs to one call or one optimizer update (its
/// counterpart is found by position in the group).
bool inGroup(Location loc) {
  if (isa<CallSiteLoc>(loc))
    return true;
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue().starts_with(kUpdateLocPrefix) ||
           inGroup(name.getChildLoc());
  return false;
}

/// Each op's key: an op of a call or an update, its (mapped) location,
/// name and ordinal among the ops of its group with both; any other op,
/// its location, name and its operands' keys (such ops are shared by all
/// calls, as the loss head, or one per parameter, as the gradient's
/// constraint to the parameter's layout, and the copy has fewer of them).
/// `arg` gives an argument's key (its number in the copy).
llvm::DenseMap<Operation *, llvm::hash_code>
keysOf(Block &block, function_ref<Location(Location)> map,
       function_ref<int(unsigned)> arg) {
  llvm::DenseMap<Operation *, llvm::hash_code> keys;
  llvm::DenseMap<std::pair<const void *, const void *>, unsigned> seen;
  for (Operation &op : block.without_terminator()) {
    const void *name = op.getName().getAsOpaquePointer();
    Location loc = map(op.getLoc());
    if (inGroup(loc)) {
      unsigned ordinal = seen[{op.getLoc().getAsOpaquePointer(), name}]++;
      keys[&op] = llvm::hash_combine(loc.getAsOpaquePointer(), name, ordinal);
      continue;
    }
    llvm::hash_code key = llvm::hash_combine(loc.getAsOpaquePointer(), name);
    for (Value v : op.getOperands()) {
      if (auto a = dyn_cast<BlockArgument>(v))
        key = llvm::hash_combine(key, -1, arg(a.getArgNumber()));
      else
        key = llvm::hash_combine(key, keys.lookup(v.getDefiningOp()),
                                 cast<OpResult>(v).getResultNumber());
    }
    keys[&op] = key;
  }
  return keys;
}

/// Gives every op and argument of `full` the layouts and letter map of its
/// counterpart in the propagated `copy` (the copy's op with its key,
/// keysOf). Changes nothing and fails where one has none.
LogicalResult stamp(func::FuncOp full, func::FuncOp copy, unsigned numOriginal,
                    const Reduction &r) {
  for (func::FuncOp f : {full, copy})
    for (Operation &op : f.front())
      if (op.getNumRegions())
        return failure();
  SmallVector<int> args;
  for (unsigned i = 0; i < full.getNumArguments(); ++i) {
    int k = argOf(full, copy, i, numOriginal, r);
    if (k < 0)
      return failure();
    Type mine = full.getArgument(i).getType(),
         theirs = copy.getArgument(k).getType();
    // An annotated argument keeps its annotation: the copy's must agree.
    auto t = dyn_cast<RankedTensorType>(mine);
    if (!sameShape(mine, theirs) || (t && t.getEncoding() && mine != theirs))
      return failure();
    args.push_back(k);
  }
  auto copyKeys = keysOf(
      copy.front(), [](Location l) { return l; },
      [](unsigned i) { return int(i); });
  llvm::DenseMap<llvm::hash_code, Operation *> byKey;
  for (Operation &op : copy.front().without_terminator())
    byKey.try_emplace(copyKeys[&op], &op);
  auto fullKeys = keysOf(
      full.front(), [&](Location l) { return mapLoc(l, r); },
      [&](unsigned i) { return args[i]; });
  SmallVector<std::pair<Operation *, Operation *>> pairs;
  for (Operation &op : full.front().without_terminator()) {
    Operation *c = byKey.lookup(fullKeys[&op]);
    if (!c || c->getName() != op.getName() ||
        c->getNumResults() != op.getNumResults() ||
        c->getNumOperands() != op.getNumOperands())
      return failure();
    for (auto [a, b] : llvm::zip(op.getResultTypes(), c->getResultTypes()))
      if (!sameShape(a, b))
        return failure();
    pairs.push_back({&op, c});
  }
  for (auto [op, c] : pairs) {
    for (auto [mine, theirs] : llvm::zip(op->getResults(), c->getResults()))
      mine.setType(theirs.getType());
    if (Attribute split = c->getAttr(kSplitAttr))
      op->setAttr(kSplitAttr, split);
    else
      op->removeAttr(kSplitAttr);
  }
  for (auto [i, k] : llvm::enumerate(args))
    full.getArgument(i).setType(copy.getArgument(k).getType());
  full.setFunctionType(
      FunctionType::get(full.getContext(), full.front().getArgumentTypes(),
                        full.front().getTerminator()->getOperandTypes()));
  return success();
}

class PlanLayersPass
    : public PassWrapper<PlanLayersPass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlanLayersPass)

  PlanLayersPass(OpPassManager whole, OpPassManager upTo,
                 OpPassManager propagation)
      : whole(std::move(whole)), upTo(std::move(upTo)),
        propagation(std::move(propagation)) {}
  PlanLayersPass(const PlanLayersPass &) = default;

  StringRef getArgument() const override { return "weft-plan-layers"; }
  StringRef getName() const override { return "WeftPlanLayers"; }
  StringRef getDescription() const override {
    return "The pipeline's front with one propagated plan per layer call "
           "(docs/calls.md)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    whole.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = findEntry(module);
    if (!entry) {
      if (failed(runPipeline(whole, module)))
        signalPassFailure();
      return;
    }
    std::string name = entry.getSymName().str();
    unsigned numOriginal = entry.getNumArguments();
    ModuleOp copy = cast<ModuleOp>(module->clone());
    llvm::scope_exit dropCopy([&] { copy->erase(); });
    FailureOr<Reduction> r =
        reduce(copy.lookupSymbol<func::FuncOp>(entry.getSymName()));
    if (failed(r)) {
      if (failed(runPipeline(whole, module)))
        signalPassFailure();
      return;
    }
    // The copy is compiled nested in the module (a dynamic pipeline runs on
    // the pass's op or below), then taken out again before the module's
    // own front runs.
    module.getBody()->push_back(copy);
    LogicalResult copied = runPipeline(whole, copy);
    copy->remove();
    if (failed(copied) || failed(runPipeline(upTo, module)))
      return signalPassFailure();
    auto full = module.lookupSymbol<func::FuncOp>(name);
    auto planned = copy.lookupSymbol<func::FuncOp>(name);
    if (full && planned && succeeded(stamp(full, planned, numOriginal, *r)))
      return;
    // An op without a counterpart: the module is propagated as it is.
    if (failed(runPipeline(propagation, module)))
      signalPassFailure();
  }

private:
  OpPassManager whole, upTo, propagation;
};

} // namespace

bool mlir::weft::hasRepeatedLayerCalls(ModuleOp module) {
  func::FuncOp entry = findEntry(module);
  if (!entry)
    return false;
  return llvm::any_of(callsByCallee(entry),
                      [](auto &entry) { return repeated(entry.second); });
}

std::unique_ptr<Pass> mlir::weft::createPlanLayersPass(FrontBuilder front) {
  OpPassManager whole(ModuleOp::getOperationName()),
      upTo(ModuleOp::getOperationName()),
      propagation(ModuleOp::getOperationName());
  front(whole, FrontPart::Whole);
  front(upTo, FrontPart::UpToPropagation);
  front(propagation, FrontPart::Propagation);
  return std::make_unique<PlanLayersPass>(std::move(whole), std::move(upTo),
                                          std::move(propagation));
}

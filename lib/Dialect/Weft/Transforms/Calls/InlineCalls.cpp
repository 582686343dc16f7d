//===- InlineCalls.cpp - the weft-inline-calls pass -----------------------===//
//
// Layers written once and called many times (docs/calls.md): every func.call
// between weft functions is replaced by the callee's ops, callees first, and
// the private callees nothing calls any more are erased. The rest of the
// pipeline sees one flat function, as it did before calls existed.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/Vjp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "weft-inline-calls"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTINLINECALLS
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// The functions of the module in an order where every callee comes before
/// its callers, or the call that closes a cycle.
class CallOrder {
public:
  CallOrder(ModuleOp module, SymbolTable &symbols) : symbols(symbols) {
    for (auto f : module.getOps<func::FuncOp>())
      funcs.push_back(f);
  }

  /// Fills `order`; on a recursive call, reports it and fails.
  LogicalResult compute() {
    for (func::FuncOp f : funcs)
      if (failed(visit(f)))
        return failure();
    return success();
  }

  SmallVector<func::FuncOp> order;

private:
  LogicalResult visit(func::FuncOp f) {
    if (done.contains(f))
      return success();
    path.insert(f);
    WalkResult walk = f.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee)
        return WalkResult::advance(); // the verifier reports it
      if (path.contains(callee)) {
        InFlightDiagnostic diag = call.emitError()
                                  << "recursive call of @"
                                  << callee.getSymName() << " (";
        bool inCycle = false;
        for (func::FuncOp g : path) {
          inCycle |= g == callee;
          if (inCycle)
            diag << "@" << g.getSymName() << " -> ";
        }
        diag << "@" << callee.getSymName()
             << "): weft functions are layers, called a fixed number of "
                "times; write the repetition as calls in the caller";
        return WalkResult::interrupt();
      }
      if (failed(visit(callee)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    path.remove(f);
    if (walk.wasInterrupted())
      return failure();
    done.insert(f);
    order.push_back(f);
    return success();
  }

  SymbolTable &symbols;
  SmallVector<func::FuncOp> funcs;
  llvm::SetVector<func::FuncOp> path;
  llvm::DenseSet<func::FuncOp> done;
};

/// Replaces `call` by a copy of `callee`'s body (already free of calls).
/// With `remat`, every copied op joins a new rematerialization group;
/// otherwise groups copied from the callee's own marked calls are
/// renumbered, so each inlined instance has groups of its own.
void inlineCall(func::CallOp call, func::FuncOp callee, bool remat,
                int64_t &nextGroup) {
  Block &body = callee.getBody().front();
  IRMapping mapping;
  for (auto [arg, operand] :
       llvm::zip_equal(body.getArguments(), call.getOperands()))
    mapping.map(arg, operand);
  OpBuilder builder(call);
  Location callLoc = call.getLoc();
  IntegerAttr group = remat ? builder.getI64IntegerAttr(nextGroup++) : nullptr;
  llvm::DenseMap<int64_t, IntegerAttr> renumbered;
  for (Operation &op : body.without_terminator()) {
    Operation *copy = builder.clone(op, mapping);
    copy->walk([&](Operation *nested) {
      nested->setLoc(CallSiteLoc::get(nested->getLoc(), callLoc));
      if (group) {
        nested->setAttr(kRematGroupAttr, group);
      } else if (auto old =
                     nested->getAttrOfType<IntegerAttr>(kRematGroupAttr)) {
        IntegerAttr &fresh = renumbered[old.getInt()];
        if (!fresh)
          fresh = builder.getI64IntegerAttr(nextGroup++);
        nested->setAttr(kRematGroupAttr, fresh);
      }
    });
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [result, returned] :
       llvm::zip_equal(call.getResults(), ret.getOperands()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
  call.erase();
}

struct WeftInlineCalls
    : public weft::impl::WeftInlineCallsBase<WeftInlineCalls> {
  using WeftInlineCallsBase::WeftInlineCallsBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    CallOrder calls(module, symbols);
    if (failed(calls.compute()))
      return signalPassFailure();

    bool failedCall = false;
    unsigned inlined = 0;
    int64_t nextGroup = 0;
    llvm::DenseSet<func::FuncOp> callees;
    // Which function each call called, for the reports by call.
    llvm::MapVector<StringRef, SmallVector<Attribute>> sitesOf;
    auto record = [&](func::CallOp call, func::FuncOp callee) {
      sitesOf[callee.getSymName()].push_back(
          StringAttr::get(module.getContext(), callSiteKey(call.getLoc())));
    };
    for (func::FuncOp f : calls.order) {
      SmallVector<func::CallOp> sites;
      f.walk([&](func::CallOp call) { sites.push_back(call); });
      for (func::CallOp call : sites) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee) {
          call.emitError() << "calls @" << call.getCallee()
                           << ", which the module does not define";
          failedCall = true;
          continue;
        }
        if (isVjpDeclaration(callee))
          continue; // once its body is written, below
        if (callee.isExternal()) {
          call.emitError()
              << "calls @" << callee.getSymName()
              << ", a declaration without a body: weft compiles only "
                 "functions written in the program";
          failedCall = true;
          continue;
        }
        bool remat = call->hasAttr(kRematAttr) ||
                     (rematAll && f.isPublic() && !f.isExternal());
        record(call, callee);
        inlineCall(call, callee, remat, nextGroup);
        callees.insert(callee);
        ++inlined;
      }
    }
    if (failedCall)
      return signalPassFailure();
    // The vjps' functions are flat now: their bodies, then their calls
    // (wherever inlining copied them).
    llvm::DenseSet<func::FuncOp> vjps;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (!f->hasAttr(kVjpOfAttr))
        continue;
      vjps.insert(f);
      if (auto of = f->getAttrOfType<FlatSymbolRefAttr>(kVjpOfAttr))
        if (auto target = symbols.lookup<func::FuncOp>(of.getValue()))
          callees.insert(target);
    }
    if (!vjps.empty()) {
      if (failed(expandVjpDeclarations(module)))
        return signalPassFailure();
      SmallVector<std::pair<func::CallOp, func::FuncOp>> vjpCalls;
      module.walk([&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (vjps.contains(callee))
          vjpCalls.emplace_back(call, callee);
      });
      for (auto [call, callee] : vjpCalls) {
        record(call, callee);
        inlineCall(call, callee, call->hasAttr(kRematAttr), nextGroup);
        callees.insert(callee);
        ++inlined;
      }
    }

    if (!sitesOf.empty()) {
      // Replaces what a previous compile recorded: a program whose calls
      // are flattened already has none left to record, and keeps it.
      SmallVector<NamedAttribute> entries;
      for (auto &[name, calls] : sitesOf)
        entries.push_back(
            NamedAttribute(StringAttr::get(module.getContext(), name),
                           ArrayAttr::get(module.getContext(), calls)));
      module->setAttr(kCallSitesAttr,
                      DictionaryAttr::get(module.getContext(), entries));
    }

    // The private callees nothing calls any more go (every call is gone, so
    // none is referenced); public functions stay: one of them is the entry.
    for (auto f : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (callees.contains(f) && f.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(f, module))
        f.erase();
    LLVM_DEBUG(llvm::dbgs()
               << "weft-inline-calls: inlined " << inlined << " calls\n");
  }
};

} // namespace

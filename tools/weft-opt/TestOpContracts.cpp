//===- TestOpContracts.cpp - every weft op implements its contracts -------===//
//
// --weft-test-op-contracts (weft-opt only, for test/Dialect/Weft/
// op-contracts.mlir): walks the weft dialect's registered ops and checks
// each against the contracts its kind owes (docs/design.md, "What a new op
// touches"), so an op added with half of them fails the suite by name
// instead of failing in a pass that meets it:
//   - every op but weft.mesh verifies its symbol uses (SymbolUserOpInterface);
//   - a global-view op (neither the mesh nor LocalViewOnly) has its letters
//     (ShardingRuleOpInterface), its gradient (DifferentiableOpInterface),
//     its local form (PartitionOpInterface), its pads
//     (PadOpInterface) and its JSON (JsonExportOpInterface), and no
//     memory effects;
//   - a local-view op is a collective (CollectiveOpInterface), the wait
//     that completes one (CompletesCollective) or a fused computation
//     (neither, and no communication).
// Prints one line per op and fails at the first op that misses one.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::weft;

namespace {

struct Contract {
  const char *name;
  bool (*holds)(RegisteredOperationName);
};

template <typename Interface> bool has(RegisteredOperationName op) {
  return op.hasInterface<Interface>();
}

template <template <typename> class Trait>
bool hasTrait(RegisteredOperationName op) {
  return op.hasTrait<Trait>();
}

bool isPure(RegisteredOperationName op) {
  return op.hasTrait<OpTrait::AlwaysSpeculatableImplTrait>() &&
         op.hasInterface<MemoryEffectOpInterface>();
}

const Contract kGlobalView[] = {
    {"SymbolUserOpInterface", has<SymbolUserOpInterface>},
    {"ShardingRuleOpInterface", has<ShardingRuleOpInterface>},
    {"DifferentiableOpInterface", has<DifferentiableOpInterface>},
    {"PartitionOpInterface", has<PartitionOpInterface>},
    {"PadOpInterface", has<PadOpInterface>},
    {"JsonExportOpInterface", has<JsonExportOpInterface>},
    {"Pure", isPure},
};

const Contract kLocalView[] = {
    {"SymbolUserOpInterface", has<SymbolUserOpInterface>},
};

struct TestOpContractsPass
    : public PassWrapper<TestOpContractsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestOpContractsPass)
  StringRef getArgument() const final { return "weft-test-op-contracts"; }
  StringRef getDescription() const final {
    return "Check that every registered weft op implements the contracts "
           "of its kind (test only)";
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ctx->getOrLoadDialect<WeftDialect>();
    unsigned checked = 0;
    for (RegisteredOperationName op : ctx->getRegisteredOperations()) {
      if (op.getDialectNamespace() != WeftDialect::getDialectNamespace())
        continue;
      ++checked;
      if (op.hasInterface<SymbolOpInterface>()) {
        llvm::outs() << op.getStringRef() << ": mesh\n";
        continue;
      }
      bool local = op.hasTrait<LocalViewOnly>();
      ArrayRef<Contract> contracts = local ? ArrayRef<Contract>(kLocalView)
                                           : ArrayRef<Contract>(kGlobalView);
      std::string kind = local ? "local-view" : "global-view";
      if (local) {
        bool collective = op.hasInterface<CollectiveOpInterface>();
        bool wait = op.hasTrait<CompletesCollective>();
        if (collective && wait) {
          getOperation().emitError()
              << "'" << op.getStringRef()
              << "' is both a collective and the wait of one";
          return signalPassFailure();
        }
        kind += collective ? " collective" : wait ? " wait" : " compute";
      }
      for (const Contract &c : contracts)
        if (!c.holds(op)) {
          getOperation().emitError()
              << "'" << op.getStringRef() << "' (" << kind
              << ") does not implement " << c.name;
          return signalPassFailure();
        }
      llvm::outs() << op.getStringRef() << ": " << kind << "\n";
    }
    llvm::outs() << "checked " << checked << " weft ops\n";
  }
};

} // namespace

namespace mlir::weft {
void registerTestOpContractsPass() { PassRegistration<TestOpContractsPass>(); }
} // namespace mlir::weft

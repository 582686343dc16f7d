//===- PriceLocal.cpp - the weft-price-local pass -------------------------===//
//
// The global search's objective (PropagateSearch.cpp) applied to the
// program as emitted: per function, the roofline seconds of every op with
// a sharding rule on its local blocks, plus per communicating collective
// the profile's latency and bytes per device over bandwidth (the ring
// formulas weft-comm-report counts). The search prices a plan before
// weft-partition and the collective passes run; this prices what they
// produced, so the two can be compared (docs/propagation.md, "Pricing
// what is emitted").
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/Transforms/PriceLocal.h"
#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/Transforms/MachineProfile.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/ShardingRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTPRICELOCAL
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// Bytes of a whole (local) tensor.
double tensorBytes(RankedTensorType type) {
  double b = double(elementBytes(type));
  for (int64_t n : type.getShape())
    b *= double(n);
  return b;
}

/// The search's computeSeconds with every letter unsplit: the op's tensors
/// are already the local blocks.
double opSeconds(const ShardingRule &rule, const MachineProfile &profile) {
  double bytes = 0;
  llvm::SmallDenseMap<char, int64_t> letterSize;
  for (unsigned i = 0; i <= rule.getNumOperands(); ++i) {
    auto type = cast<RankedTensorType>(rule.getTensor(i).getType());
    for (auto [d, c] : llvm::enumerate(rule.getTensorLetters(i)))
      letterSize.try_emplace(c, type.getDimSize(d));
    bytes += tensorBytes(type);
  }
  double flops = 0;
  if (isa<EinsumOp>(rule.getOp())) {
    flops = 2;
    for (auto &[c, n] : letterSize)
      flops *= double(n);
  }
  Type elem =
      cast<RankedTensorType>(rule.getTensor(0).getType()).getElementType();
  return profile.computeSeconds(bytes, flops, elem);
}

} // namespace

FailureOr<LocalPrice>
mlir::weft::priceLocalFunction(func::FuncOp func, const MachineProfile &machine,
                               SymbolTableCollection &tables) {
  LocalPrice price;
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
      // A local slice (slice_shard) is free, as the search prices it.
      if (!collective.communicates())
        return WalkResult::advance();
      FailureOr<MeshOp> mesh = lookupMesh(op, collective.getMeshAttr(), tables);
      if (failed(mesh))
        return WalkResult::interrupt();
      SmallVector<StringRef> axes;
      for (StringRef a : collective.getAxisNames())
        axes.push_back(a);
      int64_t p = Mesh(*mesh).getGroupSize(axes);
      if (p == 1)
        return WalkResult::advance();
      price.commSeconds +=
          machine.collectiveSeconds(collective.getBytesPerDevice(p), axes);
      ++price.collectives;
      return WalkResult::advance();
    }
    if (isa<ShardOp>(op))
      return WalkResult::advance();
    if (std::optional<ShardingRule> rule = ShardingRule::get(op)) {
      price.computeSeconds += opSeconds(*rule, machine);
      ++price.ops;
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return price;
}

namespace {

struct WeftPriceLocalPass
    : public mlir::weft::impl::WeftPriceLocalBase<WeftPriceLocalPass> {
  using WeftPriceLocalBase::WeftPriceLocalBase;

  void runOnOperation() override {
    std::string error;
    FailureOr<MachineProfile> loaded = MachineProfile::resolve(profile, error);
    if (failed(loaded)) {
      getOperation().emitError() << "weft-price-local: " << error;
      return signalPassFailure();
    }
    const MachineProfile &machine = *loaded;
    auto file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << "cannot write the prices: " << error;
      return signalPassFailure();
    }
    SymbolTableCollection tables;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<LocalPrice> price = priceLocalFunction(func, machine, tables);
      if (failed(price))
        return signalPassFailure();
      file->os() << llvm::formatv("weft-price-local: @{0}: {1} op(s) {2:e3} "
                                  "s, {3} collective(s) {4:e3} s, total "
                                  "{5:e9} s\n",
                                  func.getSymName(), price->ops,
                                  price->computeSeconds, price->collectives,
                                  price->commSeconds, price->totalSeconds());
    }
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace

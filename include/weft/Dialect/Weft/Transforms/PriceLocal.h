//===- PriceLocal.h - the search's objective on a local program -*- C++ -*-===//
//
// The global search's cost model (PropagateSearch.cpp) applied to a
// function in the local view: the roofline seconds of every op with a
// sharding rule on its local blocks, plus per communicating collective the
// profile's latency and bytes per device over bandwidth. Used by the
// weft-price-local pass and by weft-propagate, which prices the program
// its plans emit (docs/propagation.md, "Pricing what is emitted").
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_PRICELOCAL_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_PRICELOCAL_H

#include "weft/Dialect/Weft/Transforms/MachineProfile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::weft {

/// What one local function costs under a profile.
struct LocalPrice {
  double computeSeconds = 0;
  double commSeconds = 0;
  int64_t ops = 0;
  int64_t collectives = 0;
  double totalSeconds() const { return computeSeconds + commSeconds; }
};

/// Prices `func` (already partitioned). Fails, with an error on the op,
/// only when a collective names a mesh that does not resolve.
FailureOr<LocalPrice> priceLocalFunction(func::FuncOp func,
                                         const MachineProfile &profile,
                                         SymbolTableCollection &tables);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_PRICELOCAL_H

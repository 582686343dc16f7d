//===- Simulation.cpp - What weft-interp agrees to simulate ---------------===//

#include "weft/Interpreter/Simulation.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/Limits.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "llvm/ADT/StringMap.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

/// Checks one value of `type` held by `ranks` ranks.
static LogicalResult checkTensor(Operation *at, Type type, int64_t ranks,
                                 const Twine &what,
                                 const SimulationLimits &limits) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return success(); // The evaluator reports these.
  SmallVector<int64_t> sizes(ranked.getShape());
  sizes.push_back(ranks);
  if (boundedProduct(sizes, limits.maxElements))
    return success();
  InFlightDiagnostic diag = at->emitError()
                            << what << " ("
                            << RankedTensorType::get(ranked.getShape(),
                                                     ranked.getElementType())
                            << ") holds ";
  std::optional<int64_t> elements =
      boundedProduct(sizes, std::numeric_limits<int64_t>::max());
  if (elements)
    diag << *elements;
  else
    diag << "more than 2^63";
  diag << " element(s)";
  if (ranks > 1)
    diag << " over " << ranks << " ranks";
  return diag << "; weft-interp simulates at most " << limits.maxElements
              << " per tensor (raise with --max-elements)";
}

LogicalResult
mlir::weft::interp::checkSimulable(func::FuncOp func, bool local, MeshOp mesh,
                                   const SimulationLimits &limits) {
  int64_t ranks = 1;
  if (local && mesh) {
    SmallVector<int64_t> sizes(mesh.getAxisSizes());
    std::optional<int64_t> n = boundedProduct(sizes, limits.maxRanks);
    if (!n) {
      std::optional<int64_t> exact =
          boundedProduct(sizes, std::numeric_limits<int64_t>::max());
      InFlightDiagnostic diag = mesh.emitError()
                                << "mesh @" << mesh.getSymName() << " has ";
      if (exact)
        diag << *exact;
      else
        diag << "more than 2^63";
      return diag << " devices; weft-interp simulates at most "
                  << limits.maxRanks
                  << " ranks (raise with --max-ranks), one tensor per rank "
                     "for every value";
    }
    ranks = *n;
  }
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    if (failed(checkTensor(func, func.getArgumentTypes()[i], ranks,
                           "argument #" + Twine(i), limits)))
      return failure();
    if (TypeAttr global = local ? getArgGlobalType(func, i) : TypeAttr())
      if (failed(checkTensor(func, global.getValue(), 1,
                             "the global type of argument #" + Twine(i),
                             limits)))
        return failure();
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (TypeAttr global = local ? getResultGlobalType(func, i) : TypeAttr())
      if (failed(checkTensor(func, global.getValue(), 1,
                             "the global type of result #" + Twine(i), limits)))
        return failure();
  WalkResult walk = func.walk([&](Operation *op) {
    for (auto [i, result] : llvm::enumerate(op->getResults()))
      if (failed(checkTensor(op, result.getType(), ranks, "result #" + Twine(i),
                             limits)))
        return WalkResult::interrupt();
    // The op's loop: every letter once (its sharding rule's letters). Copies
    // (slice, concat) touch each element once instead: their moved
    // dimension has one letter per tensor, whose product would overcount.
    SmallVector<int64_t> factors{ranks};
    const char *what = "the product of its letters' sizes";
    if (isa<SliceOp, ConcatOp>(op)) {
      int64_t elements = 0; // Each below 2^48 (checkTensor): no overflow.
      for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
        elements += cast<RankedTensorType>(v.getType()).getNumElements();
      factors.push_back(elements);
      what = "its elements";
    } else if (auto rule = dyn_cast<ShardingRuleOpInterface>(op)) {
      SmallVector<std::string, 3> letters = rule.getTensorLetters();
      llvm::StringMap<int64_t> size;
      for (auto [t, term] : llvm::enumerate(letters)) {
        Type type = t < op->getNumOperands() ? op->getOperand(t).getType()
                                             : op->getResult(0).getType();
        auto tensor = dyn_cast<RankedTensorType>(type);
        for (auto [d, c] : llvm::enumerate(term))
          if (tensor && d < size_t(tensor.getRank()))
            size[StringRef(&c, 1)] = tensor.getDimSize(d);
      }
      for (auto &entry : size)
        factors.push_back(entry.second);
    }
    if (factors.size() > 1 && !boundedProduct(factors, limits.maxWork)) {
      op->emitError() << "evaluating this op takes more than " << limits.maxWork
                      << " loop iterations over its ranks (" << what
                      << "); weft-interp evaluates at most that many (raise "
                         "with --max-work)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

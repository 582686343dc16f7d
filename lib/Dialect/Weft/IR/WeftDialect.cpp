//===- WeftDialect.cpp - The weft dialect ---------------------------------===//

#include "weft/Dialect/Weft/IR/WeftDialect.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::weft;

#include "weft/Dialect/Weft/IR/WeftDialect.cpp.inc"

namespace {
/// Every weft op may be inlined: they are pure functions of their operands
/// (weft.random's stream is named by its seed attribute, not by where it
/// runs), so MLIR's --inline flattens calls between weft functions as
/// weft-inline-calls does (docs/calls.md).
struct WeftInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void WeftDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "weft/Dialect/Weft/IR/WeftOps.cpp.inc"
      >();
  addInterfaces<WeftInlinerInterface>();
}

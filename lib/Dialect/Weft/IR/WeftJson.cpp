//===- WeftJson.cpp - JSON field names (JsonExportOpInterface) ------------===//
//
// weft-translate --weft-to-json writes an op's inherent attributes generically,
// each as a field of its name. Only where the numpy evaluator's format names a
// field otherwise does an op say so here: an op's `kind` is written under
// the op's own name (map, reduce) or as a distribution (random), by the
// enum's names (the attribute itself is an integer); cumsum's flags are
// written when absent too.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/WeftOps.h"

using namespace mlir;
using namespace mlir::weft;

StringRef MapOp::getJsonField(StringRef name) {
  return name == "kind" ? "map" : name;
}

StringRef ReduceOp::getJsonField(StringRef name) {
  return name == "kind" ? "reduce" : name;
}

StringRef RandomOp::getJsonField(StringRef name) {
  return name == "kind" ? "dist" : name;
}

std::optional<std::string> MapOp::getJsonEnumName(StringRef name) {
  if (name != getKindAttrName().getValue())
    return std::nullopt;
  return stringifyMapKind(getKind()).str();
}

std::optional<std::string> ReduceOp::getJsonEnumName(StringRef name) {
  if (name != getKindAttrName().getValue())
    return std::nullopt;
  return stringifyReductionKind(getKind()).str();
}

std::optional<std::string> RandomOp::getJsonEnumName(StringRef name) {
  if (name != getKindAttrName().getValue())
    return std::nullopt;
  return stringifyRandomKind(getKind()).str();
}

bool CumsumOp::isJsonFlag(StringRef name) {
  return name == getExclusiveAttrName().getValue() ||
         name == getReverseAttrName().getValue();
}

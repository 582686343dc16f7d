//===- FusedSteps.cpp - The step program of weft.fused_map ----------------===//

#include "weft/Dialect/Weft/IR/FusedSteps.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::weft;

namespace {

/// A value reference `inK` or `sJ` (J < `step`) as a value id.
bool parseValue(llvm::StringRef tok, unsigned numInputs, unsigned step,
                int &id, std::string &error) {
  unsigned n = 0;
  if (tok.consume_front("in")) {
    if (tok.getAsInteger(10, n) || n >= numInputs) {
      error = ("'in" + tok + "' is not an operand (the op has " +
               llvm::Twine(numInputs) + ")")
                  .str();
      return false;
    }
    id = static_cast<int>(n);
    return true;
  }
  if (tok.consume_front("s")) {
    if (tok.getAsInteger(10, n) || n >= step) {
      error = ("'s" + tok + "' is not an earlier step").str();
      return false;
    }
    id = static_cast<int>(numInputs + n);
    return true;
  }
  error = ("'" + tok + "' is neither an operand 'inK' nor a step 'sJ'").str();
  return false;
}

bool parseStep(llvm::StringRef text, unsigned numInputs, unsigned index,
               FusedMapStep &step, std::string &error) {
  text = text.trim();
  auto [lhs, rhs] = text.split('=');
  if (lhs.trim() != ("s" + llvm::Twine(index)).str()) {
    error = ("expected 's" + llvm::Twine(index) + " = kind(...)', got '" +
             text + "'")
                .str();
    return false;
  }
  rhs = rhs.trim();
  size_t open = rhs.find('(');
  if (open == llvm::StringRef::npos || !rhs.ends_with(")")) {
    error = ("expected 'kind(args)', got '" + rhs + "'").str();
    return false;
  }
  llvm::StringRef kindName = rhs.take_front(open).trim();
  std::optional<MapKind> kind = symbolizeMapKind(kindName);
  if (!kind) {
    error = ("unknown map kind '" + kindName + "'").str();
    return false;
  }
  step.kind = *kind;
  llvm::SmallVector<llvm::StringRef> args;
  rhs.drop_front(open + 1).drop_back().split(args, ',');
  unsigned arity = MapOp::getArity(*kind);
  bool scalar = MapOp::takesScalar(*kind);
  if (args.size() != arity + (scalar ? 1 : 0)) {
    error = (stringifyMapKind(*kind) + " takes " + llvm::Twine(arity) +
             " value(s)" + (scalar ? " and a constant" : "") + ", got '" +
             rhs + "'")
                .str();
    return false;
  }
  if (!parseValue(args[0].trim(), numInputs, index, step.a, error))
    return false;
  step.b = -1;
  if (arity == 2 &&
      !parseValue(args[1].trim(), numInputs, index, step.b, error))
    return false;
  step.scalar = 0.0;
  if (scalar) {
    std::string num = args.back().trim().str();
    char *end = nullptr;
    step.scalar = std::strtod(num.c_str(), &end);
    if (num.empty() || *end != '\0' || !std::isfinite(step.scalar)) {
      error = "'" + num + "' is not a finite constant";
      return false;
    }
  }
  return true;
}

} // namespace

bool mlir::weft::parseFusedSteps(llvm::StringRef text, unsigned numInputs,
                                 llvm::SmallVectorImpl<FusedMapStep> &steps,
                                 std::string &error) {
  steps.clear();
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ';');
  for (auto [i, part] : llvm::enumerate(parts)) {
    FusedMapStep step;
    std::string why;
    if (!parseStep(part, numInputs, static_cast<unsigned>(i), step, why)) {
      error = "step " + std::to_string(i) + ": " + why;
      return false;
    }
    steps.push_back(step);
  }
  return true;
}

std::string mlir::weft::printFusedSteps(llvm::ArrayRef<FusedMapStep> steps,
                                        unsigned numInputs) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto value = [&](int id) {
    if (id < static_cast<int>(numInputs))
      os << "in" << id;
    else
      os << "s" << (id - static_cast<int>(numInputs));
  };
  for (auto [i, s] : llvm::enumerate(steps)) {
    if (i)
      os << "; ";
    os << "s" << i << " = " << stringifyMapKind(s.kind) << "(";
    value(s.a);
    if (s.b >= 0) {
      os << ", ";
      value(s.b);
    }
    if (MapOp::takesScalar(s.kind)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", s.scalar);
      os << ", " << buf;
    }
    os << ")";
  }
  return text;
}

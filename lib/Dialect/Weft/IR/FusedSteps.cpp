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
bool parseValue(llvm::StringRef tok, unsigned numInputs, unsigned step, int &id,
                std::string &error) {
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
               bool rowReductions, FusedMapStep &step, std::string &error) {
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
  llvm::StringRef argText = rhs.drop_front(open + 1).drop_back();
  step.reduce = false;
  if (kindName.starts_with("row_")) {
    std::optional<ReductionKind> rk =
        symbolizeReductionKind(kindName.drop_front(4));
    if (!rk) {
      error = ("unknown row reduction '" + kindName +
               "' (row_sum, row_max, row_min)")
                  .str();
      return false;
    }
    if (!rowReductions) {
      error = ("'" + kindName +
               "' is a row reduction, which only weft.fused_rows has")
                  .str();
      return false;
    }
    step.reduce = true;
    step.reduceKind = *rk;
    step.b = -1;
    step.scalar = 0.0;
    if (argText.contains(',')) {
      error = (kindName + " takes one value, got '" + rhs + "'").str();
      return false;
    }
    return parseValue(argText.trim(), numInputs, index, step.a, error);
  }
  std::optional<MapKind> kind = symbolizeMapKind(kindName);
  if (!kind) {
    error = ("unknown map kind '" + kindName + "'").str();
    return false;
  }
  step.kind = *kind;
  llvm::SmallVector<llvm::StringRef> args;
  argText.split(args, ',');
  unsigned arity = MapOp::getArity(*kind);
  bool scalar = MapOp::takesScalar(*kind);
  if (args.size() != arity + (scalar ? 1 : 0)) {
    error = (stringifyMapKind(*kind) + " takes " + llvm::Twine(arity) +
             " value(s)" + (scalar ? " and a constant" : "") + ", got '" + rhs +
             "'")
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
                                 std::string &error, bool rowReductions) {
  steps.clear();
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ';');
  for (auto [i, part] : llvm::enumerate(parts)) {
    FusedMapStep step;
    std::string why;
    if (!parseStep(part, numInputs, static_cast<unsigned>(i), rowReductions,
                   step, why)) {
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
    if (s.reduce) {
      os << "s" << i << " = row_" << stringifyReductionKind(s.reduceKind)
         << "(";
      value(s.a);
      os << ")";
      continue;
    }
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

bool mlir::weft::analyzeFusedRows(const IndexSpec &spec, llvm::StringRef rows,
                                  llvm::ArrayRef<FusedMapStep> steps,
                                  FusedRowsLayout &layout, std::string &error) {
  auto fail = [&](const llvm::Twine &why) {
    error = why.str();
    return false;
  };
  if (rows.empty())
    return fail("`rows` names no letter");
  for (auto [i, c] : llvm::enumerate(rows))
    if (rows.find(c, i + 1) != llvm::StringRef::npos)
      return fail("row letter '" + llvm::Twine(c) + "' is repeated");
  auto isRow = [&](char c) { return rows.contains(c); };
  llvm::StringRef result = spec.result;
  layout.rows = rows.str();
  layout.fullResult = result.ends_with(rows);
  layout.kept =
      (layout.fullResult ? result.drop_back(rows.size()) : result).str();
  for (char c : layout.kept)
    if (isRow(c))
      return fail("the result \"" + result + "\" holds the row letters \"" +
                  rows + "\" but not as its trailing letters");
  unsigned numInputs = spec.inputs.size();
  layout.full.assign(numInputs, false);
  for (auto [k, in] : llvm::enumerate(spec.inputs)) {
    llvm::StringRef letters = in;
    bool any = llvm::any_of(letters, isRow);
    if (any && !letters.ends_with(rows))
      return fail("operand #" + llvm::Twine(k) + " (\"" + letters +
                  "\") holds row letters but not \"" + rows +
                  "\" as its trailing letters");
    for (char c : any ? letters.drop_back(rows.size()) : letters)
      if (!llvm::StringRef(layout.kept).contains(c))
        return fail("letter '" + llvm::Twine(c) + "' of operand #" +
                    llvm::Twine(k) +
                    " is neither a kept letter of the result nor a row letter");
    layout.full[k] = any;
  }
  bool reduces = false;
  for (auto [j, st] : llvm::enumerate(steps)) {
    bool full;
    if (st.reduce) {
      if (!layout.full[st.a])
        return fail("step " + llvm::Twine(j) + ": row_" +
                    stringifyReductionKind(st.reduceKind) +
                    " of a row value (it has no row letters to reduce)");
      full = false;
      reduces = true;
    } else {
      full = layout.full[st.a] || (st.b >= 0 && layout.full[st.b]);
    }
    layout.full.push_back(full);
  }
  if (!reduces)
    return fail("has no row reduction (a chain of maps is a weft.fused_map)");
  if (layout.full.back() != layout.fullResult)
    return fail(layout.fullResult
                    ? "the last step is a row value but the result \"" +
                          result + "\" holds the row letters"
                    : "the last step is full but the result \"" + result +
                          "\" lacks the row letters \"" + rows + "\"");
  return true;
}

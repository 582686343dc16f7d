//===- SourceLines.cpp - Source lines of ops for messages -----------------===//

#include "weft/Dialect/Weft/IR/SourceLines.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Path.h"

using namespace mlir;

static void collect(Location loc, SmallVectorImpl<FileLineColLoc> &lines) {
  if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    collect(call.getCallee(), lines);
    collect(call.getCaller(), lines);
    return;
  }
  if (auto named = dyn_cast<NameLoc>(loc))
    return collect(named.getChildLoc(), lines);
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    lines.push_back(file);
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations()) {
      size_t before = lines.size();
      collect(part, lines);
      if (lines.size() > before)
        return;
    }
}

SmallVector<FileLineColLoc, 2> mlir::weft::sourceLines(Location loc) {
  SmallVector<FileLineColLoc, 2> lines;
  collect(loc, lines);
  return lines;
}

/// " (called at 107)" or " (called at 48, 107)": the call lines after the
/// op's own; "" for an op no call inlined.
static std::string callLines(ArrayRef<FileLineColLoc> lines, StringRef word) {
  if (lines.size() < 2)
    return "";
  std::string s = " (called at " + word.str();
  for (size_t i = 1; i < lines.size(); ++i)
    s += (i > 1 ? ", " : "") + std::to_string(lines[i].getLine());
  return s + ")";
}

std::string mlir::weft::atLine(Location loc) {
  SmallVector<FileLineColLoc, 2> lines = sourceLines(loc);
  if (lines.empty())
    return "";
  return " at line " + std::to_string(lines[0].getLine()) +
         callLines(lines, lines.size() > 2 ? "lines " : "line ");
}

std::string mlir::weft::fileAndLine(Location loc) {
  SmallVector<FileLineColLoc, 2> lines = sourceLines(loc);
  if (lines.empty())
    return "";
  return (llvm::sys::path::filename(lines[0].getFilename().getValue()) + ":" +
          Twine(lines[0].getLine()))
             .str() +
         callLines(lines, "");
}

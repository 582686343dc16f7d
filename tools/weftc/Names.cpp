//===- Names.cpp - Input and output names from the source's SSA names -----===//

#include "Driver.h"

#include "weft/Dialect/Weft/IR/FuncUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::weft;

namespace weftc {

/// "x" for the source text "%x" when it is an identifier, else "".
static std::string nameAt(llvm::SMRange range) {
  if (!range.isValid())
    return "";
  StringRef text(range.Start.getPointer(),
                 range.End.getPointer() - range.Start.getPointer());
  if (!text.consume_front("%") || text.empty())
    return "";
  if (!isalpha(static_cast<unsigned char>(text[0])) && text[0] != '_')
    return "";
  for (char c : text)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' &&
        c != '-')
      return "";
  return text.str();
}

void attachSourceNames(ModuleOp module, const AsmParserState &state) {
  llvm::DenseMap<Block *, const AsmParserState::BlockDefinition *> blocks;
  for (const auto &def : state.getBlockDefs())
    blocks[def.block] = &def;

  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    llvm::StringSet<> used;
    auto setIfFree = [&](std::string name, auto setter) {
      if (!name.empty() && used.insert(name).second)
        setter(name);
    };
    Block &entry = func.getBody().front();
    DenseMap<Value, std::string> argNames;
    if (const auto *def = blocks.lookup(&entry))
      for (auto [i, arg] : llvm::enumerate(def->arguments)) {
        std::string name = nameAt(arg.loc);
        argNames[entry.getArgument(i)] = name;
        if (!getArgName(func, i))
          setIfFree(name,
                    [&](const std::string &n) { setArgName(func, i, n); });
      }
    auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
    if (!ret)
      return;
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      if (getResultName(func, i))
        continue;
      std::string name;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        name = argNames.lookup(arg);
      } else if (const auto *def = state.getOpDef(v.getDefiningOp())) {
        unsigned n = cast<OpResult>(v).getResultNumber();
        for (const auto &group : def->resultGroups)
          if (group.startIndex == n && v.getDefiningOp()->getNumResults() == 1)
            name = nameAt(group.definition.loc);
      }
      setIfFree(name, [&](const std::string &n) { setResultName(func, i, n); });
    }
  });
}

} // namespace weftc

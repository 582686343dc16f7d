//===- Debug.cpp - -debug-only tracing that works on release LLVM ---------===//

#include "weft/Dialect/Weft/IR/Debug.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"

#include <memory>

using namespace llvm;

namespace {
struct DebugOptions {
  cl::opt<bool> all{"debug", cl::desc("Print every weft pass's debug trace"),
                    cl::Hidden};
  cl::list<std::string> only{
      "debug-only",
      cl::desc("Print the debug trace of these passes (weft-propagate, "
               "weft-partition, ...)"),
      cl::CommaSeparated, cl::value_desc("pass,...")};
};
std::unique_ptr<DebugOptions> &options() {
  static std::unique_ptr<DebugOptions> opts;
  return opts;
}
} // namespace

void mlir::weft::registerDebugOptions() {
  if (options() || cl::getRegisteredOptions().count("debug-only"))
    return; // Registered already, by us or by an assertions build of LLVM.
  options() = std::make_unique<DebugOptions>();
}

std::recursive_mutex &mlir::weft::debugOutputMutex() {
  static std::recursive_mutex m;
  return m;
}

bool mlir::weft::isDebugEnabled(StringRef type) {
  const std::unique_ptr<DebugOptions> &opts = options();
  if (!opts) // LLVM's own options (or none registered: off).
    return DebugFlag && isCurrentDebugType(type.str().c_str());
  if (opts->all)
    return true;
  for (const std::string &t : opts->only)
    if (t == type)
      return true;
  return false;
}

//===- Debug.h - -debug-only tracing that works on release LLVM -*- C++ -*-===//
//
// LLVM_DEBUG prints only when LLVM itself was built with assertions: Debian's
// LLVM 22 is a release build, which registers no -debug / -debug-only
// option. WEFT_DEBUG is LLVM_DEBUG for our code: on an assertions build of
// LLVM it follows LLVM's own flags; otherwise registerDebugOptions() (called
// by every weft tool) adds -debug and -debug-only=TYPE[,TYPE...], and
// WEFT_DEBUG follows those. DEBUG_TYPE is the pass flag (weft-propagate).
//
//   weft-opt --weft-propagate -debug-only=weft-propagate prog.mlir
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_DEBUG_H
#define WEFT_DIALECT_WEFT_IR_DEBUG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Debug.h"

#include <mutex>

namespace mlir::weft {

/// Whether tracing of `type` is on (-debug, or -debug-only naming it).
bool isDebugEnabled(llvm::StringRef type);

/// Registers -debug and -debug-only when LLVM has not (a release build).
/// Call before llvm::cl::ParseCommandLineOptions.
void registerDebugOptions();

/// Held while one WEFT_DEBUG statement writes: function passes run on
/// several threads, and without it their traces interleave character by
/// character on the unbuffered dbgs().
std::recursive_mutex &debugOutputMutex();

} // namespace mlir::weft

#define WEFT_DEBUG(X)                                                          \
  do {                                                                         \
    if (::mlir::weft::isDebugEnabled(DEBUG_TYPE)) {                            \
      std::lock_guard<std::recursive_mutex> weftDebugLock(                     \
          ::mlir::weft::debugOutputMutex());                                   \
      X;                                                                       \
    }                                                                          \
  } while (false)

#endif // WEFT_DIALECT_WEFT_IR_DEBUG_H

//===- CompileCache.h - Reusing executables built from the same C++ -*- C++
//-*-===//
//
// weftc's compile cache (docs/weftc.md, "The compile cache"), in the manner
// of ccache: the executable built from a generated program is kept under
// the SHA-256 of everything its build read, and a later build of the same
// C++ with the same toolchain copies it instead of running the compiler.
// Off unless --compile-cache=DIR or WEFTC_CACHE_DIR names a directory; only
// for the configured toolchain (no --cxx, no --cxx-flag, whose files the
// key could not see).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_TOOLS_WEFTC_COMPILECACHE_H
#define WEFT_TOOLS_WEFTC_COMPILECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace weftc {

/// The cache directory: `flag` (--compile-cache) when given, else
/// $WEFTC_CACHE_DIR, else "" (no cache); "off" in either means none.
std::string compileCacheDir(const std::string &flag);

/// The key of a build: the SHA-256 (hex) of the generated C++, the
/// compile and link command, and the size and modification time of each
/// of `inputFiles` and of every file under each of `inputTrees`.
std::string compileCacheKey(llvm::StringRef cpp,
                            llvm::ArrayRef<std::string> command,
                            llvm::ArrayRef<std::string> inputFiles,
                            llvm::ArrayRef<std::string> inputTrees);

/// Copies the entry `key` of `dir` onto `output` (through a temporary file
/// and a rename). False when there is none, or when the entry was changed
/// since it was stored (it is then removed).
bool fetchFromCompileCache(const std::string &dir, const std::string &key,
                           const std::string &output);

/// Records the freshly built `output` as the entry `key` of `dir` (a hard
/// link where the file system allows, else a copy). False when it could
/// not; the build itself succeeded either way.
bool storeInCompileCache(const std::string &dir, const std::string &key,
                         const std::string &output, double compileSeconds);

} // namespace weftc

#endif // WEFT_TOOLS_WEFTC_COMPILECACHE_H

//===- Toolchain.cpp - Compiling generated C++ against the runtime --------===//

#include "CompileCache.h"
#include "Driver.h"
#include "WeftcConfig.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

namespace weftc {

LogicalResult compileProgram(const std::string &cppFile, StringRef cpp,
                             const std::string &output, const std::string &cxx,
                             const std::vector<std::string> &extraFlags,
                             const std::string &cacheDir, bool verbose) {
  std::string compiler = cxx.empty() ? WEFTC_CXX : cxx;
  if (!llvm::sys::path::is_absolute(compiler)) {
    auto found = llvm::sys::findProgramByName(compiler);
    if (!found) {
      llvm::errs() << "weftc: error: C++ compiler '" << compiler
                   << "' not found in PATH\n";
      return failure();
    }
    compiler = *found;
  }
  // The configured flags, then weftc's (-O1, which overrides their -O3,
  // and with GCC -fno-tree-pta), then --cxx-flag (which may override them).
  // A generated program is plans as data and calls into the runtime (whose
  // kernels are compiled at the build's level); -O1 compiles it 2-3x faster
  // than -O3 at the same step time, and without GCC's points-to analysis
  // (superlinear in the step function's size) a 48-layer step compiles 4x
  // faster (docs/weftc.md, "Building the executable").
  std::vector<std::string> args = {compiler, "-std=c++20"};
  for (const char *flag : kWeftcCxxFlags)
    if (*flag)
      args.push_back(flag);
  for (const char *flag : kWeftcOptFlags)
    args.push_back(flag);
  // The precompiled runtime header, only for the flags it was built with
  // (tools/weftc/CMakeLists.txt): a .gch that GCC accepts under other
  // optimization flags can crash it.
  bool configured = cxx.empty() && extraFlags.empty();
  if (*WEFTC_PCH_DIR && configured)
    args.push_back(std::string("-I") + WEFTC_PCH_DIR);
  for (const char *dir : kWeftcIncludeDirs)
    args.push_back(std::string("-I") + dir);
  for (const std::string &f : extraFlags)
    args.push_back(f);
  size_t fileArg = args.size();
  args.push_back(cppFile);
  args.push_back("-o");
  args.push_back(output);
  for (const char *flag : kWeftcLinkFlags)
    if (*flag)
      args.push_back(flag);
  for (const char *item : kWeftcLinkItems)
    args.push_back(item);

  std::string command;
  for (const std::string &a : args)
    command += (command.empty() ? "" : " ") + a;
  if (verbose)
    llvm::errs() << "weftc: " << command << "\n";

  // The compile cache: only for the configured toolchain, whose every file
  // the key sees (the compiler, the link's files, the precompiled header,
  // the runtime's headers), and only for a regular output file (not
  // /dev/null).
  std::string cacheKey;
  llvm::sys::fs::file_status outStatus;
  bool regularOutput =
      llvm::sys::fs::status(output, outStatus) ||
      outStatus.type() == llvm::sys::fs::file_type::regular_file;
  if (!cacheDir.empty() && configured && regularOutput) {
    // The command less "FILE.cpp -o OUTPUT" (temporary and output names).
    std::vector<std::string> keyArgs(args.begin(), args.begin() + fileArg);
    keyArgs.insert(keyArgs.end(), args.begin() + fileArg + 3, args.end());
    std::vector<std::string> files = {compiler};
    for (const char *item : kWeftcLinkItems)
      if (llvm::sys::path::is_absolute(item))
        files.push_back(item);
    if (*WEFTC_PCH_DIR)
      files.push_back(std::string(WEFTC_PCH_DIR) + "/weft/rt/Program.h.gch");
    std::vector<std::string> trees(std::begin(kWeftcIncludeDirs),
                                   std::end(kWeftcIncludeDirs));
    cacheKey = compileCacheKey(cpp, keyArgs, files, trees);
    if (fetchFromCompileCache(cacheDir, cacheKey, output)) {
      if (verbose)
        llvm::errs() << "weftc: compile cache hit: " << cacheDir << "/"
                     << cacheKey << "\n";
      return success();
    }
  }
  auto start = std::chrono::steady_clock::now();

  SmallString<128> log;
  if (llvm::sys::fs::createTemporaryFile("weftc-cxx", "log", log)) {
    llvm::errs() << "weftc: error: cannot create a temporary file\n";
    return failure();
  }
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(compiler, argRefs, std::nullopt, redirects,
                                     0, 0, &execError);
  std::string out;
  if (auto buf = llvm::MemoryBuffer::getFile(log))
    out = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(log);
  if (rc != 0) {
    llvm::errs() << "weftc: error: the C++ compiler failed"
                 << (rc < 0 ? " to run: " + execError
                            : " (exit code " + std::to_string(rc) + ")")
                 << "\ncommand: " << command << "\n"
                 << out;
    return failure();
  }
  if (verbose && !out.empty())
    llvm::errs() << out;
  if (!cacheKey.empty()) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    bool stored = storeInCompileCache(cacheDir, cacheKey, output, seconds);
    if (verbose)
      llvm::errs() << "weftc: compile cache: "
                   << (stored ? "stored " : "could not store ") << cacheDir
                   << "/" << cacheKey << "\n";
  }
  return success();
}

} // namespace weftc

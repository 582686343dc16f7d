//===- CompileCache.cpp - Reusing executables built from the same C++ -----===//
//
// docs/weftc.md, "The compile cache". An entry is the executable the C++
// compiler built, named by the SHA-256 of everything the build read: the
// generated C++, the compile and link command (without the temporary
// file's and the output's names), and the size and modification time of
// the compiler, of every file the link names (the runtime's libraries,
// BLAS, MPI, ...), of the precompiled header and of every file under the
// runtime's include directories. Changing any of them gives another key;
// nothing is ever looked up by an output's name.
//
//===----------------------------------------------------------------------===//

#include "CompileCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace fs = llvm::sys::fs;

namespace weftc {
namespace {

/// "size mtime" of a file (following links), or "" when it cannot be read.
std::string stamp(llvm::StringRef path) {
  fs::file_status st;
  if (fs::status(path, st) || st.type() != fs::file_type::regular_file)
    return "";
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                st.getLastModificationTime().time_since_epoch())
                .count();
  return std::to_string(st.getSize()) + " " + std::to_string(ns);
}

/// Every regular file under `dir`, with its stamp, in a fixed order.
void addTree(llvm::SHA256 &hash, llvm::StringRef dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (it->type() == fs::file_type::regular_file ||
        it->type() == fs::file_type::symlink_file)
      files.push_back(it->path());
  llvm::sort(files);
  for (const std::string &f : files) {
    hash.update(f);
    hash.update(stamp(f));
    hash.update(llvm::StringRef("\0", 1));
  }
}

std::string entryPath(const std::string &dir, const std::string &key) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, key);
  return p.str().str();
}

/// Copies `from` to a temporary file beside `to`, then renames it onto
/// `to`: a reader never sees a partial file.
bool copyAtomically(const std::string &from, const std::string &to) {
  llvm::SmallString<256> tmp;
  if (fs::createUniqueFile(to + ".weftc-%%%%%%", tmp))
    return false;
  if (fs::copy_file(from, tmp) ||
      fs::setPermissions(tmp, fs::all_read | fs::all_exe | fs::owner_write) ||
      fs::rename(tmp, to)) {
    fs::remove(tmp);
    return false;
  }
  return true;
}

void appendLog(const std::string &dir, llvm::StringRef line) {
  std::error_code ec;
  llvm::raw_fd_ostream log(entryPath(dir, "log"), ec, fs::OF_Append);
  if (!ec)
    log << line << "\n";
}

} // namespace

std::string compileCacheDir(const std::string &flag) {
  std::string dir = flag;
  if (dir.empty())
    dir = llvm::sys::Process::GetEnv("WEFTC_CACHE_DIR").value_or("");
  // "off" from either turns the cache off (not a directory named off).
  return dir == "off" ? "" : dir;
}

std::string compileCacheKey(llvm::StringRef cpp,
                            llvm::ArrayRef<std::string> command,
                            llvm::ArrayRef<std::string> inputFiles,
                            llvm::ArrayRef<std::string> inputTrees) {
  llvm::SHA256 hash;
  auto field = [&](llvm::StringRef s) {
    hash.update(s);
    hash.update(llvm::StringRef("\0", 1));
  };
  field("weftc compile cache 1");
  for (const std::string &arg : command)
    field(arg);
  field("--");
  for (const std::string &f : inputFiles) {
    field(f);
    field(stamp(f));
  }
  for (const std::string &d : inputTrees)
    addTree(hash, d);
  field("--");
  hash.update(cpp);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

bool fetchFromCompileCache(const std::string &dir, const std::string &key,
                           const std::string &output) {
  std::string entry = entryPath(dir, key);
  std::string want = stamp(entry);
  if (want.empty())
    return false;
  // The stamp written beside the entry when it was stored: an entry
  // rewritten in place since (an output it was linked to, overwritten by
  // `cp`) is dropped, never handed out.
  auto recorded = llvm::MemoryBuffer::getFile(entry + ".stamp");
  if (!recorded || (*recorded)->getBuffer().trim() != want) {
    fs::remove(entry);
    fs::remove(entry + ".stamp");
    return false;
  }
  if (!copyAtomically(entry, output))
    return false;
  appendLog(dir, "hit " + key + " " + output);
  return true;
}

bool storeInCompileCache(const std::string &dir, const std::string &key,
                         const std::string &output, double compileSeconds) {
  if (fs::create_directories(dir))
    return false;
  std::string entry = entryPath(dir, key);
  // A hard link costs no space (the entry lives on while the output is
  // removed); across file systems, a copy.
  llvm::SmallString<256> tmp;
  if (fs::createUniqueFile(entry + ".tmp-%%%%%%", tmp))
    return false;
  fs::remove(tmp);
  if (fs::create_hard_link(output, tmp) && fs::copy_file(output, tmp)) {
    fs::remove(tmp);
    return false;
  }
  std::string st = stamp(tmp);
  {
    std::error_code ec;
    llvm::raw_fd_ostream f((tmp + ".stamp").str(), ec);
    if (ec) {
      fs::remove(tmp);
      return false;
    }
    f << st << "\n";
  }
  // The stamp first: an entry is only found once its stamp is there.
  if (fs::rename(tmp + ".stamp", entry + ".stamp") || fs::rename(tmp, entry)) {
    fs::remove(tmp);
    fs::remove(tmp + ".stamp");
    return false;
  }
  char secs[32];
  snprintf(secs, sizeof(secs), "%.2f", compileSeconds);
  appendLog(dir, "miss " + key + " " + output + " " + secs + " s");
  return true;
}

} // namespace weftc

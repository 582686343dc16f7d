//===- Outputs.cpp - Checking weftc's output paths before compiling -------===//

#include "Driver.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace fs = llvm::sys::fs;

namespace weftc {

LogicalResult checkOutputPath(StringRef path, StringRef what, StringRef input) {
  auto fail = [&](const Twine &msg) {
    llvm::errs() << "weftc: error: " << what << " '" << path << "' " << msg
                 << "\n";
    return failure();
  };
  bool same = false;
  if (input != "-" && !fs::equivalent(path, input, same) && same)
    return fail("is the input file; weftc never overwrites its source");
  // Read from standard input, the source has no path to compare: compare
  // the file identity (device and inode) of what stdin is open on
  // (`weftc - -o a.mlir < a.mlir`). A pipe or a terminal is no file -o
  // could name.
  fs::file_status in, out;
  if (input == "-" && path != "-" && !fs::status(/*FD=*/0, in) &&
      in.type() == fs::file_type::regular_file && !fs::status(path, out) &&
      fs::equivalent(in, out))
    return fail("is the file standard input reads the program from; weftc "
                "never overwrites its source");
  if (path == "-")
    return success(); // stdout
  if (fs::is_directory(path))
    return fail("is a directory");
  // A device such as /dev/null: written in place, the user's choice.
  fs::file_status status;
  if (!fs::status(path, status) &&
      status.type() == fs::file_type::character_file)
    return success();
  if (fs::exists(path) && !fs::is_regular_file(path))
    return fail("exists and is not a regular file");
  SmallString<128> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  if (!fs::is_directory(dir))
    return fail("cannot be written: directory '" + dir + "' does not exist");
  // The linker (and openOutputFile) replace the file: the directory must be
  // writable, and an existing file too.
  if (fs::access(dir, fs::AccessMode::Write))
    return fail("cannot be written: directory '" + dir + "' is not writable");
  if (fs::exists(path) && fs::access(path, fs::AccessMode::Write))
    return fail("cannot be written: the file is not writable");
  return success();
}

} // namespace weftc

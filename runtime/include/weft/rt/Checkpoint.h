//===- Checkpoint.h - Checkpoints written and published as a unit -*- C++
//-*-===//
//
// A checkpoint is a directory ROOT/step-NNNNNNNN holding one global .npy per
// tensor and a manifest (manifest.json) that lists every file with its
// dtype, shape, byte size and CRC-32 (zlib's, so `zlib.crc32` checks it).
// The guarantee (docs/training.md, "Checkpoints"):
//
//  - A writer fills a fresh staging directory beside the checkpoints
//    (ROOT/.step-NNNNNNNN.partial-PID), fsyncs every file, writes the
//    manifest last, fsyncs it and the directory, and publishes the
//    checkpoint with one rename (an atomic exchange when a checkpoint of the
//    same step is replaced). A reader sees a whole checkpoint or none; the
//    previous checkpoints are untouched until the new one is published.
//  - A reader refuses a directory without a manifest, and a file whose
//    size, header or checksum does not match it, naming the file.
//
// Writing happens on one rank (rank 0 holds the gathered tensors); reading
// is per rank. Nothing here communicates.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CHECKPOINT_H
#define WEFT_RT_CHECKPOINT_H

#include "weft/rt/DType.h"
#include "weft/rt/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace weft::rt {

/// CRC-32 (IEEE 802.3, reflected, as zlib's crc32 and Python's zlib.crc32)
/// of `n` bytes, continuing from `crc` (0 to start).
uint32_t crc32(const void *data, std::size_t n, uint32_t crc = 0);

/// The manifest's record of one tensor; its file is `name` + ".npy".
struct CheckpointEntry {
  std::string name;
  /// "parameter", "optimizer state" or "step", for messages and tools.
  std::string role;
  DType dtype = DType::F32;
  Shape shape;
  /// Size of the whole .npy file (header included) and its CRC-32.
  uint64_t bytes = 0;
  uint32_t crc = 0;
};

struct CheckpointManifest {
  /// The training step the checkpoint was taken after.
  int64_t step = 0;
  /// The program and mesh that wrote it (informational: a checkpoint holds
  /// global tensors and loads on any number of ranks).
  std::string program, mesh;
  std::vector<CheckpointEntry> tensors;

  const CheckpointEntry *find(const std::string &name) const;
};

/// The manifest's file name inside a checkpoint directory.
inline constexpr const char *kManifestName = "manifest.json";

/// The manifest as JSON text, and back (Error on anything malformed, with
/// `where` in the message).
std::string manifestToJson(const CheckpointManifest &m);
CheckpointManifest parseManifest(const std::string &text,
                                 const std::string &where);

/// "step-00000012": the directory name of step `step`'s checkpoint.
std::string checkpointDirName(int64_t step);

/// The published checkpoints under `root` (directories named step-N, in
/// increasing step order), as (step, path). Empty when `root` does not exist.
std::vector<std::pair<int64_t, std::string>>
listCheckpoints(const std::string &root);

/// What --load PATH names: PATH itself when it holds a manifest (one
/// checkpoint), else the newest step-N directory under PATH (a root written
/// by --save). Error when it is neither, saying what was found.
std::string resolveCheckpoint(const std::string &path);

/// Reads `dir`'s manifest and checks every file it lists against it: that
/// it exists, has the recorded size and an .npy header of the recorded
/// dtype and shape, and (with `checksums`) the recorded CRC-32. Error naming
/// the file on the first mismatch.
CheckpointManifest verifyCheckpoint(const std::string &dir, bool checksums);

/// Writes one checkpoint on one rank: the constructor creates the staging
/// directory (and ROOT if missing), add() writes and syncs one tensor,
/// publish() writes the manifest and renames the staging directory to
/// ROOT/step-N. Destroyed unpublished (an error, or an exception), it
/// removes the staging directory; the published checkpoints are untouched.
class CheckpointWriter {
public:
  CheckpointWriter(std::string root, int64_t step, std::string program,
                   std::string mesh);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter &) = delete;
  CheckpointWriter &operator=(const CheckpointWriter &) = delete;

  void add(const std::string &name, const std::string &role, DType dtype,
           const Shape &shape, const void *data);
  /// Publishes, then removes the oldest checkpoints beyond the newest
  /// `keep` (0: keep all; each renamed away before it is removed). Returns
  /// the published directory.
  std::string publish(int keep);

private:
  std::string root_, staging_;
  CheckpointManifest manifest_;
  bool published_ = false;
};

/// Removes what an interrupted writer left under `root`: staging
/// directories (.step-*.partial-*) and checkpoints it was removing
/// (.step-*.deleting-*, renamed away before removal so that no step-N is
/// ever partial). Returns how many it removed.
int removeStaleStaging(const std::string &root);

} // namespace weft::rt

#endif // WEFT_RT_CHECKPOINT_H

//===- TokenData.h - Training windows from a token file ---------*- C++ -*-===//
//
// `--tokens FILE`: the batches of a training step drawn from a flat file of
// token ids (uint16 or uint32, little-endian, no header: nanoGPT's
// train.bin). Every step, row b of the global [B, T] ids input reads the
// window tok[s .. s+T) and the targets input tok[s+1 .. s+T], where the
// start s is drawn from the counter RNG by (seed, batch, b): the batch is
// the step's (with micro-batches, (step-1)*K + k). A rank reads only the
// rows of its block, so data-parallel ranks read different windows and
// the ranks that share rows (model-parallel peers) the same ones, and a
// resumed run reads, for step T, what an uninterrupted one read: the
// window depends on nothing but the seed, the step and the row
// (docs/training.md).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_MAIN_TOKENDATA_H
#define WEFT_RT_MAIN_TOKENDATA_H

#include "weft/rt/Tensor.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace weft::rt {

/// The --tokens options.
struct TokenOptions {
  std::string file;
  /// Bytes per token: 2 (u16, the default) or 4 (u32).
  int tokenBytes = 2;
  /// The data inputs the windows feed: the ids and the targets shifted by
  /// one (empty: none).
  std::string idsInput = "tokens", targetsInput = "labels";
  uint64_t seed = 0;
  /// Print every step's window starts, per rank (tests, debugging).
  bool printWindows = false;
};

/// Parses one --tokens option; false when `name` is none of them.
/// `value()` takes the option's value (and throws when it has none).
bool parseTokenOption(const std::string &name,
                      const std::function<std::string()> &value,
                      TokenOptions &o);

/// An open, checked token file.
class TokenFile {
public:
  /// Opens `path` and checks it: its size is a whole number of tokens, it
  /// holds at least `seq` + 1 of them, and, when `vocab` > 1, every id is
  /// below `vocab`. The id scan is shared: this rank scans part `part` of
  /// `parts` equal slices of the file (the ranks together scan it once, so
  /// a bad id is an error at the start, agreed by every rank, not at the
  /// step that happens to read it, and start-up does not grow with the
  /// number of ranks on one file system). Throws Error naming the file and,
  /// for a bad id, its position.
  TokenFile(const std::string &path, int tokenBytes, int64_t seq, int64_t vocab,
            int part = 0, int parts = 1);
  ~TokenFile();
  TokenFile(const TokenFile &) = delete;
  TokenFile &operator=(const TokenFile &) = delete;

  int64_t tokens() const { return count_; }
  /// The start of row `row`'s window in batch `batch`: uniform in
  /// [0, tokens - seq - 1].
  int64_t windowStart(uint64_t seed, int64_t batch, int64_t row) const;
  /// Fills the i32 block of a [B, T] ids (shift 0) or targets (shift 1)
  /// input: `offsets` and `block` are the rank's block of `global`; rows
  /// and columns past `global` (pads) are zero.
  void fillBlock(uint64_t seed, int64_t batch, int shift, const Shape &global,
                 const std::vector<int64_t> &offsets, const Shape &block,
                 int32_t *out) const;

private:
  std::string path_;
  int fd_ = -1;
  int tokenBytes_;
  int64_t seq_;
  int64_t count_ = 0;
};

} // namespace weft::rt

#endif // WEFT_RT_MAIN_TOKENDATA_H

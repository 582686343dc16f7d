//===- Npy.h - Blockwise .npy input and whole-file output -------*- C++ -*-===//
//
// Readers touch only the header and the bytes of the requested block
// (positioned reads of contiguous row segments). Every malformed input is an
// Error naming the file and what is wrong; what is malformed is decided by
// NpyFormat.h, shared with weft-interp's reader.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_NPY_H
#define WEFT_RT_NPY_H

#include "weft/rt/DType.h"
#include "weft/rt/Tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace weft::rt {

struct NpyHeader {
  DType dtype = DType::F32;
  Shape shape;
  bool fortranOrder = false;
  int64_t dataOffset = 0; // bytes from file start to the first element
};

/// The element type of the .npy file that holds a `t` tensor: f32 for
/// bf16 (numpy has no bf16; see readNpyBlock), `t` otherwise.
inline DType npyFileDType(DType t) { return t == DType::BF16 ? DType::F32 : t; }

/// Reads and validates the header (magic, version, dict, dtype).
NpyHeader readNpyHeader(const std::string &path);

/// Reads the block at `offsets` with extent `block` of the global array in
/// `path` into `out` (dense, numElements(block) elements of `dtype`).
/// Checks the file's dtype and shape against `dtype` and `globalShape`.
/// A bf16 block reads an f32 file, each value rounded to bf16 (nearest,
/// ties to even); writeNpy writes bf16 as f32, exactly.
void readNpyBlock(const std::string &path, DType dtype,
                  const Shape &globalShape, const std::vector<int64_t> &offsets,
                  const Shape &block, void *out);
/// readNpyBlock for a block of a padded tensor (uneven shards): the file
/// holds the logical array, of shape `fileShape`; the block at `offsets`
/// with extent `block` is one of the padded array and may reach past it.
/// Its part inside `fileShape` (clipBlock) is read into place in `out`
/// (dense in `block`) and the rest of `out` is zero-filled; a block wholly
/// past the file reads no data (the header is still checked). Without
/// padding it reads what readNpyBlock reads.
void readNpyBlockClipped(const std::string &path, DType dtype,
                         const Shape &fileShape,
                         const std::vector<int64_t> &offsets,
                         const Shape &block, void *out);
/// Convenience: the whole array into a host tensor (small files, tests).
Tensor readNpy(const std::string &path);

/// Writes a whole C-order array (version 1.0 header), atomically
/// (writeFileAtomically): `path` is either the complete new file or as it
/// was before.
void writeNpy(const std::string &path, DType dtype, const Shape &shape,
              const void *data);

/// Creates `path` atomically: `write` fills a new temporary file
/// (".NAME.tmp.PID.N", mode 0666 less the umask) in the same directory
/// through its descriptor, then it is fsync'ed and renamed over `path`. If
/// anything fails (`write` throws, the disk is full, the rename fails) the
/// temporary is removed, `path` is left as it was, and Error is thrown.
void writeFileAtomically(const std::string &path,
                         const std::function<void(int fd)> &write);

/// The .npy (version 1.0) header of a C-order array: magic, version, length
/// and the padded dict, as writeNpy writes it.
std::string encodeNpyHeader(DType dtype, const Shape &shape);
/// The data bytes of a `dtype` array of `shape`; Error naming `path` when
/// it overflows.
std::size_t npyDataBytes(DType dtype, const Shape &shape,
                         const std::string &path);
/// Writes all of `n` bytes to `fd`; Error naming `path` if it cannot.
void writeAllToFd(int fd, const void *data, std::size_t n,
                  const std::string &path);

} // namespace weft::rt

#endif // WEFT_RT_NPY_H

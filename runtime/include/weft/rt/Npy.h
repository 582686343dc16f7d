//===- Npy.h - Blockwise .npy input and whole-file output -------*- C++ -*-===//
//
// Readers touch only the header and the bytes of the requested block
// (positioned reads of contiguous row segments). Every malformed input is an
// Error naming the file and what is wrong.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_NPY_H
#define WEFT_RT_NPY_H

#include "weft/rt/DType.h"
#include "weft/rt/Tensor.h"

#include <string>
#include <vector>

namespace weft::rt {

struct NpyHeader {
  DType dtype = DType::F32;
  Shape shape;
  bool fortranOrder = false;
  int64_t dataOffset = 0; // bytes from file start to the first element
};

/// Reads and validates the header (magic, version, dict, dtype).
NpyHeader readNpyHeader(const std::string &path);

/// Reads the block at `offsets` with extent `block` of the global array in
/// `path` into `out` (dense, numElements(block) elements of `dtype`).
/// Checks the file's dtype and shape against `dtype` and `globalShape`.
void readNpyBlock(const std::string &path, DType dtype,
                  const Shape &globalShape, const std::vector<int64_t> &offsets,
                  const Shape &block, void *out);
/// Convenience: the whole array into a host tensor (small files, tests).
Tensor readNpy(const std::string &path);

/// Writes a whole C-order array (version 1.0 header).
void writeNpy(const std::string &path, DType dtype, const Shape &shape,
              const void *data);

} // namespace weft::rt

#endif // WEFT_RT_NPY_H

//===- Npy.h - reading and writing .npy files -------------------*- C++ -*-===//
//
// NumPy's format, version 1 to 3, C order, little-endian: float16, float32,
// float64, int32 and int64 are read; float64 and int32 are written.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_NPY_H
#define WEFT_INTERPRETER_NPY_H

#include "weft/Interpreter/Tensor.h"

#include <string>

namespace mlir::weft::interp {

/// Reads `path`. On failure, `error` says why.
FailureOr<Tensor> readNpy(StringRef path, std::string &error);

/// Writes `tensor` to `path` as float64, or as int32 if `asInt32`.
LogicalResult writeNpy(StringRef path, const Tensor &tensor, bool asInt32,
                       std::string &error);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_NPY_H

//===- Npy.h - reading and writing .npy files -------------------*- C++ -*-===//
//
// NumPy's format, version 1 to 3, C order, little-endian: float16, float32,
// float64, int32 and int64 are read (by the rules shared with the runtime,
// runtime/include/weft/rt/NpyFormat.h); float64 and int32 are written.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_NPY_H
#define WEFT_INTERPRETER_NPY_H

#include "mlir/IR/Types.h"
#include "weft/Interpreter/Tensor.h"

#include <string>

namespace mlir::weft::interp {

/// Reads `path`. On failure, `error` says why. Which files are valid is
/// decided by the rules shared with the runtime's reader
/// (runtime/include/weft/rt/NpyFormat.h).
FailureOr<Tensor> readNpy(StringRef path, std::string &error);

/// Reads `path` for an argument of `elementType`: also fails when the
/// file's dtype is not exactly that type's (f32 reads '<f4' only, as in
/// the runtime; f16 '<f2', f64 '<f8', i32 '<i4', i64 '<i8').
FailureOr<Tensor> readNpy(StringRef path, Type elementType, std::string &error);

/// Writes `tensor` to `path` as float64, or as int32 if `asInt32`.
LogicalResult writeNpy(StringRef path, const Tensor &tensor, bool asInt32,
                       std::string &error);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_NPY_H

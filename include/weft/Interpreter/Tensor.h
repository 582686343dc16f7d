//===- Tensor.h - dense row-major tensors of doubles ------------*- C++ -*-===//
//
// The values of the reference interpreter. Every float type is evaluated in
// double; i32 ids are stored as exact integers in the same storage.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_TENSOR_H
#define WEFT_INTERPRETER_TENSOR_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <new>
#include <string>
#include <vector>

namespace mlir::weft::interp {

/// Number of elements of `shape` (1 for a rank-0 shape).
int64_t numElements(ArrayRef<int64_t> shape);
/// Row-major strides of `shape`.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape);
/// "4x64x256" ("scalar" for rank 0).
std::string shapeToString(ArrayRef<int64_t> shape);
/// "[1, 0, 3]": the coordinates of row-major index `flat` in `shape`.
std::string indexToString(int64_t flat, ArrayRef<int64_t> shape);

/// Thrown by Tensor's constructor when the storage of a tensor cannot be
/// allocated. weft-interp lets operator new throw (llvm::InitLLVM installs
/// a handler that aborts with "LLVM ERROR: out of memory" instead) and
/// reports this as an error naming the size.
class AllocationFailure : public std::bad_alloc {
public:
  AllocationFailure(int64_t bytes, ArrayRef<int64_t> shape);
  const char *what() const noexcept override { return message.c_str(); }
  int64_t getBytes() const { return bytes; }

private:
  int64_t bytes;
  std::string message;
};

/// A dense row-major tensor of doubles with a static shape.
class Tensor {
public:
  Tensor() = default;
  explicit Tensor(ArrayRef<int64_t> shape, double fill = 0.0);

  ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return shape.size(); }
  int64_t getNumElements() const { return data.size(); }
  ArrayRef<double> getData() const { return data; }
  MutableArrayRef<double> getData() { return data; }
  double operator[](int64_t i) const { return data[i]; }
  double &operator[](int64_t i) { return data[i]; }

  /// The sub-tensor of shape `sizes` starting at `offsets`.
  Tensor extract(ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) const;
  /// Copies `block` into this tensor at `offsets`.
  void insert(const Tensor &block, ArrayRef<int64_t> offsets);
  /// Block `index` of `count` equal blocks along `dim` (`count` divides the
  /// dimension).
  Tensor block(unsigned dim, int64_t index, int64_t count) const;
  /// Concatenation along `dim`; all parts have equal shapes but on `dim`.
  static Tensor concat(ArrayRef<Tensor> parts, unsigned dim);

private:
  SmallVector<int64_t, 4> shape;
  std::vector<double> data;
};

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_TENSOR_H

//===- Tensor.h - Runtime tensors -------------------------------*- C++ -*-===//
//
// A dense row-major tensor: dtype, shape and a pointer into host or device
// memory. Storage is reference counted; views share it.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_TENSOR_H
#define WEFT_RT_TENSOR_H

#include "weft/rt/DType.h"

#include <optional>

#include <memory>

namespace weft::rt {

enum class Device : int { Host, Cuda };

struct Tensor {
  DType dtype = DType::F32;
  Shape shape;
  void *data = nullptr;
  Device device = Device::Host;
  std::shared_ptr<void> storage;

  int64_t numElements() const { return weft::rt::numElements(shape); }
  std::size_t bytes() const {
    return static_cast<std::size_t>(numElements()) * dtypeSize(dtype);
  }
  template <typename T> T *ptr() { return static_cast<T *>(data); }
  template <typename T> const T *ptr() const {
    return static_cast<const T *>(data);
  }
  std::string str() const;
};

/// Zero-initialized, 64-byte aligned host tensor.
Tensor hostTensor(DType dtype, const Shape &shape);
/// The leading block of extent `shape` (offsets 0) of host tensor `host`,
/// as a new host tensor; `host` itself when the shapes are equal. Drops the
/// pads of a padded global tensor (uneven shards). Throws Error unless
/// `shape` has host's rank and fits in it.
Tensor cropHostTensor(const Tensor &host, const Shape &shape);
/// The first element of host tensor `host` as a double (f32, f64, i32);
/// std::nullopt for another dtype or an empty tensor.
std::optional<double> hostScalarValue(const Tensor &host);

} // namespace weft::rt

#endif // WEFT_RT_TENSOR_H

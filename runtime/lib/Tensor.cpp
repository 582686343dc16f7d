//===- Tensor.cpp - Runtime tensors ---------------------------------------===//

#include "weft/rt/Tensor.h"
#include "weft/rt/CopyPlan.h"
#include "weft/rt/Error.h"

#include <cstdlib>
#include <cstring>

namespace weft::rt {

std::string Tensor::str() const {
  return std::string(dtypeName(dtype)) + shapeToString(shape) +
         (device == Device::Cuda ? "@cuda" : "@host");
}

std::optional<double> hostScalarValue(const Tensor &host) {
  if (host.numElements() == 0)
    return std::nullopt;
  switch (host.dtype) {
  case DType::F32:
    return *host.ptr<float>();
  case DType::F64:
    return *host.ptr<double>();
  case DType::I32:
    return *host.ptr<int32_t>();
  default:
    return std::nullopt;
  }
}

Tensor hostTensor(DType dtype, const Shape &shape) {
  for (int64_t d : shape)
    check(d >= 0, "negative extent in shape ", shapeToString(shape));
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.device = Device::Host;
  std::size_t bytes = t.bytes();
  std::size_t rounded = (bytes + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, rounded ? rounded : 64);
  check(p != nullptr, "out of host memory allocating ", bytes, " bytes");
  std::memset(p, 0, rounded ? rounded : 64);
  t.data = p;
  t.storage = std::shared_ptr<void>(p, [](void *q) { std::free(q); });
  return t;
}

Tensor cropHostTensor(const Tensor &host, const Shape &shape) {
  check(host.device == Device::Host, "crop of a non-host tensor ", host.str());
  if (shape == host.shape)
    return host;
  CopyPlan plan = CopyPlan::extractBlock(
      host.shape, std::vector<int64_t>(host.shape.size(), 0), shape);
  Tensor out = hostTensor(host.dtype, shape);
  copyStridedHost(plan, dtypeSize(host.dtype), host.data, out.data);
  return out;
}

} // namespace weft::rt

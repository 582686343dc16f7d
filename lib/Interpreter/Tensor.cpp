//===- Tensor.cpp - dense row-major tensors of doubles --------------------===//

#include "weft/Interpreter/Tensor.h"
#include "weft/Dialect/Weft/IR/Limits.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>

using namespace mlir;
using namespace mlir::weft::interp;

int64_t mlir::weft::interp::numElements(ArrayRef<int64_t> shape) {
  // The verifier bounds a tensor by kMaxElements; checkSimulable far lower.
  std::optional<int64_t> n = boundedProduct(shape, kMaxElements);
  assert(n && "tensor beyond kMaxElements: the verifier bounds it");
  return *n;
}

SmallVector<int64_t>
mlir::weft::interp::rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::string mlir::weft::interp::shapeToString(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (i)
      s += "x";
    s += std::to_string(size);
  }
  return s;
}

std::string mlir::weft::interp::indexToString(int64_t flat,
                                              ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides = rowMajorStrides(shape);
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d)
      s += ", ";
    s += std::to_string(flat / strides[d]);
    flat %= strides[d];
  }
  return s + "]";
}

AllocationFailure::AllocationFailure(int64_t bytes, ArrayRef<int64_t> shape)
    : bytes(bytes), message("cannot allocate " + std::to_string(bytes) +
                            " bytes for a tensor of shape " +
                            shapeToString(shape) + " (out of memory)") {}

Tensor::Tensor(ArrayRef<int64_t> shape, double fill)
    : shape(shape.begin(), shape.end()) {
  int64_t n = numElements(shape); // < 2^48: n * 8 does not overflow.
  try {
    data.assign(n, fill);
  } catch (const std::bad_alloc &) {
    throw AllocationFailure(n * int64_t(sizeof(double)), shape);
  }
}

/// Calls `fn(srcOffset, dstOffset)` for every element of a box of `sizes`
/// placed at `offsets` inside a tensor of shape `outer`, where the box itself
/// is dense (dstOffset counts 0, 1, 2, ...) and srcOffset is the outer index.
template <typename Fn>
static void forEachInBox(ArrayRef<int64_t> outer, ArrayRef<int64_t> offsets,
                         ArrayRef<int64_t> sizes, Fn fn) {
  int64_t n = numElements(sizes);
  if (n == 0)
    return;
  SmallVector<int64_t> strides = rowMajorStrides(outer);
  int64_t rank = sizes.size();
  SmallVector<int64_t> idx(rank, 0);
  int64_t base = 0;
  for (int64_t d = 0; d < rank; ++d)
    base += offsets[d] * strides[d];
  for (int64_t i = 0; i < n; ++i) {
    fn(base, i);
    for (int64_t d = rank - 1; d >= 0; --d) {
      base += strides[d];
      if (++idx[d] < sizes[d])
        break;
      base -= strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
}

Tensor Tensor::extract(ArrayRef<int64_t> offsets,
                       ArrayRef<int64_t> sizes) const {
  assert(offsets.size() == shape.size() && sizes.size() == shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    assert(offsets[d] >= 0 && offsets[d] + sizes[d] <= shape[d]);
  Tensor out(sizes);
  forEachInBox(shape, offsets, sizes,
               [&](int64_t src, int64_t dst) { out.data[dst] = data[src]; });
  return out;
}

void Tensor::insert(const Tensor &block, ArrayRef<int64_t> offsets) {
  assert(offsets.size() == shape.size() && block.getRank() == getRank());
  for (size_t d = 0; d < shape.size(); ++d)
    assert(offsets[d] >= 0 && offsets[d] + block.shape[d] <= shape[d]);
  forEachInBox(shape, offsets, block.shape,
               [&](int64_t dst, int64_t src) { data[dst] = block.data[src]; });
}

Tensor Tensor::block(unsigned dim, int64_t index, int64_t count) const {
  assert(dim < shape.size() && count > 0 && shape[dim] % count == 0 &&
         index >= 0 && index < count);
  SmallVector<int64_t> offsets(shape.size(), 0);
  SmallVector<int64_t> sizes(shape.begin(), shape.end());
  sizes[dim] = shape[dim] / count;
  offsets[dim] = index * sizes[dim];
  return extract(offsets, sizes);
}

Tensor Tensor::concat(ArrayRef<Tensor> parts, unsigned dim) {
  assert(!parts.empty());
  SmallVector<int64_t> shape(parts.front().shape.begin(),
                             parts.front().shape.end());
  assert(dim < shape.size());
  shape[dim] = 0;
  for (const Tensor &p : parts)
    shape[dim] += p.shape[dim];
  Tensor out(shape);
  SmallVector<int64_t> offsets(shape.size(), 0);
  for (const Tensor &p : parts) {
    out.insert(p, offsets);
    offsets[dim] += p.shape[dim];
  }
  return out;
}

//===- CopyPlan.cpp - Strided n-d copies ----------------------------------===//

#include "weft/rt/CopyPlan.h"
#include "weft/rt/Error.h"

namespace weft::rt {

void mergeDims(Shape &shape, std::vector<std::vector<int64_t> *> strides) {
  // A zero extent means nothing to iterate; keep one zero dim.
  if (numElements(shape) == 0) {
    shape = {0};
    for (auto *s : strides)
      *s = {0};
    return;
  }
  Shape outShape;
  std::vector<std::vector<int64_t>> out(strides.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    bool merge = !outShape.empty();
    for (std::size_t k = 0; merge && k < strides.size(); ++k)
      merge = out[k].back() == (*strides[k])[d] * shape[d];
    if (merge) {
      outShape.back() *= shape[d];
      for (std::size_t k = 0; k < strides.size(); ++k)
        out[k].back() = (*strides[k])[d];
      continue;
    }
    outShape.push_back(shape[d]);
    for (std::size_t k = 0; k < strides.size(); ++k)
      out[k].push_back((*strides[k])[d]);
  }
  shape = outShape;
  for (std::size_t k = 0; k < strides.size(); ++k)
    *strides[k] = out[k];
}

void CopyPlan::simplify() { mergeDims(shape, {&srcStrides, &dstStrides}); }

bool CopyPlan::isContiguous() const {
  if (shape.empty())
    return true;
  return shape.size() == 1 && srcStrides[0] == 1 && dstStrides[0] == 1;
}

std::string CopyPlan::str() const {
  std::string s =
      "copy shape=" + shapeToString(shape) +
      " src=" + shapeToString(srcStrides) + "+" + std::to_string(srcOffset) +
      " dst=" + shapeToString(dstStrides) + "+" + std::to_string(dstOffset);
  return s;
}

CopyPlan CopyPlan::permute(const Shape &srcShape,
                           const std::vector<int> &perm) {
  check(perm.size() == srcShape.size(), "permutation rank mismatch");
  auto srcStrides = rowMajorStrides(srcShape);
  CopyPlan p;
  for (int d : perm) {
    check(d >= 0 && d < static_cast<int>(srcShape.size()), "bad permutation");
    p.shape.push_back(srcShape[d]);
    p.srcStrides.push_back(srcStrides[d]);
  }
  p.dstStrides = rowMajorStrides(p.shape);
  p.simplify();
  return p;
}

static void checkBlock(const Shape &full, const std::vector<int64_t> &offsets,
                       const Shape &block) {
  check(full.size() == offsets.size() && full.size() == block.size(),
        "block rank mismatch: tensor ", shapeToString(full), ", offsets ",
        shapeToString(offsets), ", block ", shapeToString(block));
  for (std::size_t d = 0; d < full.size(); ++d)
    check(offsets[d] >= 0 && block[d] >= 0 && offsets[d] + block[d] <= full[d],
          "block ", shapeToString(block), " at ", shapeToString(offsets),
          " does not fit in tensor ", shapeToString(full));
}

CopyPlan CopyPlan::extractBlock(const Shape &src,
                                const std::vector<int64_t> &offsets,
                                const Shape &block) {
  checkBlock(src, offsets, block);
  CopyPlan p;
  p.shape = block;
  p.srcStrides = rowMajorStrides(src);
  p.dstStrides = rowMajorStrides(block);
  for (std::size_t d = 0; d < src.size(); ++d)
    p.srcOffset += offsets[d] * p.srcStrides[d];
  p.simplify();
  return p;
}

CopyPlan CopyPlan::insertBlock(const Shape &dst,
                               const std::vector<int64_t> &offsets,
                               const Shape &block) {
  checkBlock(dst, offsets, block);
  CopyPlan p;
  p.shape = block;
  p.srcStrides = rowMajorStrides(block);
  p.dstStrides = rowMajorStrides(dst);
  for (std::size_t d = 0; d < dst.size(); ++d)
    p.dstOffset += offsets[d] * p.dstStrides[d];
  p.simplify();
  return p;
}

} // namespace weft::rt

namespace weft::rt {

namespace {
template <typename T> void copyLoop(const CopyPlan &p, const T *src, T *dst) {
  int rank = static_cast<int>(p.shape.size());
  src += p.srcOffset;
  dst += p.dstOffset;
  if (rank == 0) {
    *dst = *src;
    return;
  }
  int64_t n = numElements(p.shape);
  if (n == 0)
    return;
  int64_t inner = p.shape[rank - 1];
  int64_t si = p.srcStrides[rank - 1], di = p.dstStrides[rank - 1];
  std::vector<int64_t> idx(rank, 0);
  int64_t so = 0, dof = 0;
  for (int64_t done = 0; done < n; done += inner) {
    const T *s = src + so;
    T *d = dst + dof;
    if (si == 1 && di == 1)
      for (int64_t i = 0; i < inner; ++i)
        d[i] = s[i];
    else if (di == 1)
      for (int64_t i = 0; i < inner; ++i)
        d[i] = s[i * si];
    else
      for (int64_t i = 0; i < inner; ++i)
        d[i * di] = s[i * si];
    for (int d2 = rank - 2; d2 >= 0; --d2) {
      so += p.srcStrides[d2];
      dof += p.dstStrides[d2];
      if (++idx[d2] < p.shape[d2])
        break;
      so -= p.srcStrides[d2] * p.shape[d2];
      dof -= p.dstStrides[d2] * p.shape[d2];
      idx[d2] = 0;
    }
  }
}
} // namespace

void copyStridedHost(const CopyPlan &plan, std::size_t elemSize,
                     const void *src, void *dst) {
  switch (elemSize) {
  case 1:
    return copyLoop(plan, static_cast<const uint8_t *>(src),
                    static_cast<uint8_t *>(dst));
  case 2:
    return copyLoop(plan, static_cast<const uint16_t *>(src),
                    static_cast<uint16_t *>(dst));
  case 4:
    return copyLoop(plan, static_cast<const uint32_t *>(src),
                    static_cast<uint32_t *>(dst));
  case 8:
    return copyLoop(plan, static_cast<const uint64_t *>(src),
                    static_cast<uint64_t *>(dst));
  }
  fail("copy of ", elemSize, "-byte elements is not supported");
}

} // namespace weft::rt

//===- Rng.cpp - Counter-based random inputs ------------------------------===//

#include "weft/rt/Rng.h"
#include "weft/rt/CopyPlan.h"
#include "weft/rt/Error.h"
#include "weft/rt/Mesh.h"

#include <cstring>

namespace weft::rt {

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t tensorId(const std::string &name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t randomBits(uint64_t seed, uint64_t id, uint64_t index) {
  uint64_t key = mix64(seed ^ mix64(id));
  return mix64(key + index * 0xd1b54a32d192ed03ull);
}

double randomUniform(uint64_t seed, uint64_t id, uint64_t index) {
  uint64_t bits = randomBits(seed, id, index) >> 11; // 53 bits
  return static_cast<double>(bits) * 0x1.0p-52 - 1.0;
}

int64_t randomInt(uint64_t seed, uint64_t id, uint64_t index, int64_t bound) {
  check(bound >= 1, "random integer bound must be >= 1, got ", bound);
  unsigned __int128 prod =
      static_cast<unsigned __int128>(randomBits(seed, id, index)) *
      static_cast<uint64_t>(bound);
  return static_cast<int64_t>(prod >> 64);
}

namespace {
/// Fills the destination elements of `plan` (source: global linear
/// indices, destination: elements of `out`) with the values at those
/// indices.
void fillPlan(uint64_t seed, uint64_t id, DType dtype, const CopyPlan &plan,
              void *out, int64_t intBound) {
  int64_t n = plan.numElements();
  if (n == 0)
    return;
  int rank = static_cast<int>(plan.shape.size());
  std::vector<int64_t> idx(rank, 0);
  int64_t g = plan.srcOffset, i = plan.dstOffset;
  for (int64_t done = 0; done < n; ++done) {
    uint64_t gi = static_cast<uint64_t>(g);
    switch (dtype) {
    case DType::F32:
      static_cast<float *>(out)[i] =
          static_cast<float>(randomUniform(seed, id, gi));
      break;
    case DType::F64:
      static_cast<double *>(out)[i] = randomUniform(seed, id, gi);
      break;
    case DType::I32:
      static_cast<int32_t *>(out)[i] =
          static_cast<int32_t>(randomInt(seed, id, gi, intBound));
      break;
    case DType::F16:
      static_cast<uint16_t *>(out)[i] =
          floatToHalf(static_cast<float>(randomUniform(seed, id, gi)));
      break;
    case DType::BF16:
      static_cast<uint16_t *>(out)[i] =
          floatToBFloat16(static_cast<float>(randomUniform(seed, id, gi)));
      break;
    }
    // Advance the odometer over both index spaces.
    for (int d = rank - 1; d >= 0; --d) {
      g += plan.srcStrides[d];
      i += plan.dstStrides[d];
      if (++idx[d] < plan.shape[d])
        break;
      g -= plan.srcStrides[d] * plan.shape[d];
      i -= plan.dstStrides[d] * plan.shape[d];
      idx[d] = 0;
    }
  }
}
} // namespace

void fillRandomBlock(uint64_t seed, uint64_t id, DType dtype,
                     const Shape &global, const std::vector<int64_t> &offsets,
                     const Shape &block, void *out, int64_t intBound) {
  // Global index of each block element: walk the block with a copy plan
  // whose source strides are the global tensor's.
  fillPlan(seed, id, dtype, CopyPlan::extractBlock(global, offsets, block), out,
           intBound);
}

void fillRandomBlockClipped(uint64_t seed, uint64_t id, DType dtype,
                            const Shape &logical,
                            const std::vector<int64_t> &offsets,
                            const Shape &block, void *out, int64_t intBound) {
  Shape clip = clipBlock(logical, offsets, block);
  int64_t n = 1, bytes = 0;
  for (int64_t d : block)
    check(!__builtin_mul_overflow(n, d, &n), "block ", shapeToString(block),
          " has more than 2^63 elements");
  check(!__builtin_mul_overflow(n, static_cast<int64_t>(dtypeSize(dtype)),
                                &bytes),
        "block ", shapeToString(block), " of ", dtypeName(dtype),
        " is too large");
  if (clip != block && bytes > 0)
    std::memset(out, 0, static_cast<std::size_t>(bytes));
  if (numElements(clip) == 0)
    return;
  // Source: indices in the logical tensor; destination: the padded block.
  CopyPlan plan;
  plan.shape = clip;
  plan.srcStrides = rowMajorStrides(logical);
  plan.dstStrides = rowMajorStrides(block);
  for (std::size_t d = 0; d < logical.size(); ++d)
    plan.srcOffset += offsets[d] * plan.srcStrides[d];
  plan.simplify();
  fillPlan(seed, id, dtype, plan, out, intBound);
}

} // namespace weft::rt

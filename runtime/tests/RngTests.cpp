//===- RngTests.cpp - Counter-based generator and sharding invariance -----===//

#include "weft/rt/Error.h"
#include "weft/rt/Mesh.h"
#include "weft/rt/Rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

using namespace weft::rt;

namespace {

TEST(Rng, RangeAndRoughUniformity) {
  double sum = 0, lo = 1, hi = -1;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    double x = randomUniform(7, 3, i);
    ASSERT_GE(x, -1.0);
    ASSERT_LT(x, 1.0);
    sum += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  std::set<int64_t> seen;
  for (int i = 0; i < 10000; ++i) {
    int64_t v = randomInt(7, 3, i, 10);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 10);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_THROW(randomInt(1, 1, 1, 0), Error);
}

TEST(Rng, KeysChangeTheStream) {
  EXPECT_NE(randomBits(1, 2, 3), randomBits(2, 2, 3));
  EXPECT_NE(randomBits(1, 2, 3), randomBits(1, 3, 3));
  EXPECT_NE(randomBits(1, 2, 3), randomBits(1, 2, 4));
  EXPECT_EQ(randomBits(1, 2, 3), randomBits(1, 2, 3));
  EXPECT_NE(tensorId("x"), tensorId("w1"));
  EXPECT_EQ(tensorId("x"), tensorId("x"));
}

// Every rank's block of a 4-rank layout equals the slice of the 1-rank fill.
TEST(Rng, ShardingInvariance) {
  Mesh m({{"data", 2}, {"model", 2}});
  Shape g{4, 8, 8};
  std::vector<Layout> layouts = {
      Layout{{{0}, {}, {1}}},   Layout{{{0, 1}, {}, {}}},
      Layout{{{}, {1, 0}, {}}}, Layout{{{}, {}, {0, 1}}},
      Layout{{{1}, {0}, {}}},   Layout::replicated(3)};
  for (DType dt : {DType::F32, DType::F64, DType::I32}) {
    std::size_t es = dtypeSize(dt);
    std::vector<char> whole(numElements(g) * es);
    fillRandomBlock(42, tensorId("x"), dt, g, {0, 0, 0}, g, whole.data(), 50);
    for (const Layout &l : layouts) {
      Shape b = localShape(m, l, g);
      for (int64_t r = 0; r < m.numDevices(); ++r) {
        auto off = blockOffsets(m, l, g, r);
        std::vector<char> blk(numElements(b) * es);
        fillRandomBlock(42, tensorId("x"), dt, g, off, b, blk.data(), 50);
        for (int64_t i = 0; i < b[0]; ++i)
          for (int64_t j = 0; j < b[1]; ++j)
            for (int64_t k = 0; k < b[2]; ++k) {
              int64_t gi =
                  ((off[0] + i) * g[1] + off[1] + j) * g[2] + off[2] + k;
              int64_t li = (i * b[1] + j) * b[2] + k;
              ASSERT_EQ(std::memcmp(&blk[li * es], &whole[gi * es], es), 0)
                  << dtypeName(dt) << " rank " << r;
            }
      }
    }
    // The value at global index i is the scalar generator at i.
    if (dt == DType::F64) {
      EXPECT_EQ(reinterpret_cast<double *>(whole.data())[17],
                randomUniform(42, tensorId("x"), 17));
    }
  }
}

// A padded tensor's blocks draw what the unpadded (logical) tensor draws at
// every position inside it, and zero at the pads; without padding the
// clipped fill is fillRandomBlock.
TEST(Rng, ClippedBlocksDrawTheLogicalValues) {
  Shape logical{5, 3, 7}, padded{8, 4, 8}, b{2, 2, 4};
  for (DType dt : {DType::F32, DType::F64, DType::I32, DType::F16}) {
    std::size_t es = dtypeSize(dt);
    std::vector<char> whole(numElements(logical) * es);
    fillRandomBlock(9, tensorId("w"), dt, logical, {0, 0, 0}, logical,
                    whole.data(), 50);
    std::vector<char> same(whole.size());
    fillRandomBlockClipped(9, tensorId("w"), dt, logical, {0, 0, 0}, logical,
                           same.data(), 50);
    EXPECT_EQ(same, whole) << dtypeName(dt);
    const std::vector<char> zero(es, 0);
    for (int64_t i = 0; i < padded[0]; i += b[0])
      for (int64_t j = 0; j < padded[1]; j += b[1])
        for (int64_t k = 0; k < padded[2]; k += b[2]) {
          std::vector<char> blk(numElements(b) * es, '\x5a');
          fillRandomBlockClipped(9, tensorId("w"), dt, logical, {i, j, k}, b,
                                 blk.data(), 50);
          for (int64_t x = 0; x < b[0]; ++x)
            for (int64_t y = 0; y < b[1]; ++y)
              for (int64_t z = 0; z < b[2]; ++z) {
                int64_t gx = i + x, gy = j + y, gz = k + z;
                bool inside =
                    gx < logical[0] && gy < logical[1] && gz < logical[2];
                int64_t li = (x * b[1] + y) * b[2] + z;
                const char *want =
                    inside ? &whole[((gx * logical[1] + gy) * logical[2] + gz) *
                                    es]
                           : zero.data();
                ASSERT_EQ(std::memcmp(&blk[li * es], want, es), 0)
                    << dtypeName(dt) << " block " << i << "," << j << "," << k;
              }
        }
  }
  std::vector<float> out(4);
  EXPECT_THROW(
      fillRandomBlockClipped(1, 1, DType::F32, {5}, {0, 0}, {4}, out.data()),
      Error);
  EXPECT_THROW(
      fillRandomBlockClipped(1, 1, DType::F32, {5}, {-2}, {4}, out.data()),
      Error);
}

TEST(Rng, HalfConversions) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16ToFloat(0x4049), 3.140625f);
}

} // namespace

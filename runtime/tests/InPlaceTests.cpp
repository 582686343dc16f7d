//===- InPlaceTests.cpp - Elementwise ops written into a dying operand ----===//
//
// gen::map and gen::fusedMap given a Dying mark (the lowering's
// releaseDeadValues) write their result into a marked operand's buffer
// when nothing else holds it and the plan reads it element for element;
// otherwise they allocate, and Backend refuses a result buffer that
// overlaps an operand it reads elsewhere. Results are compared bit for bit
// with the same op into a new buffer.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Error.h"
#include "weft/rt/Program.h"
#include "weft/rt/cpu/CpuBackend.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace weft::rt;

namespace {

Tensor filled(Backend &be, const Shape &shape, float base) {
  Tensor t = be.empty(DType::F32, shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.ptr<float>()[i] = base + 0.25f * static_cast<float>(i % 17);
  return t;
}

bool sameBits(const Tensor &a, const Tensor &b) {
  return a.shape == b.shape && std::memcmp(a.data, b.data, a.bytes()) == 0;
}

struct InPlace : ::testing::Test {
  CpuBackend be{Mesh({{"x", 1}}), 0};
  StepContext ctx{be, {}, 0};
};

TEST_F(InPlace, MapWritesIntoTheDyingOperand) {
  MapPlan plan = planMap("ab,b->ab", {{8, 16}, {16}});
  Tensor a = filled(be, {8, 16}, 1.0f), b = filled(be, {16}, -2.0f);
  Tensor fresh = gen::map(ctx, MapKind::Add, plan, a, b, "fresh");
  const void *buffer = a.data;
  Tensor out = gen::map(ctx, gen::Dying{0b01}, MapKind::Add, plan, a, b, "in");
  EXPECT_EQ(out.data, buffer);
  EXPECT_TRUE(sameBits(out, fresh));
}

TEST_F(InPlace, UnaryMapAndFusedMapInPlaceGiveTheSameBits) {
  Tensor x = filled(be, {4, 33}, 0.5f), y = filled(be, {4, 33}, 3.0f);
  MapPlan exp = planMap("ab->ab", {{4, 33}});
  Tensor fresh = gen::map(ctx, MapKind::Exp, exp, x, 0.0, "fresh");
  const void *buffer = x.data;
  Tensor out = gen::map(ctx, gen::Dying{0b1}, MapKind::Exp, exp, x, 0.0, "in");
  EXPECT_EQ(out.data, buffer);
  EXPECT_TRUE(sameBits(out, fresh));

  FusedMapPlan fused = planFusedMap("ab,ab->ab", {{4, 33}, {4, 33}}, {4, 33},
                                    {{MapKind::Mul, 0, 1, 0.0},
                                     {MapKind::Exp, 2, -1, 0.0},
                                     {MapKind::Sub, 3, 1, 0.0}});
  Tensor fusedFresh = gen::fusedMap(ctx, fused, "fresh", out, y);
  // The second input dies: the result goes into its buffer, although the
  // last step reads it again (each element before it is written).
  const void *yBuffer = y.data;
  Tensor fusedOut = gen::fusedMap(ctx, gen::Dying{0b10}, fused, "in", out, y);
  EXPECT_EQ(fusedOut.data, yBuffer);
  EXPECT_TRUE(sameBits(fusedOut, fusedFresh));
}

TEST_F(InPlace, AnotherHolderKeepsTheBuffer) {
  MapPlan plan = planMap("ab->ab", {{8, 8}});
  Tensor a = filled(be, {8, 8}, 1.0f);
  Tensor held = a; // an input the context keeps, a collective in flight
  Tensor out = gen::map(ctx, gen::Dying{0b1}, MapKind::Neg, plan, a, 0.0, "m");
  EXPECT_NE(out.data, a.data);
  EXPECT_TRUE(sameBits(a, held));
}

TEST_F(InPlace, ATransposedOrBroadcastOperandIsNotReused) {
  // Same shape, read transposed: writing in place would overwrite elements
  // still to be read.
  MapPlan transpose = planMap("ab->ba", {{8, 8}});
  Tensor a = filled(be, {8, 8}, 1.0f);
  Tensor out =
      gen::map(ctx, gen::Dying{0b1}, MapKind::Neg, transpose, a, 0.0, "t");
  EXPECT_NE(out.data, a.data);
  // A broadcast operand is smaller than the result.
  MapPlan bcast = planMap("b,ab->ab", {{8}, {8, 8}});
  Tensor v = filled(be, {8}, 2.0f), m = filled(be, {8, 8}, 0.0f);
  const void *vBuffer = v.data;
  Tensor sum = gen::map(ctx, gen::Dying{0b01}, MapKind::Add, bcast, v, m, "b");
  EXPECT_NE(sum.data, vBuffer);
}

TEST_F(InPlace, AValuePassedTwiceIsReusedOnlyWhenBothReadsAreAligned) {
  MapPlan square = planMap("ab,ab->ab", {{8, 8}, {8, 8}});
  Tensor a = filled(be, {8, 8}, 1.0f);
  Tensor fresh = gen::map(ctx, MapKind::Mul, square, a, a, "fresh");
  const void *buffer = a.data;
  Tensor out =
      gen::map(ctx, gen::Dying{0b11}, MapKind::Mul, square, a, a, "twice");
  EXPECT_EQ(out.data, buffer);
  EXPECT_TRUE(sameBits(out, fresh));
  // a * transpose(a): the second read is not element for element.
  MapPlan skew = planMap("ab,ba->ab", {{8, 8}, {8, 8}});
  Tensor b = filled(be, {8, 8}, 1.0f);
  Tensor skewed =
      gen::map(ctx, gen::Dying{0b11}, MapKind::Mul, skew, b, b, "skew");
  EXPECT_NE(skewed.data, b.data);
}

TEST_F(InPlace, BackendRejectsAResultOverlappingAnOperandReadElsewhere) {
  MapPlan transpose = planMap("ab->ba", {{8, 8}});
  Tensor a = filled(be, {8, 8}, 1.0f);
  Tensor out = a;
  EXPECT_THROW(be.map(MapKind::Neg, transpose, a, nullptr, out, 0.0, "t"),
               Error);
  // Fused rows read a row again after writing it: never in place.
  // x - max(x) over each row.
  FusedRowsPlan centered =
      planFusedRows("ab->ab", "b", {{8, 8}},
                    {{.reduce = true, .reduceKind = ReduceKind::Max, .a = 0},
                     {.kind = MapKind::Sub, .a = 0, .b = 1}});
  EXPECT_THROW(be.fusedRows(centered, {&a}, out, "rows"), Error);
}

} // namespace

//===- MeshTests.cpp - Mesh, layouts, groups and collective plans ---------===//

#include "weft/rt/CollectivePlan.h"
#include "weft/rt/Error.h"
#include "weft/rt/Mesh.h"

#include <gtest/gtest.h>

using namespace weft::rt;

namespace {

Mesh mesh24() { return Mesh({{"data", 2}, {"model", 4}}); }

TEST(Mesh, RowMajorCoordinates) {
  Mesh m = mesh24();
  EXPECT_EQ(m.numDevices(), 8);
  EXPECT_EQ(m.coords(5), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(m.coords(3), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(m.rankOf({1, 2}), 6);
  EXPECT_EQ(m.axisIndex("model"), 1);
  EXPECT_THROW(m.axisIndex("pipe"), Error);
  EXPECT_THROW(m.coords(8), Error);
  EXPECT_THROW(Mesh({{"a", 2}, {"a", 2}}), Error);
  EXPECT_THROW(Mesh({{"a", 0}}), Error);
}

TEST(Mesh, PositionFollowsListedOrder) {
  Mesh m = mesh24();
  // rank 5 = (data 1, model 1)
  EXPECT_EQ(m.positionIn({0, 1}, 5), 1 * 4 + 1);
  EXPECT_EQ(m.positionIn({1, 0}, 5), 1 * 2 + 1);
  EXPECT_EQ(m.positionIn({}, 5), 0);
  EXPECT_THROW(m.positionIn({1, 1}, 5), Error);
}

TEST(Mesh, LocalShapesAndOffsets) {
  Mesh m = mesh24();
  Layout l{{{0, 1}, {}}}; // dim 0 split over data then model
  EXPECT_EQ(localShape(m, l, {8, 6}), (Shape{1, 6}));
  EXPECT_EQ(blockOffsets(m, l, {8, 6}, 5), (std::vector<int64_t>{5, 0}));
  Layout l2{{{1}, {0}}};
  EXPECT_EQ(localShape(m, l2, {8, 6}), (Shape{2, 3}));
  EXPECT_EQ(blockOffsets(m, l2, {8, 6}, 5), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(blockOffsets(m, l2, {8, 6}, 7), (std::vector<int64_t>{6, 3}));
  EXPECT_THROW(localShape(m, Layout{{{1}, {}}}, {6, 6}), Error);  // 6 % 4
  EXPECT_THROW(localShape(m, Layout{{{1}, {1}}}, {8, 8}), Error); // reused
  EXPECT_THROW(localShape(m, Layout{{{1}}}, {8, 8}), Error);      // rank
}

// The part of a padded tensor's block inside its logical extent.
TEST(Mesh, ClipBlock) {
  EXPECT_EQ(clipBlock({10, 64}, {9, 0}, {3, 64}), (Shape{1, 64}));
  EXPECT_EQ(clipBlock({10, 64}, {12, 0}, {3, 64}), (Shape{0, 64}));
  EXPECT_EQ(clipBlock({10, 64}, {3, 0}, {3, 64}), (Shape{3, 64}));
  EXPECT_EQ(clipBlock({5, 3}, {4, 2}, {2, 2}), (Shape{1, 1}));
  EXPECT_EQ(clipBlock({}, {}, {}), Shape{});
  EXPECT_THROW(clipBlock({5}, {0, 0}, {1}), Error);
  EXPECT_THROW(clipBlock({5}, {-1}, {1}), Error);
  EXPECT_THROW(clipBlock({5}, {INT64_MAX}, {2}), Error);
}

TEST(GroupPlan, ColorPositionMembers) {
  Mesh m({{"a", 2}, {"b", 2}, {"c", 2}});
  // rank 6 = (a 1, b 1, c 0); axes [c, a]: position = c*2 + a = 1.
  GroupPlan g = planGroup(m, {2, 0}, 6);
  EXPECT_EQ(g.size, 4);
  EXPECT_EQ(g.position, 1);
  EXPECT_EQ(g.color, 1); // the b coordinate
  EXPECT_EQ(g.members, (std::vector<int64_t>{2, 6, 3, 7}));
  GroupPlan none = planGroup(m, {}, 6);
  EXPECT_EQ(none.size, 1);
  EXPECT_EQ(none.members, (std::vector<int64_t>{6}));
  EXPECT_EQ(none.color, 6);
}

TEST(CollectivePlan, AllGatherNonLeadingDimUnpacks) {
  CollectivePlan p = planAllGather({2, 3}, 1, 4);
  EXPECT_EQ(p.outShape, (Shape{2, 12}));
  EXPECT_EQ(p.chunkElements, 6);
  ASSERT_TRUE(p.unpackOutput);
  std::vector<int> recv(24), out(24, -1);
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        recv[q * 6 + i * 3 + j] = q * 100 + i * 10 + j;
  copyStridedHost(p.unpack, sizeof(int), recv.data(), out.data());
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(out[i * 12 + q * 3 + j], q * 100 + i * 10 + j);
  EXPECT_FALSE(planAllGather({2, 3}, 0, 4).unpackOutput);
  EXPECT_FALSE(planAllGather({1, 3}, 1, 4).unpackOutput);
}

TEST(CollectivePlan, ReduceScatterNonLeadingDimPacks) {
  CollectivePlan p = planReduceScatter({2, 8}, 1, 4);
  EXPECT_EQ(p.outShape, (Shape{2, 2}));
  ASSERT_TRUE(p.packInput);
  std::vector<int> in(16), send(16, -1);
  for (int i = 0; i < 16; ++i)
    in[i] = i;
  copyStridedHost(p.pack, sizeof(int), in.data(), send.data());
  // chunk q = columns [2q, 2q+2) of both rows.
  EXPECT_EQ(send, (std::vector<int>{0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6,
                                    7, 14, 15}));
  EXPECT_THROW(planReduceScatter({2, 6}, 1, 4), Error);
}

TEST(CollectivePlan, AllToAll) {
  CollectivePlan p = planAllToAll({4, 6}, 0, 1, 2);
  EXPECT_FALSE(p.packInput);
  ASSERT_TRUE(p.unpackOutput);
  EXPECT_EQ(p.outShape, (Shape{2, 12}));
  EXPECT_EQ(p.chunkElements, 12);
  CollectivePlan q = planAllToAll({6, 4}, 1, 0, 2);
  EXPECT_TRUE(q.packInput);
  EXPECT_FALSE(q.unpackOutput);
  EXPECT_EQ(q.outShape, (Shape{12, 2}));
}

TEST(CollectivePlan, RingBytes) {
  EXPECT_DOUBLE_EQ(ringBytes(CollectiveKind::AllReduce, 4, 1024), 1536);
  EXPECT_DOUBLE_EQ(ringBytes(CollectiveKind::AllGather, 4, 1024), 768);
  EXPECT_DOUBLE_EQ(ringBytes(CollectiveKind::ReduceScatter, 2, 1024), 512);
  EXPECT_DOUBLE_EQ(ringBytes(CollectiveKind::AllToAll, 4, 1024), 768);
  EXPECT_DOUBLE_EQ(ringBytes(CollectiveKind::AllReduce, 1, 1024), 0);
  // P1: all-reduce of y [4,64,256] f32 over model=4 is 384 KiB.
  EXPECT_DOUBLE_EQ(
      ringBytes(CollectiveKind::AllReduce, 4, 4.0 * 64 * 256 * 4) / 1024, 384);
}

} // namespace

//===- TensorTableTests.cpp - The inputs and outputs as a text table ------===//

#include "weft/rt/Error.h"
#include "weft/rt/TensorTable.h"

#include <gtest/gtest.h>

using namespace weft::rt;

namespace {

ProgramTensor tensor(std::string name, Shape shape, std::vector<AxisList> dims,
                     TensorRole role = TensorRole::Data, int updates = -1) {
  ProgramTensor t;
  t.name = std::move(name);
  t.globalShape = std::move(shape);
  t.layout.dims = std::move(dims);
  t.role = role;
  t.updates = updates;
  return t;
}

void expectSame(const std::vector<ProgramTensor> &a,
                const std::vector<ProgramTensor> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(sameProgramTensor(a[i], b[i]))
        << "row " << i << ": " << a[i].name << " vs " << b[i].name;
}

/// An L-layer training step's signature as weft-optimizer orders it: the
/// data, the parameters, their m and v, step and lr; the loss, then each
/// parameter's new value, m and v (updates: the input it replaces).
std::vector<ProgramTensor> deepInputs(int layers) {
  std::vector<ProgramTensor> in{tensor("x", {16, 32}, {{}, {}})};
  for (int l = 0; l < layers; ++l) {
    in.push_back(tensor("w1_" + std::to_string(l), {32, 64}, {{}, {1}},
                        TensorRole::Param));
    in.push_back(tensor("w2_" + std::to_string(l), {64, 32}, {{1}, {}},
                        TensorRole::Param));
  }
  for (int l = 0; l < layers; ++l)
    for (const char *w : {"w1_", "w2_"})
      for (const char *s : {"m_", "v_"})
        in.push_back(
            tensor(s + std::string(w) + std::to_string(l),
                   std::string(w) == "w1_" ? Shape{32, 64} : Shape{64, 32},
                   std::string(w) == "w1_" ? std::vector<AxisList>{{}, {1}}
                                           : std::vector<AxisList>{{1}, {}},
                   TensorRole::State));
  in.push_back(tensor("step", {}, {}, TensorRole::Step));
  in.push_back(tensor("lr", {}, {}, TensorRole::LearningRate));
  return in;
}

TEST(TensorTable, ReadsHandWrittenRows) {
  auto t = decodeTensorTable("x f32 [16,32] [{},{1}]\n"
                             "\"odd name\" i32 [8] [{0,1}] bound=10\n"
                             "step f32 [] [] role=3\n"
                             "y bf16 [4,6] [{},{}] partial={0} kind=max "
                             "updates=2 micro=1 logical=[3,6]\n");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].name, "x");
  EXPECT_EQ(t[0].dtype, DType::F32);
  EXPECT_EQ(t[0].globalShape, (Shape{16, 32}));
  EXPECT_EQ(t[0].layout.dims, (std::vector<AxisList>{{}, {1}}));
  EXPECT_EQ(t[0].updates, -1);
  EXPECT_EQ(t[1].name, "odd name");
  EXPECT_EQ(t[1].dtype, DType::I32);
  EXPECT_EQ(t[1].layout.dims, (std::vector<AxisList>{{0, 1}}));
  EXPECT_EQ(t[1].intBound, 10);
  EXPECT_EQ(t[2].globalShape, Shape{});
  EXPECT_TRUE(t[2].layout.dims.empty());
  EXPECT_EQ(t[2].role, TensorRole::Step);
  EXPECT_EQ(t[3].dtype, DType::BF16);
  EXPECT_EQ(t[3].partialAxes, AxisList{0});
  EXPECT_EQ(t[3].partialKind, ReduceKind::Max);
  EXPECT_EQ(t[3].updates, 2);
  EXPECT_EQ(t[3].microBatch, 1);
  EXPECT_EQ(t[3].logicalShape, (Shape{3, 6}));
}

TEST(TensorTable, RepeatExpandsCounters) {
  auto t = decodeTensorTable("repeat 3\n"
                             "new_w1_{0,1} f32 [32,64] [{},{1}] updates={2,2}\n"
                             "new_m_w1_{4,2} f32 [32,64] [{},{1}] updates=7\n"
                             "end\n");
  ASSERT_EQ(t.size(), 6u);
  const char *names[] = {"new_w1_0",   "new_m_w1_4", "new_w1_1",
                         "new_m_w1_6", "new_w1_2",   "new_m_w1_8"};
  int updates[] = {2, 7, 4, 7, 6, 7};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(t[i].name, names[i]);
    EXPECT_EQ(t[i].updates, updates[i]);
    EXPECT_EQ(t[i].globalShape, (Shape{32, 64}));
  }
}

TEST(TensorTable, WritesLayersAsOneRepeat) {
  std::vector<ProgramTensor> in{tensor("x", {16, 32}, {{}, {}})};
  for (int l = 0; l < 3; ++l) {
    in.push_back(tensor("w1_" + std::to_string(l), {32, 64}, {{}, {1}},
                        TensorRole::Param));
    in.push_back(tensor("w2_" + std::to_string(l), {64, 32}, {{1}, {}},
                        TensorRole::Param));
  }
  EXPECT_EQ(encodeTensorTable(in), "x f32 [16,32] [{},{}]\n"
                                   "repeat 3\n"
                                   "w1_{0,1} f32 [32,64] [{},{1}] role=1\n"
                                   "w2_{0,1} f32 [64,32] [{1},{}] role=1\n"
                                   "end\n");
}

TEST(TensorTable, SizeDoesNotGrowWithDepth) {
  std::string t4 = encodeTensorTable(deepInputs(4));
  std::string t40 = encodeTensorTable(deepInputs(40));
  // Only the repeat counts differ (4 -> 40: one more digit each).
  EXPECT_LE(t40.size(), t4.size() + 4);
  expectSame(decodeTensorTable(t4), deepInputs(4));
  expectSame(decodeTensorTable(t40), deepInputs(40));
}

TEST(TensorTable, OddNamesRoundTrip) {
  std::vector<ProgramTensor> in{tensor("a b", {2}, {{}}),
                                tensor("{x}", {2}, {{}}),
                                tensor("repeat", {2}, {{}}),
                                tensor("end", {2}, {{}}),
                                tensor("q\"\\\n", {2}, {{}}),
                                tensor("w_09", {2}, {{}}),
                                tensor("w_10", {2}, {{}}),
                                tensor("w_11", {2}, {{}}),
                                tensor("l1_a9", {2}, {{}}),
                                tensor("l2_a9", {2}, {{}}),
                                tensor("same", {2}, {{}}, TensorRole::Data),
                                tensor("same", {2}, {{}}, TensorRole::Data)};
  in.back().microBatch = 1;
  expectSame(decodeTensorTable(encodeTensorTable(in)), in);
}

TEST(TensorTable, MalformedTextNamesTheLine) {
  try {
    decodeTensorTable("x f32 [2] [{}]\ny f99 [2] [{}]\n");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("f99"), std::string::npos);
  }
  EXPECT_THROW(decodeTensorTable("repeat 2\nx f32 [2] [{}]\n"), Error);
  EXPECT_THROW(decodeTensorTable("x f32 [2] [{}] colour=red\n"), Error);
  EXPECT_THROW(decodeTensorTable("x f32 [2,a] [{}]\n"), Error);
}

} // namespace

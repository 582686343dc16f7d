//===- ProfilerTests.cpp - Timers and counters ----------------------------===//

#include "weft/rt/Backend.h"
#include "weft/rt/Profiler.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace weft::rt;

namespace {

TEST(Profiler, AccumulatesPerLabel) {
  Profiler p;
  p.record("y", "einsum", 0.5, 1e9, 0);
  p.record("y", "einsum", 0.5, 1e9, 0);
  p.record("ar", "all_reduce", 0.25, 0, 2048);
  ASSERT_EQ(p.ops().size(), 2u);
  const OpStats *y = p.find("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->calls, 2);
  EXPECT_DOUBLE_EQ(y->seconds, 1.0);
  EXPECT_DOUBLE_EQ(y->flops, 2e9);
  std::ostringstream os;
  p.print(os);
  EXPECT_NE(os.str().find("2.00"), std::string::npos) << os.str(); // GFLOP/s
  EXPECT_NE(os.str().find("2.0"), std::string::npos);              // KiB
}

// The backend records einsum FLOPs and collective ring bytes.
TEST(Profiler, BackendRecordsOps) {
  auto be = createBackend(BackendKind::Cpu, Mesh({{"x", 1}}), 0);
  Profiler p;
  be->setProfiler(&p);
  Tensor a = be->zeros(DType::F32, {8, 16}), b = be->zeros(DType::F32, {16, 4});
  Tensor c = be->empty(DType::F32, {8, 4});
  be->einsum("md,dn->mn", a, &b, c, "mm");
  be->allReduce(c, c, {0}, ReduceKind::Sum, "ar");
  ASSERT_NE(p.find("mm"), nullptr);
  EXPECT_DOUBLE_EQ(p.find("mm")->flops, 2.0 * 8 * 16 * 4);
  ASSERT_NE(p.find("ar"), nullptr);
  EXPECT_DOUBLE_EQ(p.find("ar")->bytesSent, 0); // group of one
  be->map(MapKind::Relu, planMap("mn->mn", {{8, 4}}), c, nullptr, c);
  EXPECT_NE(p.find("map relu mn->mn"), nullptr);
}

} // namespace

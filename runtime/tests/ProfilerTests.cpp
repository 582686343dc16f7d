//===- ProfilerTests.cpp - Timers and counters ----------------------------===//

#include "weft/rt/Backend.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/Trace.h"

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

// With a trace attached, every op the backend times is an event of it,
// in order, each inside the previous one's end and now.
TEST(Trace, BackendOpsBecomeEvents) {
  auto be = createBackend(BackendKind::Cpu, Mesh({{"x", 1}}), 0);
  Profiler p;
  double origin = wallSeconds();
  Trace t(origin);
  p.setTrace(&t);
  be->setProfiler(&p);
  t.setStep(3);
  Tensor a = be->zeros(DType::F32, {8, 16}), b = be->zeros(DType::F32, {16, 4});
  Tensor c = be->empty(DType::F32, {8, 4});
  be->einsum("md,dn->mn", a, &b, c, "mm");
  be->allReduce(c, c, {0}, ReduceKind::Sum, "ar");
  double now = wallSeconds();
  ASSERT_EQ(t.events().size(), 2u);
  const TraceEvent &mm = t.events()[0], &ar = t.events()[1];
  EXPECT_EQ(mm.name, "mm");
  EXPECT_EQ(mm.cat, "einsum");
  EXPECT_EQ(ar.name, "ar");
  EXPECT_EQ(ar.cat, "all_reduce");
  EXPECT_EQ(mm.step, 3);
  double last = origin;
  for (const TraceEvent &e : t.events()) {
    EXPECT_GE(e.begin, last) << e.name;
    EXPECT_LE(e.begin, e.end) << e.name;
    last = e.end;
  }
  EXPECT_LE(last, now);
  // Cleared statistics keep the trace.
  p.clear();
  EXPECT_EQ(t.events().size(), 2u);
  std::string json = t.eventsJson(5);
  EXPECT_NE(json.find("\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 5"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\": \"mm\", \"cat\": \"einsum\", \"ph\": \"X\", "
                      "\"pid\": 5, \"tid\": 0"),
            std::string::npos)
      << json;
}

// The allocator's marks become one counter event per rank, at the end of
// its last event; without setMemory there is none.
TEST(Trace, MemoryIsOneCounterAtTheEnd) {
  Trace t(100.0);
  t.add("mm", "einsum", 100.5, 100.75);
  EXPECT_EQ(t.eventsJson(2).find("\"ph\": \"C\""), std::string::npos);
  t.setMemory(4096, 12288);
  std::string json = t.eventsJson(2);
  EXPECT_NE(json.find("{\"name\": \"memory\", \"cat\": \"memory\", \"ph\": "
                      "\"C\", \"pid\": 2, \"tid\": 0, \"ts\": 750000.000, "
                      "\"args\": {\"live at start\": 4096, \"peak\": 12288}}"),
            std::string::npos)
      << json;
}

TEST(Trace, JsonStringsAreEscaped) {
  EXPECT_EQ(jsonString("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\u000a\\u0001\"");
  EXPECT_EQ(chromeTraceJson({"", "{}", ""}),
            "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n{}\n]}\n");
}

} // namespace

//===- Trace.h - A per-rank timeline in the Chrome trace format -*- C++ -*-===//
//
// `--trace FILE.json` (docs/runtime.md, "Traces"): every op the backend
// times (compute ops, collectives, point-to-point transfers) becomes one
// complete event ("ph": "X") with its begin and end wall time, name, kind
// and bytes; the harness adds one event per step around them and one
// counter with the allocator's high-water mark. Each rank
// keeps its own events; the harness gathers them to rank 0, which writes
// one file with one pid per rank (Perfetto, chrome://tracing).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_TRACE_H
#define WEFT_RT_TRACE_H

#include <cstdint>
#include <string>
#include <vector>

namespace weft::rt {

/// The rows ("threads") of a rank in the trace.
enum class TraceRow : int {
  /// What the rank's program runs: steps, compute ops, blocking
  /// collectives and the waits of asynchronous ones. Events nest: every op
  /// lies inside its step and ops do not overlap.
  Ops = 0,
  /// Asynchronous collectives from their start to their completion
  /// (overlapping the ops row where communication is hidden).
  InFlight = 1,
};

struct TraceEvent {
  std::string name;          // the op's label ("einsum bd,df->bf", "step 3")
  std::string cat;           // its kind ("einsum", "all_reduce", "step", ...)
  double begin = 0, end = 0; // wallSeconds()
  double bytes = 0;          // bytes this rank sends (collectives)
  int64_t step = -1;         // the step it belongs to (-1: none)
  TraceRow row = TraceRow::Ops;
};

/// One rank's events. Not thread safe (the backend's thread records).
class Trace {
public:
  /// `origin`: the wall time that becomes ts = 0 (the harness takes it
  /// right after a world barrier, so the ranks' clocks line up within the
  /// barrier's skew even when they run on different hosts).
  explicit Trace(double origin) : origin_(origin) {}
  void setStep(int64_t step) { step_ = step; }
  int64_t step() const { return step_; }
  void add(std::string name, std::string cat, double begin, double end,
           double bytes = 0, TraceRow row = TraceRow::Ops);
  const std::vector<TraceEvent> &events() const { return events_; }
  /// The allocator's bytes (BufferPool::Stats, the sizes asked for): live
  /// when the traced steps start and the high-water mark over them.
  /// eventsJson writes them as one counter event ("ph": "C", name
  /// "memory") at the end of the rank's last event, so each rank's (each
  /// pipeline stage's) peak is read from the file.
  void setMemory(double liveAtStart, double peak) {
    memStart_ = liveAtStart;
    memPeak_ = peak;
    hasMemory_ = true;
  }
  /// This rank's events (and its process and row names) as Chrome trace
  /// JSON objects separated by ",\n", without the enclosing array: the
  /// pieces rank 0 concatenates.
  std::string eventsJson(int rank) const;

private:
  double origin_;
  int64_t step_ = -1;
  std::vector<TraceEvent> events_;
  double memStart_ = 0, memPeak_ = 0;
  bool hasMemory_ = false;
};

/// The whole file: `{"traceEvents": [...], "displayTimeUnit": "ms"}` from
/// the ranks' eventsJson pieces (empty pieces are skipped).
std::string chromeTraceJson(const std::vector<std::string> &pieces);

/// `s` as a JSON string literal (quotes, backslashes and control
/// characters escaped).
std::string jsonString(const std::string &s);

} // namespace weft::rt

#endif // WEFT_RT_TRACE_H

//===- Profiler.h - Per-op timers and counters ------------------*- C++ -*-===//

#ifndef WEFT_RT_PROFILER_H
#define WEFT_RT_PROFILER_H

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace weft::rt {

class Trace;

/// Whether an op kind is a collective ("all_reduce", ...).
bool isCommKind(const std::string &kind);

struct OpStats {
  std::string label; // e.g. "einsum btd,df->btf" or a compiler-given name
  std::string kind;  // "einsum", "map", "all_reduce", ...
  int64_t calls = 0;
  double seconds = 0;
  double flops = 0;     // floating point operations (einsums)
  double bytesSent = 0; // ring bytes per device (collectives)
};

/// Accumulates OpStats per label in first-seen order. Not thread safe.
class Profiler {
public:
  /// One call of an op that took `seconds` and ended now; with a trace
  /// attached it is also an event of the trace (docs/runtime.md, "Traces").
  void record(const std::string &label, const std::string &kind, double seconds,
              double flops, double bytesSent);
  /// Events of every recorded op go to `t` too (null: none). The trace
  /// outlives clear().
  void setTrace(Trace *t) { trace_ = t; }
  Trace *trace() const { return trace_; }
  /// A collective's communication: `inFlight` seconds from its start to
  /// its completion, `exposed` of which the step waited for (all of it for
  /// a synchronous collective).
  void recordOverlap(double inFlight, double exposed);
  double commSeconds() const { return commSeconds_; }
  double exposedCommSeconds() const { return exposedSeconds_; }
  const std::vector<OpStats> &ops() const { return ops_; }
  const OpStats *find(const std::string &label) const;
  void clear();
  /// Table of calls, time, GFLOP/s and bytes per op, plus totals.
  /// With communication recorded, also the per-step split (over `steps`
  /// steps): compute, communication, and the part of it hidden behind
  /// compute.
  void print(std::ostream &os, const std::string &title = "weft profile",
             int steps = 1) const;

private:
  std::vector<OpStats> ops_;
  std::map<std::string, std::size_t> index_;
  double commSeconds_ = 0, exposedSeconds_ = 0;
  Trace *trace_ = nullptr;
};

/// Monotonic wall clock in seconds.
inline double wallSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace weft::rt

#endif // WEFT_RT_PROFILER_H

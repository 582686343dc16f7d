//===- Profiler.cpp - Per-op timers and counters --------------------------===//

#include "weft/rt/Profiler.h"
#include "weft/rt/Trace.h"

#include <cstdio>
#include <ostream>

namespace weft::rt {

void Profiler::record(const std::string &label, const std::string &kind,
                      double seconds, double flops, double bytesSent) {
  if (trace_) {
    double end = wallSeconds();
    trace_->add(label, kind, end - seconds, end, bytesSent);
  }
  auto [it, inserted] = index_.emplace(label, ops_.size());
  if (inserted) {
    ops_.push_back(OpStats());
    ops_.back().label = label;
    ops_.back().kind = kind;
  }
  OpStats &s = ops_[it->second];
  s.calls += 1;
  s.seconds += seconds;
  s.flops += flops;
  s.bytesSent += bytesSent;
}

bool isCommKind(const std::string &kind) {
  return kind == "all_reduce" || kind == "all_gather" ||
         kind == "reduce_scatter" || kind == "all_to_all" ||
         kind == "broadcast" || kind == "reduce_to" || kind == "gather_to" ||
         kind == "scatter_from" || kind == "collective_permute";
}

void Profiler::recordOverlap(double inFlight, double exposed) {
  commSeconds_ += inFlight > exposed ? inFlight : exposed;
  exposedSeconds_ += exposed;
}

const OpStats *Profiler::find(const std::string &label) const {
  auto it = index_.find(label);
  return it == index_.end() ? nullptr : &ops_[it->second];
}

void Profiler::clear() {
  ops_.clear();
  index_.clear();
  commSeconds_ = exposedSeconds_ = 0;
}

void Profiler::print(std::ostream &os, const std::string &title,
                     int steps) const {
  char line[512];
  os << "== " << title << " ==\n";
  std::snprintf(line, sizeof(line), "%-40s %-14s %7s %11s %10s %12s\n", "op",
                "kind", "calls", "time(ms)", "GFLOP/s", "sent(KiB)");
  os << line;
  double t = 0, f = 0, b = 0;
  for (const auto &s : ops_) {
    double gflops = s.seconds > 0 ? s.flops / s.seconds * 1e-9 : 0;
    std::snprintf(
        line, sizeof(line), "%-40.40s %-14s %7lld %11.3f %10.2f %12.1f\n",
        s.label.c_str(), s.kind.c_str(), static_cast<long long>(s.calls),
        s.seconds * 1e3, gflops, s.bytesSent / 1024.0);
    os << line;
    t += s.seconds;
    f += s.flops;
    b += s.bytesSent;
  }
  std::snprintf(line, sizeof(line), "%-40s %-14s %7s %11.3f %10.2f %12.1f\n",
                "total", "", "", t * 1e3, t > 0 ? f / t * 1e-9 : 0, b / 1024.0);
  os << line;
  if (commSeconds_ > 0) {
    double n = steps > 0 ? steps : 1;
    double hidden = commSeconds_ - exposedSeconds_;
    std::snprintf(line, sizeof(line),
                  "per step: compute %.3f ms, communication %.3f ms, of which "
                  "hidden behind compute %.3f ms (%.1f%%), exposed %.3f ms\n",
                  (t - exposedSeconds_) / n * 1e3, commSeconds_ / n * 1e3,
                  hidden / n * 1e3, 100.0 * hidden / commSeconds_,
                  exposedSeconds_ / n * 1e3);
    os << line;
  }
}

} // namespace weft::rt

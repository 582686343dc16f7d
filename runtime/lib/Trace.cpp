//===- Trace.cpp - A per-rank timeline in the Chrome trace format ---------===//

#include "weft/rt/Trace.h"

#include <cstdio>

namespace weft::rt {

void Trace::add(std::string name, std::string cat, double begin, double end,
                double bytes, TraceRow row) {
  TraceEvent e;
  e.name = std::move(name);
  e.cat = std::move(cat);
  e.begin = begin;
  e.end = end < begin ? begin : end;
  e.bytes = bytes;
  e.step = step_;
  e.row = row;
  events_.push_back(std::move(e));
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string Trace::eventsJson(int rank) const {
  std::string out;
  char buf[1024]; // the metadata below is about 400 characters
  // Metadata: the process is the rank, the rows are named.
  std::snprintf(buf, sizeof(buf),
                "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, "
                "\"tid\": 0, \"args\": {\"name\": \"rank %d\"}},\n"
                "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": "
                "%d, \"tid\": 0, \"args\": {\"sort_index\": %d}},\n"
                "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, "
                "\"tid\": 0, \"args\": {\"name\": \"ops\"}},\n"
                "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, "
                "\"tid\": 1, \"args\": {\"name\": \"collectives in flight\"}}",
                rank, rank, rank, rank, rank, rank);
  out += buf;
  for (const TraceEvent &e : events_) {
    // Microseconds from the origin, to the nanosecond.
    double ts = (e.begin - origin_) * 1e6, dur = (e.end - e.begin) * 1e6;
    out += ",\n{\"name\": " + jsonString(e.name) +
           ", \"cat\": " + jsonString(e.cat);
    std::snprintf(buf, sizeof(buf),
                  ", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                  "\"dur\": %.3f, \"args\": {\"step\": %lld, \"bytes\": %.0f}}",
                  rank, static_cast<int>(e.row), ts, dur,
                  static_cast<long long>(e.step), e.bytes);
    out += buf;
  }
  if (hasMemory_) {
    double last = origin_;
    for (const TraceEvent &e : events_)
      last = e.end > last ? e.end : last;
    std::snprintf(buf, sizeof(buf),
                  ",\n{\"name\": \"memory\", \"cat\": \"memory\", \"ph\": "
                  "\"C\", \"pid\": %d, \"tid\": 0, \"ts\": %.3f, \"args\": "
                  "{\"live at start\": %.0f, \"peak\": %.0f}}",
                  rank, (last - origin_) * 1e6, memStart_, memPeak_);
    out += buf;
  }
  return out;
}

std::string chromeTraceJson(const std::vector<std::string> &pieces) {
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  bool first = true;
  for (const std::string &p : pieces) {
    if (p.empty())
      continue;
    if (!first)
      out += ",\n";
    out += p;
    first = false;
  }
  return out + "\n]}\n";
}

} // namespace weft::rt

//===- BenchUtil.h - Timing helpers of the runtime benchmarks ---*- C++ -*-===//
//
// Shared by the single-process benchmarks (BenchEinsum, BenchFusedRows);
// BenchCollectives times over MPI ranks with its own helper.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_BENCH_RUNTIME_BENCHUTIL_H
#define WEFT_BENCH_RUNTIME_BENCHUTIL_H

#include "weft/rt/Profiler.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace weft::bench {

/// Median times of `f` and `g`, measured alternately so that load from
/// other processes affects both alike.
inline std::pair<double, double> medianSeconds(const std::function<void()> &f,
                                               const std::function<void()> &g,
                                               int reps) {
  f(); // warm up
  g();
  std::vector<double> tf, tg;
  for (int i = 0; i < reps; ++i) {
    double t0 = weft::rt::wallSeconds();
    f();
    double t1 = weft::rt::wallSeconds();
    g();
    double t2 = weft::rt::wallSeconds();
    tf.push_back(t1 - t0);
    tg.push_back(t2 - t1);
  }
  std::sort(tf.begin(), tf.end());
  std::sort(tg.begin(), tg.end());
  return {tf[tf.size() / 2], tg[tg.size() / 2]};
}

} // namespace weft::bench

#endif // WEFT_BENCH_RUNTIME_BENCHUTIL_H

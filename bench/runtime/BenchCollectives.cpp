//===- BenchCollectives.cpp - Runtime collectives vs direct MPI calls -----===//
//
// mpirun -np N: times the runtime's all-reduce, all-gather, reduce-scatter
// and all-to-all over the whole mesh against MPI_Allreduce, MPI_Allgather,
// MPI_Reduce_scatter_block and MPI_Alltoall on MPI_COMM_WORLD with the same
// buffers (median over repetitions, max over ranks). Target ratio <= 1.02.
// The runtime's reduce-scatter is a direct exchange of messages
// (MpiReduceScatter.h), not MPI's collective: its ratio measures that
// choice against Open MPI's default algorithm.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Backend.h"
#include "weft/rt/MpiComm.h"
#include "weft/rt/Profiler.h"

#include <algorithm>
#include <cblas.h>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace weft::rt;

namespace {

/// Max over ranks of one synchronized run of `f`.
double timeOnce(const std::function<void()> &f) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = wallSeconds();
  f();
  double dt = wallSeconds() - t0, mx = 0;
  MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mx;
}

/// Median times of `f` and `g`, measured alternately.
std::pair<double, double> medianSeconds(const std::function<void()> &f,
                                        const std::function<void()> &g,
                                        int reps) {
  timeOnce(f);
  timeOnce(g);
  std::vector<double> tf, tg;
  for (int i = 0; i < reps; ++i) {
    tf.push_back(timeOnce(f));
    tg.push_back(timeOnce(g));
  }
  std::sort(tf.begin(), tf.end());
  std::sort(tg.begin(), tg.end());
  return {tf[tf.size() / 2], tg[tg.size() / 2]};
}

} // namespace

int main(int argc, char **argv) {
  MpiSession mpi(&argc, &argv);
  int p = mpi.size();
  Mesh mesh({{"x", p}});
  auto be = createBackend(BackendKind::Cpu, mesh, mpi.rank());
  // As compiled programs do (Harness.cpp): no timeout on any rank, so the
  // blocking forms call MPI's blocking collectives.
  be->communicator().agreeOnTimeout();
  if (mpi.rank() == 0)
    std::printf("ranks: %d, openblas core: %s, threads: %d\n", p,
                openblas_get_corename(), openblas_get_num_threads());
  if (mpi.rank() == 0)
    std::printf("%-28s %12s %12s %8s\n", "case", "runtime(ms)", "direct(ms)",
                "ratio");
  for (int64_t mib : {1, 4}) {
    const int reps = 101;
    // Times the runtime's form against the direct MPI call and prints a row.
    auto report = [&](const std::string &label,
                      const std::function<void()> &runtime,
                      const std::function<void()> &direct) {
      auto [tr, td] = medianSeconds(runtime, direct, reps);
      if (mpi.rank() == 0)
        std::printf("%-28s %12.3f %12.3f %8.3f\n", label.c_str(), tr * 1e3,
                    td * 1e3, tr / td);
    };
    const std::string size = std::to_string(mib) + " MiB";
    int64_t n = mib * 1024 * 1024 / 4;
    Tensor x = be->zeros(DType::F32, {n}), y = be->empty(DType::F32, {n});
    for (int64_t i = 0; i < n; ++i)
      x.ptr<float>()[i] = static_cast<float>(i % 13);
    report(
        "all_reduce " + size,
        [&] { be->allReduce(x, y, {0}, ReduceKind::Sum); },
        [&] {
          MPI_Allreduce(x.data, y.data, static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                        MPI_COMM_WORLD);
        });
    // all-gather: each rank contributes n/p elements, the result is n.
    int64_t chunk = n / p;
    Tensor s = be->zeros(DType::F32, {chunk, 1});
    Tensor g = be->empty(DType::F32, {chunk * p, 1});
    report(
        "all_gather " + size + " result", [&] { be->allGather(s, g, 0, {0}); },
        [&] {
          MPI_Allgather(s.data, static_cast<int>(chunk), MPI_FLOAT, g.data,
                        static_cast<int>(chunk), MPI_FLOAT, MPI_COMM_WORLD);
        });
    // reduce-scatter: each rank contributes chunk * p elements, keeps chunk
    // summed; all-to-all: chunk * p elements in and out on every rank.
    Tensor xs = be->zeros(DType::F32, {chunk * p, 1});
    for (int64_t i = 0; i < chunk * p; ++i)
      xs.ptr<float>()[i] = static_cast<float>(i % 13);
    Tensor r = be->empty(DType::F32, {chunk, 1});
    report(
        "reduce_scatter " + size + " input",
        [&] { be->reduceScatter(xs, r, 0, {0}, ReduceKind::Sum); },
        [&] {
          MPI_Reduce_scatter_block(xs.data, r.data, static_cast<int>(chunk),
                                   MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        });
    Tensor a = be->empty(DType::F32, {chunk * p, 1});
    report(
        "all_to_all " + size, [&] { be->allToAll(xs, a, 0, 0, {0}); },
        [&] {
          MPI_Alltoall(xs.data, static_cast<int>(chunk), MPI_FLOAT, a.data,
                       static_cast<int>(chunk), MPI_FLOAT, MPI_COMM_WORLD);
        });
  }
  return 0;
}

//===- BenchFusedRows.cpp - Fused row chains: ns per element --------------===//
//
// Times Backend::fusedRows on the row chains of P6 and P9 (softmax over
// rows of 64 at b = 4 and b = 16, RMSNorm over rows of 256), on the b = 16
// softmax under a causal mask and with logits in [-100, 100] (exps and
// quotients below the normal range), and on long rows, and the same chains run
// unfused (one map or reduce per step, the way an unfused program runs them),
// on the CPU backend: median of 41 runs, alternating, in ns per element of the
// chain's input. Checks that both give the same bits first, and names the CPU
// kernel that ran the fused chain (the one-pass softmax or the tile loop). Not
// a test: nothing passes or fails on timing. `--fused-only N` runs the fused
// chains only, N times each (for a profiler).
//
//   OPENBLAS_NUM_THREADS=1 taskset -c 1
//   build/runtime/bench/weft-rt-bench-fused-rows
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Backend.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/Rng.h"
#include "weft/rt/cpu/CpuBackend.h"

#include "BenchUtil.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace weft::rt;

namespace {

struct Case {
  const char *name;
  Shape shape;  // of the input; the row is the last dim
  bool rmsnorm; // else softmax
  // The inputs: uniform in [-spread, spread]; with `causal`, the upper
  // triangle of each square block of rows is -inf (a causal mask).
  float spread = 2.0f;
  bool causal = false;
};

} // namespace

int main(int argc, char **argv) {
  int fusedOnly = 0;
  if (argc == 3 && std::strcmp(argv[1], "--fused-only") == 0)
    fusedOnly = std::max(1, std::atoi(argv[2]));
  auto be = createBackend(BackendKind::Cpu, Mesh({{"x", 1}}), 0);
  const std::vector<Case> cases = {
      {"softmax [4,8,64] x 64 (P6/P9 b=4)", {4, 8, 64, 64}, false},
      {"softmax [16,8,64] x 64 (P9 b=16)", {16, 8, 64, 64}, false},
      {"softmax [16,8,64] x 64 causal", {16, 8, 64, 64}, false, 2.0f, true},
      {"softmax [16,8,64] x 64 in +-100", {16, 8, 64, 64}, false, 100.0f},
      {"softmax [64] x 4096", {64, 4096}, false},
      {"rmsnorm [16,64] x 256 (P9 b=16)", {16, 64, 256}, true},
  };
  std::printf("%-36s %12s %12s %8s  %s\n", "chain", "fused ns/el",
              "unfused ns/el", "ratio", "fused kernel");
  for (const Case &c : cases) {
    const int rank = static_cast<int>(c.shape.size());
    const std::string all = std::string("abcd").substr(0, rank);
    const std::string kept = all.substr(0, rank - 1);
    const std::string row = all.substr(rank - 1);
    Shape keptShape(c.shape.begin(), c.shape.end() - 1);
    int64_t n = 1;
    for (int64_t d : c.shape)
      n *= d;
    Tensor x = be->empty(DType::F32, c.shape);
    {
      Tensor h = hostTensor(DType::F32, c.shape);
      const int64_t len = c.shape.back();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t col = i % len, row = (i / len) % len;
        h.ptr<float>()[i] = c.causal && col > row
                                ? -INFINITY
                                : (static_cast<float>(randomUniform(
                                       7, 1, static_cast<uint64_t>(i))) *
                                       2.0f -
                                   1.0f) *
                                      c.spread;
      }
      x = be->upload(h);
    }
    std::vector<FusedRowStep> steps;
    if (!c.rmsnorm) // max, sub, exp, sum, div
      steps = fusedSoftmaxSteps();
    else // square, sum, scale, shift, rsqrt, mul
      steps = {fusedRowMap(MapKind::Square, 0),
               fusedRowReduce(ReduceKind::Sum, 1),
               fusedRowMap(MapKind::Scale, 2, -1, 1.0 / c.shape.back()),
               fusedRowMap(MapKind::Shift, 3, -1, 1e-5),
               fusedRowMap(MapKind::Rsqrt, 4),
               fusedRowMap(MapKind::Mul, 0, 5)};
    FusedRowsPlan plan = planFusedRows(all + "->" + all, row, {c.shape}, steps);
    Tensor fused = be->empty(DType::F32, c.shape);
    // The unfused chain: value id -> tensor.
    std::vector<Tensor> vals(1 + steps.size());
    std::vector<bool> isFull(1 + steps.size(), true);
    for (std::size_t j = 0; j < steps.size(); ++j) {
      const FusedRowStep &st = steps[j];
      isFull[1 + j] =
          st.reduce ? false : (isFull[st.a] || (st.b >= 0 && isFull[st.b]));
      vals[1 + j] = be->empty(DType::F32, isFull[1 + j] ? c.shape : keptShape);
    }
    auto unfused = [&] {
      vals[0] = x;
      for (std::size_t j = 0; j < steps.size(); ++j) {
        const FusedRowStep &st = steps[j];
        const std::string la = isFull[st.a] ? all : kept;
        const std::string lr = isFull[1 + j] ? all : kept;
        if (st.reduce) {
          be->reduce(st.reduceKind, planReduce(la + "->" + kept, c.shape),
                     vals[st.a], vals[1 + j]);
          continue;
        }
        std::string spec = la;
        std::vector<Shape> shapes{vals[st.a].shape};
        if (st.b >= 0) {
          spec += ',';
          spec += isFull[st.b] ? all : kept;
          shapes.push_back(vals[st.b].shape);
        }
        be->map(st.kind, planMap(spec + "->" + lr, shapes), vals[st.a],
                st.b >= 0 ? &vals[st.b] : nullptr, vals[1 + j], st.scalar);
      }
    };
    auto runFused = [&] { be->fusedRows(plan, {&x}, fused); };
    runFused();
    if (fusedOnly) {
      for (int r = 0; r < fusedOnly; ++r)
        runFused();
      continue;
    }
    unfused();
    Tensor a = be->download(fused), b = be->download(vals.back());
    const bool same =
        std::memcmp(a.data, b.data, static_cast<std::size_t>(n) * 4) == 0;
    auto [tf, tu] = weft::bench::medianSeconds(runFused, unfused, 41);
    const double f = tf / n * 1e9, u = tu / n * 1e9;
    const char *kernel = CpuBackend::runsSoftmaxKernel(plan, DType::F32)
                             ? "one-pass softmax"
                             : "tile loop";
    std::printf("%-36s %12.3f %12.3f %8.3f  %s%s\n", c.name, f, u, f / u,
                kernel, same ? "" : "  BITS DIFFER");
  }
  return 0;
}

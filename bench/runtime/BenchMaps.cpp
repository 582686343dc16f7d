//===- BenchMaps.cpp - ns per element of every map kind on the CPU --------===//
//
// Times Backend::map for every map kind over a contiguous f32 tensor of
// 2^16 elements (L2-resident; unary kinds read one tensor, binary kinds
// two, scale and shift a constant) and prints ns per element, the median
// and the minimum of 15 rounds (the minimum is the steadier on a shared
// machine), for f32 and f64. Arguments are drawn per
// kind from a range where the function is defined and not saturated (log,
// sqrt, rsqrt: [0.01, 100]; the others [-4, 4]). Uses only the CpuBackend
// and Backend API of before issue 32, so the same source builds against an
// older runtime for a before/after comparison (docs/performance.md,
// section 10). Not a test. An optional argument sets log2 of the element
// count (default 16; bench/runtime/jax_maps.py runs it at the sizes it
// times XLA at).
//
//   taskset -c 1 build/runtime/bench/weft-rt-bench-maps [LOG2N]
//
//===----------------------------------------------------------------------===//

#include "weft/rt/ElementPlans.h"
#include "weft/rt/Kinds.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/cpu/CpuBackend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace weft::rt;

namespace {

bool positiveDomain(MapKind k) {
  return k == MapKind::Log || k == MapKind::Sqrt || k == MapKind::Rsqrt;
}

/// Median and minimum over the rounds, ns per element.
struct Ns {
  double median, min;
};

template <typename T>
Ns nsPerElement(Backend &be, MapKind kind, DType dt, int64_t n) {
  Tensor a = be.empty(dt, {n}), b = be.empty(dt, {n}), o = be.empty(dt, {n});
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double u = static_cast<double>(s >> 11) / 9007199254740992.0; // [0, 1)
    double v = positiveDomain(kind) ? 0.01 + u * 99.99 : -4.0 + 8.0 * u;
    a.ptr<T>()[i] = static_cast<T>(v);
    b.ptr<T>()[i] = static_cast<T>(1.0 + u);
  }
  const bool binary = isBinary(kind);
  MapPlan plan =
      binary ? planMap("i,i->i", {{n}, {n}}) : planMap("i->i", {{n}});
  auto once = [&] { be.map(kind, plan, a, binary ? &b : nullptr, o, 0.5); };
  once();
  // Repeat so one round takes about 2 ms.
  double t0 = wallSeconds();
  once();
  double one = std::max(wallSeconds() - t0, 1e-7);
  int reps = std::max(1, static_cast<int>(2e-3 / one));
  std::vector<double> rounds;
  for (int r = 0; r < 15; ++r) {
    double t = wallSeconds();
    for (int i = 0; i < reps; ++i)
      once();
    rounds.push_back((wallSeconds() - t) / reps);
  }
  std::sort(rounds.begin(), rounds.end());
  const double perNs = 1e9 / static_cast<double>(n);
  return {rounds[rounds.size() / 2] * perNs, rounds.front() * perNs};
}

} // namespace

int main(int argc, char **argv) {
  int log2n = 16;
  if (argc > 1) {
    char *end = nullptr;
    long v = std::strtol(argv[1], &end, 10);
    if (argc > 2 || !end || *end || v < 4 || v > 28) {
      std::fprintf(stderr, "usage: weft-rt-bench-maps [LOG2N] (4..28)\n");
      return 2;
    }
    log2n = static_cast<int>(v);
  }
  auto be = std::make_unique<CpuBackend>(Mesh({{"x", 1}}), 0);
  const int64_t n = int64_t(1) << log2n;
  std::printf("ns per element, contiguous, %lld elements, median and min "
              "of 15 rounds\n%-8s %8s %8s %8s %8s\n",
              static_cast<long long>(n), "kind", "f32 med", "f32 min",
              "f64 med", "f64 min");
  for (int k = 0; k < kNumMapKinds; ++k) {
    MapKind kind = static_cast<MapKind>(k);
    Ns f = nsPerElement<float>(*be, kind, DType::F32, n);
    Ns d = nsPerElement<double>(*be, kind, DType::F64, n);
    std::printf("%-8s %8.3f %8.3f %8.3f %8.3f\n", mapKindName(kind), f.median,
                f.min, d.median, d.min);
  }
  return 0;
}

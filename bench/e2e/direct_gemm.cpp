//===- direct_gemm.cpp - The GEMMs of a compiled program, called directly
//--===//
//
// The baseline of bench/e2e: reads the GemmPlans a compiled Weft program
// runs (one per line, extracted by run.py from `weftc --emit=cpp`:
//   label m n k transA transB lda ldb ldc strideA strideB strideC batch
//   [outerBatch outerStrideA outerStrideB outerStrideC]
// ) and times one "step" made only of those cblas_sgemm calls, in program
// order, exactly as the CPU backend issues them (row major, alpha 1, beta 0,
// loops over the outer batch and the batch with the plan's strides). Each GEMM
// has its own A, B and C buffers, allocated and filled once, so no allocation,
// copy, map or reduce is timed. Prints the OpenBLAS core and thread count, the
// median/min/max step time and each GEMM's median.
//
// usage: direct_gemm PLANS.txt [--iters N] [--warmup W]
//
//===----------------------------------------------------------------------===//

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Gemm {
  std::string label;
  long m, n, k;
  int ta, tb;
  long lda, ldb, ldc, sa, sb, sc, batch;
  long outer = 1, osa = 0, osb = 0, osc = 0;
  std::vector<float> A, B, C;
};

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Elements a row-major operand of `rows` x `cols` (stored transposed when
/// `trans`) with leading dimension `ld` spans over `batch` strides and
/// `outer` outer strides.
long span(long rows, long cols, bool trans, long ld, long stride, long batch,
          long outerStride, long outer) {
  long r = trans ? cols : rows;
  return (outer - 1) * outerStride + (batch - 1) * stride + (r - 1) * ld +
         (trans ? rows : cols);
}

void run(Gemm &g) {
  for (long o = 0; o < g.outer; ++o)
    for (long i = 0; i < g.batch; ++i)
      cblas_sgemm(CblasRowMajor, g.ta ? CblasTrans : CblasNoTrans,
                  g.tb ? CblasTrans : CblasNoTrans, (int)g.m, (int)g.n,
                  (int)g.k, 1.0f, g.A.data() + o * g.osa + i * g.sa, (int)g.lda,
                  g.B.data() + o * g.osb + i * g.sb, (int)g.ldb, 0.0f,
                  g.C.data() + o * g.osc + i * g.sc, (int)g.ldc);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PLANS.txt [--iters N] [--warmup W]\n",
                 argv[0]);
    return 2;
  }
  int iters = 50, warmup = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--iters"))
      iters = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--warmup"))
      warmup = std::atoi(argv[i + 1]);
  }
  std::ifstream in(argv[1]);
  std::vector<Gemm> gemms;
  std::string line;
  unsigned seed = 1;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream ls(line);
    Gemm g;
    ls >> g.label >> g.m >> g.n >> g.k >> g.ta >> g.tb >> g.lda >> g.ldb >>
        g.ldc >> g.sa >> g.sb >> g.sc >> g.batch;
    if (!ls) {
      std::fprintf(stderr, "bad plan line: %s\n", line.c_str());
      return 2;
    }
    long outer, osa, osb, osc;
    if (ls >> outer >> osa >> osb >> osc) {
      g.outer = outer;
      g.osa = osa;
      g.osb = osb;
      g.osc = osc;
    }
    g.A.resize(span(g.m, g.k, g.ta, g.lda, g.sa, g.batch, g.osa, g.outer));
    g.B.resize(span(g.k, g.n, g.tb, g.ldb, g.sb, g.batch, g.osb, g.outer));
    g.C.assign(span(g.m, g.n, false, g.ldc, g.sc, g.batch, g.osc, g.outer),
               0.0f);
    for (auto *v : {&g.A, &g.B})
      for (float &x : *v) {
        seed = seed * 1664525u + 1013904223u;
        x = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
      }
    gemms.push_back(std::move(g));
  }
  std::printf("openblas core: %s, threads: %d\n", openblas_get_corename(),
              openblas_get_num_threads());
  for (int i = 0; i < warmup; ++i)
    for (auto &g : gemms)
      run(g);
  std::vector<double> steps;
  std::vector<std::vector<double>> per(gemms.size());
  for (int i = 0; i < iters; ++i) {
    double t0 = now();
    for (std::size_t j = 0; j < gemms.size(); ++j) {
      double a = now();
      run(gemms[j]);
      per[j].push_back(now() - a);
    }
    steps.push_back(now() - t0);
  }
  double flops = 0;
  for (std::size_t j = 0; j < gemms.size(); ++j) {
    const Gemm &g = gemms[j];
    double f = 2.0 * g.m * g.n * g.k * g.batch * g.outer;
    flops += f;
    std::printf("gemm %s m=%ld n=%ld k=%ld batch=%ld outer=%ld: median %.4f "
                "ms\n",
                g.label.c_str(), g.m, g.n, g.k, g.batch, g.outer,
                median(per[j]) * 1e3);
  }
  std::sort(steps.begin(), steps.end());
  std::printf("gemm flops: %.0f\n", flops);
  std::printf("step time: median %.4f ms, min %.4f ms, max %.4f ms over %d "
              "iteration(s) (%d warmup)\n",
              steps[steps.size() / 2] * 1e3, steps.front() * 1e3,
              steps.back() * 1e3, iters, warmup);
  return 0;
}

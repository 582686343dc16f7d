//===- CpuGemm.cpp - GemmPlan on oneDNN's matmul or OpenBLAS --------------===//
//
// f32: batches of small matrices on weft's own AVX-512 kernel
// (SmallGemm.h); the others on oneDNN's matmul (when the build has it and
// $WEFT_CPU_GEMM does not say openblas), one primitive per distinct plan,
// created on first use and cached by the backend; a plan oneDNN runs only with
// its reference kernel goes to OpenBLAS instead, and so does one on which
// oneDNN's AVX2 GEMM stalls (cpu::f32GemmAvoidsOneDnn). f64: cblas_dgemm, or
// the blocked AVX-512 kernel where OpenBLAS's kernels are below the CPU
// (BlockedDgemm.h, cpu::f64Blocked). docs/runtime.md, "GEMM library", has the
// measurements behind the choice.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/cpu/CpuGemmInfo.h"

#include "BlockedDgemm.h"
#include "CpuHalf.h"
#include "OneDnnGemm.h"
#include "SmallGemm.h"
#include "weft/rt/Error.h"

#include <cblas.h>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

namespace weft::rt {

namespace {

/// Every field of a GemmPlan, ordered: the cache key.
auto keyOf(const GemmPlan &p) {
  return std::make_tuple(p.m, p.n, p.k, p.transA, p.transB, p.lda, p.ldb, p.ldc,
                         p.strideA, p.strideB, p.strideC, p.batch, p.outerBatch,
                         p.outerStrideA, p.outerStrideB, p.outerStrideC);
}
using GemmKey = decltype(keyOf(GemmPlan()));

int asInt(int64_t v, const char *what) {
  check(v >= 0 && v <= INT_MAX, "gemm ", what, " = ", v,
        " does not fit the BLAS integer type");
  return static_cast<int>(v);
}

/// The plan on cblas_sgemm / cblas_dgemm, one call per matrix: outer
/// batch, then inner strided batch.
template <typename T>
void blasGemm(const GemmPlan &p, const T *a, const T *b, T *c) {
  int m = asInt(p.m, "m"), n = asInt(p.n, "n"), k = asInt(p.k, "k");
  int lda = asInt(p.lda, "lda"), ldb = asInt(p.ldb, "ldb"),
      ldc = asInt(p.ldc, "ldc");
  CBLAS_TRANSPOSE ta = p.transA ? CblasTrans : CblasNoTrans;
  CBLAS_TRANSPOSE tb = p.transB ? CblasTrans : CblasNoTrans;
  for (int64_t o = 0; o < p.outerBatch; ++o)
    for (int64_t i = 0; i < p.batch; ++i) {
      const T *A = a + o * p.outerStrideA + i * p.strideA;
      const T *B = b + o * p.outerStrideB + i * p.strideB;
      T *C = c + o * p.outerStrideC + i * p.strideC;
      if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f,
                    C, ldc);
      else
        cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, A, lda, B, ldb, 0.0, C,
                    ldc);
    }
}

} // namespace

/// The oneDNN primitives of the plans this backend has run (nullptr: the
/// plan runs on OpenBLAS).
struct CpuBackend::GemmCache {
  std::map<GemmKey, std::unique_ptr<onednn::Matmul>> plans;
  std::map<GemmKey, std::unique_ptr<onednn::Matmul>> bf16Plans;
  std::map<std::pair<GemmKey, decltype(GemmEpilogue().key())>,
           std::unique_ptr<onednn::Matmul>>
      withEpilogue;
  bool warnedFallback = false;
};

void CpuBackend::gemm(const GemmPlan &p, DType dtype, const void *a,
                      const void *b, void *c) {
  switch (dtype) {
  case DType::F32: {
    const bool oneDnn = cpu::f32GemmLibrary() == cpu::GemmLibrary::OneDnn;
    if (oneDnn && cpu::smallGemmTakes(p)) {
      cpu::smallGemm(p, static_cast<const float *>(a),
                     static_cast<const float *>(b), static_cast<float *>(c));
      return;
    }
    if (oneDnn && !cpu::f32GemmAvoidsOneDnn(p)) {
      if (!gemms_)
        gemms_ = std::make_shared<GemmCache>();
      auto key = keyOf(p);
      auto it = gemms_->plans.find(key);
      if (it == gemms_->plans.end()) {
        std::string whyNot;
        auto mm = onednn::Matmul::create(p, whyNot);
        // A plan oneDNN would run with its reference kernel runs on
        // OpenBLAS; said once when OpenBLAS's kernels are below the CPU's.
        if (!mm && !gemms_->warnedFallback && rank() == 0 && p.m > 0 &&
            p.n > 0 && p.k > 0 &&
            cpu::openblasCoreLevel(cpu::openblasCoreName()) <
                cpu::cpuSimdLevel()) {
          gemms_->warnedFallback = true;
          std::fprintf(stderr,
                       "weft: cpu gemm: a GEMM (%s) runs on OpenBLAS core %s, "
                       "below this CPU's %s: %s\n",
                       p.str().c_str(), cpu::openblasCoreName().c_str(),
                       cpu::simdLevelName(cpu::cpuSimdLevel()), whyNot.c_str());
        }
        it = gemms_->plans.emplace(key, std::move(mm)).first;
      }
      if (it->second) {
        onednn::setThreads(cpu::gemmThreads());
        it->second->run(static_cast<const float *>(a),
                        static_cast<const float *>(b), static_cast<float *>(c));
        return;
      }
    }
    blasGemm(p, static_cast<const float *>(a), static_cast<const float *>(b),
             static_cast<float *>(c));
    return;
  }
  case DType::F64:
    if (cpu::f64Blocked()) {
      const double *A = static_cast<const double *>(a);
      const double *B = static_cast<const double *>(b);
      double *C = static_cast<double *>(c);
      for (int64_t o = 0; o < p.outerBatch; ++o)
        for (int64_t i = 0; i < p.batch; ++i)
          cpu::blockedDgemm(p.m, p.n, p.k, p.transA, p.transB,
                            A + o * p.outerStrideA + i * p.strideA, p.lda,
                            B + o * p.outerStrideB + i * p.strideB, p.ldb,
                            C + o * p.outerStrideC + i * p.strideC, p.ldc);
      return;
    }
    blasGemm(p, static_cast<const double *>(a), static_cast<const double *>(b),
             static_cast<double *>(c));
    return;
  case DType::BF16:
    if (cpu::bf16GemmMode() == cpu::Bf16Gemm::OneDnn) {
      if (!gemms_)
        gemms_ = std::make_shared<GemmCache>();
      auto key = keyOf(p);
      auto it = gemms_->bf16Plans.find(key);
      if (it == gemms_->bf16Plans.end()) {
        std::string whyNot;
        it = gemms_->bf16Plans
                 .emplace(key, onednn::Matmul::createBf16(p, whyNot))
                 .first;
      }
      if (it->second) {
        onednn::setThreads(cpu::gemmThreads());
        it->second->runRaw(a, b, c);
        return;
      }
    }
    [[fallthrough]]; // a layout oneDNN refuses in bf16: through f32
  case DType::F16:
    return gemmViaF32(p, dtype, a, b, c);
  default:
    fail("einsum of ", dtypeName(dtype),
         " is not supported on the cpu backend (f32, f64, f16, bf16)");
  }
}

void CpuBackend::gemmViaF32(const GemmPlan &p, DType dtype, const void *a,
                            const void *b, void *c) {
  // The span each operand's plan touches: its last element's offset + 1.
  auto span = [&](int64_t rows, int64_t cols, bool trans, int64_t ld,
                  int64_t stride, int64_t outerStride) {
    if (rows == 0 || cols == 0 || p.batch == 0 || p.outerBatch == 0)
      return int64_t(0);
    int64_t last =
        trans ? (cols - 1) * ld + (rows - 1) : (rows - 1) * ld + cols - 1;
    return last + (p.batch - 1) * stride + (p.outerBatch - 1) * outerStride + 1;
  };
  auto A = cpu::widened(
      dtype, a, span(p.m, p.k, p.transA, p.lda, p.strideA, p.outerStrideA));
  auto B = cpu::widened(
      dtype, b, span(p.k, p.n, p.transB, p.ldb, p.strideB, p.outerStrideB));
  const int64_t nc = span(p.m, p.n, false, p.ldc, p.strideC, p.outerStrideC);
  // C may have gaps between rows (ldc > n) that the GEMM leaves alone.
  auto C = cpu::widened(dtype, c, nc);
  gemm(p, DType::F32, A.data(), B.data(), C.data());
  cpu::narrowFromF32(dtype, C.data(), c, nc);
}

void CpuBackend::gemmWithEpilogue(const GemmPlan &p, const GemmEpilogue &epi,
                                  const float *a, const float *b, float *c,
                                  const float *bias) {
  check(onednn::available(), "gemmWithEpilogue needs oneDNN, and this build "
                             "has none (install libdnnl-dev and reconfigure)");
  check(epi.bias == GemmEpilogue::Bias::None || bias != nullptr,
        "gemmWithEpilogue: the epilogue has a bias, but none was given");
  std::string whyNot;
  onednn::Matmul *mm = epilogueMatmul(p, epi, whyNot);
  check(mm != nullptr, "gemmWithEpilogue: ", p.str(), ": ", whyNot);
  onednn::setThreads(cpu::gemmThreads());
  mm->run(a, b, c, bias);
}

onednn::Matmul *CpuBackend::epilogueMatmul(const GemmPlan &p,
                                           const GemmEpilogue &epi,
                                           std::string &whyNot) {
  if (!gemms_)
    gemms_ = std::make_shared<GemmCache>();
  auto key = std::make_pair(keyOf(p), epi.key());
  auto it = gemms_->withEpilogue.find(key);
  if (it == gemms_->withEpilogue.end()) {
    auto mm = onednn::Matmul::create(p, epi, whyNot);
    it = gemms_->withEpilogue.emplace(key, std::move(mm)).first;
  } else if (!it->second) {
    whyNot = "oneDNN has no kernel but its reference one for this epilogue";
  }
  return it->second.get();
}

namespace {
/// The letters of operand `k` and of the result of a map spec "a,b->r".
std::pair<std::string, std::string> specLetters(const std::string &spec,
                                                std::size_t k) {
  std::size_t arrow = spec.find("->");
  std::string ins = spec.substr(0, arrow), result = spec.substr(arrow + 2);
  std::size_t start = 0;
  for (std::size_t i = 0; i < k; ++i)
    start = ins.find(',', start) + 1;
  std::size_t end = ins.find(',', start);
  return {ins.substr(start, end == std::string::npos ? end : end - start),
          result};
}

std::optional<GemmEpilogue::Act> actOf(MapKind k) {
  switch (k) {
  case MapKind::Relu:
    return GemmEpilogue::Act::Relu;
  case MapKind::Gelu:
    return GemmEpilogue::Act::Gelu;
  case MapKind::Tanh:
    return GemmEpilogue::Act::Tanh;
  case MapKind::Silu:
    return GemmEpilogue::Act::Silu;
  case MapKind::Sigmoid:
    return GemmEpilogue::Act::Sigmoid;
  default:
    return std::nullopt;
  }
}
} // namespace

bool CpuBackend::fusedGemmKernel(const GemmPlan &p, DType dtype,
                                 const FusedMapPlan &e, const void *a,
                                 const void *b,
                                 const std::vector<const void *> &extras,
                                 void *c) {
  if (dtype != DType::F32 ||
      cpu::f32GemmLibrary() != cpu::GemmLibrary::OneDnn ||
      cpu::f32GemmAvoidsOneDnn(p) || extras.size() + 1 != e.inShapes.size())
    return false;
  // The chain, stage by stage, in the order oneDNN applies them.
  GemmEpilogue epi;
  const int inputs = static_cast<int>(e.inShapes.size());
  const float *bias = nullptr, *residual = nullptr;
  int cur = 0, stage = 0; // 0 bias, 1 activation, 2 scale, 3 residual
  for (std::size_t j = 0; j < e.steps.size(); ++j) {
    const FusedStep &st = e.steps[j];
    if (st.kind == MapKind::Add) {
      int other = st.a == cur ? st.b : (st.b == cur ? st.a : -1);
      if (other < 1 || other >= inputs)
        return false;
      auto [letters, result] = specLetters(e.spec, other);
      const float *data = static_cast<const float *>(extras[other - 1]);
      if (stage <= 0 && letters.size() == 1 && !result.empty() &&
          letters.back() == result.back() && e.inShapes[other].size() == 1 &&
          e.inShapes[other][0] == p.n) {
        epi.bias = GemmEpilogue::Bias::PerColumn;
        bias = data;
        stage = 1;
      } else if (stage <= 3 && letters == result && !residual) {
        epi.accumulate = true;
        residual = data;
        stage = 4;
      } else {
        return false;
      }
    } else if (auto act = actOf(st.kind); act && stage <= 1 && st.a == cur) {
      epi.act = *act;
      stage = 2;
    } else if (st.kind == MapKind::Scale && stage <= 2 && st.a == cur) {
      epi.scale = static_cast<float>(st.scalar);
      stage = 3;
    } else {
      return false;
    }
    cur = inputs + static_cast<int>(j);
  }
  if (epi.empty())
    return false;
  // Only where oneDNN has a kernel for it: oneDNN 2.6's AVX2 GEMM takes a
  // sum only as the first post-op, so an activation or scale and then a
  // residual runs apart there (docs/runtime.md, "AVX2 CPUs").
  std::string whyNot;
  if (!epilogueMatmul(p, epi, whyNot))
    return false;
  // oneDNN sums into what C holds: the residual, copied in first (the
  // result is dense, as the residual is).
  if (residual) {
    int64_t n = 1;
    for (int64_t d : e.outShape)
      n *= d;
    std::memcpy(c, residual, static_cast<std::size_t>(n) * sizeof(float));
  }
  gemmWithEpilogue(p, epi, static_cast<const float *>(a),
                   static_cast<const float *>(b), static_cast<float *>(c),
                   bias);
  return true;
}

std::string CpuBackend::startBanner() const { return cpu::gemmBanner(); }

std::string CpuBackend::gemmImpl(const GemmPlan &p) {
  if (cpu::f32GemmLibrary() != cpu::GemmLibrary::OneDnn)
    return "openblas";
  if (cpu::smallGemmTakes(p))
    return std::string("weft small-matrix ") + cpu::smallGemmIsaName();
  if (cpu::f32GemmAvoidsOneDnn(p))
    return "openblas (oneDNN's AVX2 no-copy kernel stalls on this plan)";
  std::string whyNot;
  auto mm = onednn::Matmul::create(p, whyNot);
  if (!mm)
    return "openblas (" + whyNot + ")";
  return "onednn " + mm->impl() + (mm->batched() ? "" : " per matrix");
}

} // namespace weft::rt

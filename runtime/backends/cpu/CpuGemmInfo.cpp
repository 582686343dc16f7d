//===- CpuGemmInfo.cpp - Which GEMM library and ISA the CPU backend runs --===//

#include "weft/rt/cpu/CpuGemmInfo.h"

#include "BatchPack.h"
#include "BlockedDgemm.h"
#include "OneDnnGemm.h"
#include "SmallGemm.h"
#include "weft/rt/Config.h"
#include "weft/rt/Error.h"

#include <algorithm>
#include <cblas.h>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace weft::rt::cpu {

const char *simdLevelName(SimdLevel level) {
  switch (level) {
  case SimdLevel::Sse2:
    return "SSE2";
  case SimdLevel::Sse3:
    return "SSE3";
  case SimdLevel::Avx:
    return "AVX";
  case SimdLevel::Avx2:
    return "AVX2";
  case SimdLevel::Avx512:
    return "AVX-512";
  case SimdLevel::Unknown:
    break;
  }
  return "unknown";
}

SimdLevel cpuSimdLevel() {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    return SimdLevel::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return SimdLevel::Avx2;
  if (__builtin_cpu_supports("avx"))
    return SimdLevel::Avx;
  if (__builtin_cpu_supports("sse3"))
    return SimdLevel::Sse3;
  return SimdLevel::Sse2;
#else
  return SimdLevel::Unknown;
#endif
}

SimdLevel openblasCoreLevel(const std::string &core) {
  std::string c;
  for (char ch : core)
    c += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  // OpenBLAS 0.3.x's x86-64 DYNAMIC_ARCH cores (driver/others/dynamic.c),
  // by the kernels each runs.
  static const std::pair<const char *, SimdLevel> table[] = {
      {"skylakex", SimdLevel::Avx512},
      {"cooperlake", SimdLevel::Avx512},
      {"sapphirerapids", SimdLevel::Avx512},
      {"haswell", SimdLevel::Avx2},
      {"zen", SimdLevel::Avx2},
      {"sandybridge", SimdLevel::Avx},
      {"bulldozer", SimdLevel::Avx},
      {"piledriver", SimdLevel::Avx},
      {"steamroller", SimdLevel::Avx},
      {"excavator", SimdLevel::Avx},
      {"prescott", SimdLevel::Sse3},
      {"core2", SimdLevel::Sse3},
      {"penryn", SimdLevel::Sse3},
      {"dunnington", SimdLevel::Sse3},
      {"nehalem", SimdLevel::Sse3},
      {"atom", SimdLevel::Sse3},
      {"nano", SimdLevel::Sse3},
      {"barcelona", SimdLevel::Sse3},
      {"opteron", SimdLevel::Sse2},
      {"katmai", SimdLevel::Sse2},
      {"northwood", SimdLevel::Sse2},
  };
  for (const auto &[name, level] : table)
    if (c.rfind(name, 0) == 0)
      return level;
  return SimdLevel::Unknown;
}

std::string openblasCoreName() {
  const char *n = openblas_get_corename();
  return n ? n : "unknown";
}

std::string openblasVersion() {
  std::string cfg = openblas_get_config() ? openblas_get_config() : "";
  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...": the first two words.
  std::istringstream is(cfg);
  std::string name, ver;
  is >> name >> ver;
  return ver.empty() ? "OpenBLAS" : name + " " + ver;
}

const char *gemmLibraryName(GemmLibrary lib) {
  return lib == GemmLibrary::OneDnn ? "oneDNN" : "OpenBLAS";
}

static GemmLibrary readLibrary() {
  const char *env = std::getenv("WEFT_CPU_GEMM");
  std::string v = env ? env : "";
  if (v.empty())
    return onednn::available() ? GemmLibrary::OneDnn : GemmLibrary::OpenBlas;
  if (v == "openblas")
    return GemmLibrary::OpenBlas;
  check(v == "onednn", "WEFT_CPU_GEMM='", v,
        "': expected 'onednn' or 'openblas'");
  check(onednn::available(),
        "WEFT_CPU_GEMM=onednn, but this build has no oneDNN (install "
        "libdnnl-dev and reconfigure)");
  return GemmLibrary::OneDnn;
}

GemmLibrary f32GemmLibrary() {
  static const GemmLibrary lib = readLibrary();
  return lib;
}

bool oneDnnNoCopyStalls(int64_t m, int64_t n, bool transA, int64_t lda,
                        bool transB, int64_t ldb) {
  auto rows2KiB = [](int64_t ld) { return ld > 0 && ld % 512 == 0; };
  return m > 0 && n > 0 &&
         ((!transB && rows2KiB(ldb)) || (transA && rows2KiB(lda))) &&
         1.0 / static_cast<double>(m) + 1.0 / static_cast<double>(n) >= 0.0038;
}

/// Whether f32GemmAvoidsOneDnn's rule applies on this CPU, read once.
static bool noCopyRuleApplies() {
  static const bool applies = [] {
    const char *env = std::getenv("WEFT_CPU_GEMM");
    if ((env && *env) || f32GemmLibrary() != GemmLibrary::OneDnn)
      return false;
    const std::string isa = onednn::isa();
    const SimdLevel cpu = cpuSimdLevel();
    return isa.rfind("avx512", 0) != 0 && isa.rfind("amx", 0) != 0 &&
           cpu != SimdLevel::Unknown &&
           openblasCoreLevel(openblasCoreName()) >= cpu;
  }();
  return applies;
}

bool f32GemmAvoidsOneDnn(const GemmPlan &p) {
  return noCopyRuleApplies() &&
         oneDnnNoCopyStalls(p.m, p.n, p.transA, p.lda, p.transB, p.ldb);
}

bool f64Blocked() {
  static const bool blocked = [] {
    const char *env = std::getenv("WEFT_CPU_GEMM");
    if (env && std::string(env) == "openblas")
      return false;
    const SimdLevel blas = openblasCoreLevel(openblasCoreName());
    return blockedDgemmAvailable() && blas != SimdLevel::Unknown &&
           blas < SimdLevel::Avx512;
  }();
  return blocked;
}

static int readThreads() {
  const char *env = std::getenv("WEFT_CPU_THREADS");
  if (!env || !*env)
    return 1;
  char *end = nullptr;
  long n = std::strtol(env, &end, 10);
  check(end && *end == 0 && n >= 1 && n <= 4096, "WEFT_CPU_THREADS='", env,
        "': expected a thread count >= 1");
  return static_cast<int>(n);
}

int gemmThreads() {
  static const int n = readThreads();
  return n;
}

int64_t cpuL2Bytes() {
  static const int64_t bytes = [] {
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<int64_t>(l2) : int64_t(1) << 20;
  }();
  return bytes;
}

bool cpuHasBf16() {
  const std::string isa = onednn::isa();
  return isa == "avx512_core_bf16" || isa == "avx512_core_amx";
}

static Bf16Gemm readBf16Mode() {
  const char *env = std::getenv("WEFT_CPU_BF16_GEMM");
  std::string v = env ? env : "";
  if (v.empty())
    return onednn::available() && cpuHasBf16() ? Bf16Gemm::OneDnn
                                               : Bf16Gemm::ViaF32;
  if (v == "f32")
    return Bf16Gemm::ViaF32;
  check(v == "onednn", "WEFT_CPU_BF16_GEMM='", v,
        "': expected 'onednn' or 'f32'");
  check(onednn::available(),
        "WEFT_CPU_BF16_GEMM=onednn, but this build has no oneDNN (install "
        "libdnnl-dev and reconfigure)");
  return Bf16Gemm::OneDnn;
}

Bf16Gemm bf16GemmMode() {
  static const Bf16Gemm mode = readBf16Mode();
  return mode;
}

std::string gemmBanner() {
  // $WEFT_CPU_PACK_BATCHES is read at each oneDNN plan's creation; read it
  // here too, in any build, so that a bad value is an error before the
  // first step, as a bad $WEFT_CPU_GEMM is (the harness calls this on
  // every rank).
  (void)packL2Bytes();
  (void)smallGemmMode();
  const SimdLevel cpu = cpuSimdLevel();
  const std::string core = openblasCoreName();
  const SimdLevel blas = openblasCoreLevel(core);
  std::ostringstream os;
  os << "weft: cpu gemm: ";
  std::string blasDesc = openblasVersion() + " core " + core + " (" +
                         simdLevelName(blas) + " kernels";
  const bool blasBelow =
      blas != SimdLevel::Unknown && cpu != SimdLevel::Unknown && blas < cpu;
  if (blasBelow)
    blasDesc += std::string(", BELOW this CPU's ") + simdLevelName(cpu) +
                ": this OpenBLAS does not know the CPU";
  blasDesc += ")";
  const std::string f64Desc = f64Blocked() ? "weft's blocked AVX-512 kernel (" +
                                                 openblasVersion() +
                                                 " would run core " + core + ")"
                                           : blasDesc;
  if (f32GemmLibrary() == GemmLibrary::OneDnn) {
    os << "f32 on " << onednn::version() << " matmul (ISA " << onednn::isa()
       << ", " << gemmThreads() << " thread" << (gemmThreads() == 1 ? "" : "s")
       << " per rank)";
    if (smallGemmEnabled())
      os << ", batches of small matrices on weft's " << smallGemmIsaName()
         << " kernel";
    if (noCopyRuleApplies())
      os << ", plans that stall oneDNN's AVX2 no-copy kernel on " << blasDesc;
    os << ", f64 on " << f64Desc;
  } else {
    os << "f32 on " << blasDesc << ", f64 on " << f64Desc;
    if (!onednn::available())
      os << "; this build has no oneDNN";
    else
      os << "; WEFT_CPU_GEMM=openblas";
  }
  if (bf16GemmMode() == Bf16Gemm::OneDnn)
    os << "; bf16 on oneDNN bf16 matmul (f32 accumulation"
       << (cpuHasBf16() ? "" : ", EMULATED: this CPU has no AVX512_BF16")
       << ")";
  else
    os << "; bf16 widened to f32 for the f32 GEMM ("
       << (!onednn::available() ? "this build has no oneDNN"
           : cpuHasBf16()       ? "WEFT_CPU_BF16_GEMM=f32"
                                : "this CPU has no AVX512_BF16")
       << ")";
  os << "; cpu " << simdLevelName(cpu);
  // The element math (ElementOps.h's ffma): whether its polynomials use
  // fused multiply-adds, and whether this CPU runs them as instructions.
#if WEFT_RT_FMA
  if (__builtin_cpu_supports("fma"))
    os << "; element math with FMA";
  else
    os << "; element math with FMA through libm's fmaf, one call per step: "
          "this CPU has no FMA (a build with -DWEFT_RUNTIME_FMA=OFF runs "
          "vectorized here)";
#else
  os << "; element math without FMA (WEFT_RUNTIME_FMA)";
#endif
  return os.str();
}

} // namespace weft::rt::cpu

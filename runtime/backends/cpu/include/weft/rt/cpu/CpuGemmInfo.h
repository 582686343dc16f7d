//===- CpuGemmInfo.h - Which GEMM library and ISA the CPU backend runs -*-===//
//
// The CPU backend's f32 GEMMs run on oneDNN's matmul when the build has it,
// else on OpenBLAS; f64 GEMMs on OpenBLAS (oneDNN 2.6 has no f64), or on
// a blocked AVX-512 kernel of our own where OpenBLAS's kernels are below an
// AVX-512 CPU (BlockedDgemm.h).
// Every program states the choice at start (rank 0, one line on stderr),
// including a BLAS whose kernels are below the CPU's instruction set:
// Debian's OpenBLAS 0.3.21 runs its Prescott (SSE3) kernels on CPUs newer
// than it knows (docs/runtime.md, "GEMM library").
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_CPUGEMMINFO_H
#define WEFT_RT_CPU_CPUGEMMINFO_H

#include "weft/rt/EinsumPlan.h"

#include <cstdint>
#include <string>

namespace weft::rt::cpu {

/// x86 vector instruction levels, in order (Unknown: not x86, or a core
/// name this table does not know).
enum class SimdLevel { Unknown, Sse2, Sse3, Avx, Avx2, Avx512 };
const char *simdLevelName(SimdLevel level);
/// The CPU's level, from cpuid (__builtin_cpu_supports).
SimdLevel cpuSimdLevel();
/// The level of the kernels OpenBLAS runs for a core name as
/// openblas_get_corename() returns it ("Prescott" -> Sse3, "Haswell" ->
/// Avx2, "SkylakeX" -> Avx512); Unknown for names not in the table.
SimdLevel openblasCoreLevel(const std::string &core);
/// openblas_get_corename() of the linked OpenBLAS.
std::string openblasCoreName();
/// "OpenBLAS 0.3.21" (from openblas_get_config()).
std::string openblasVersion();

enum class GemmLibrary { OneDnn, OpenBlas };
const char *gemmLibraryName(GemmLibrary lib);
/// The library of f32 GEMMs: $WEFT_CPU_GEMM=onednn|openblas when set (an
/// error for another value, or for onednn in a build without it), else
/// oneDNN when the build has it, else OpenBLAS. Read once.
GemmLibrary f32GemmLibrary();
/// oneDNN 2.6's f32 GEMM on a CPU without AVX-512 (its matmul's "gemm:jit")
/// takes its no-copy kernel, which reads its operands in place, where 1/m +
/// 1/n >= 0.0038 (gemm_driver.cpp, nocopy_checker_avx2; its m and n are
/// ours swapped, the test is symmetric). That kernel ran at about half
/// OpenBLAS's rate on an AMD EPYC (Zen 3; docs/runtime.md, "AVX2 CPUs")
/// where an operand it reads across rows has its rows a multiple of 2 KiB
/// (512 floats) apart: op(B) not transposed with such an ldb, or op(A)
/// transposed with such an lda (a weight gradient `bd,bh->hd` at 2048 x 256
/// x 1024: 29-35 GFLOP/s against 58-78). Whether an m x n GEMM with these
/// layouts is such a plan, whatever the CPU.
bool oneDnnNoCopyStalls(int64_t m, int64_t n, bool transA, int64_t lda,
                        bool transB, int64_t ldb);
/// Whether an f32 GEMM that oneDNN would run goes to OpenBLAS instead: a
/// plan oneDnnNoCopyStalls names, on a CPU where oneDNN's ISA is below
/// AVX-512 and OpenBLAS's kernels are at the CPU's level, with
/// $WEFT_CPU_GEMM unset (`onednn` keeps every plan on oneDNN).
bool f32GemmAvoidsOneDnn(const GemmPlan &p);
/// Whether f64 GEMMs run on the blocked AVX-512 kernel (BlockedDgemm.h)
/// instead of OpenBLAS: when the CPU has AVX-512, the linked OpenBLAS's
/// kernels are below it, and $WEFT_CPU_GEMM is not `openblas`. Read once.
bool f64Blocked();
/// Threads per rank of oneDNN's GEMMs: $WEFT_CPU_THREADS (>= 1), default 1
/// (one rank per core is how the CPU backend is run). Read once.
int gemmThreads();
/// This CPU's L2 size in bytes (sysconf; 1 MiB when the system does not
/// say), read once.
int64_t cpuL2Bytes();

/// The one line a program prints at start: the library, its version and
/// kernel ISA for f32 and f64 GEMMs, the threads, and a warning where a
/// kernel is below the CPU's level.
std::string gemmBanner();

/// How a bf16 GEMM runs: on oneDNN's bf16 matmul (bf16 A and B, f32
/// accumulation, C rounded once to bf16), or with A and B widened to f32,
/// the f32 GEMM, and C rounded to bf16. oneDNN when the CPU has bf16
/// instructions (AVX512_BF16 or AMX-BF16, as oneDNN's ISA says) and the
/// build has oneDNN; $WEFT_CPU_BF16_GEMM=onednn|f32 overrides (onednn on a
/// CPU without them runs oneDNN's emulation, for comparison).
enum class Bf16Gemm { OneDnn, ViaF32 };
Bf16Gemm bf16GemmMode();
/// Whether oneDNN's ISA on this CPU has bf16 instructions.
bool cpuHasBf16();

} // namespace weft::rt::cpu

#endif // WEFT_RT_CPU_CPUGEMMINFO_H

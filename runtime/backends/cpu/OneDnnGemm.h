//===- OneDnnGemm.h - A GemmPlan as a cached oneDNN matmul ------*- C++ -*-===//
//
// One f32 GemmPlan (row-major, strided, batched, with an outer batch) as a
// oneDNN matmul primitive, created once and run many times on different
// buffers. Private to the CPU backend (CpuGemm.cpp); oneDNN's types stay in
// OneDnnGemm.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_ONEDNNGEMM_H
#define WEFT_RT_CPU_ONEDNNGEMM_H

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/cpu/GemmEpilogue.h"

#include <memory>
#include <string>

namespace weft::rt::onednn {

/// Whether this build has oneDNN (WEFT_RT_HAVE_DNNL).
bool available();
/// "oneDNN 2.6.3" (the library's run-time version), or "" without it.
std::string version();
/// The widest ISA oneDNN dispatches to on this CPU, as oneDNN names it
/// ("avx512_core_amx", "avx2", ...), or "" without it.
std::string isa();
/// Threads oneDNN's primitives use on the calling thread (OpenMP).
void setThreads(int threads);

using Epilogue = GemmEpilogue;

/// A GemmPlan of f32 on oneDNN. `impl()` names oneDNN's implementation
/// ("brg:avx512_core", "gemm:jit", ...).
class Matmul {
public:
  /// The plan as one primitive over all its batches, or, when oneDNN has
  /// only its reference kernel for that layout, one 2-D primitive run per
  /// matrix. nullptr when oneDNN is absent, refuses the plan or would run
  /// its reference kernel either way; `whyNot` then says why.
  static std::unique_ptr<Matmul> create(const GemmPlan &plan,
                                        std::string &whyNot);
  /// The same with an epilogue fused (`epi.empty()`: plain).
  static std::unique_ptr<Matmul>
  create(const GemmPlan &plan, const Epilogue &epi, std::string &whyNot);
  /// The plan with bf16 A, B and C (oneDNN accumulates in f32 and rounds
  /// C once to bf16); no epilogue.
  static std::unique_ptr<Matmul> createBf16(const GemmPlan &plan,
                                            std::string &whyNot);
  ~Matmul();
  /// C = A B for the plan's batches (with the epilogue: `bias` holds its
  /// n or m values, ignored without a bias).
  void run(const float *a, const float *b, float *c,
           const float *bias = nullptr);
  /// run() on buffers of the primitive's element type (bf16 as uint16_t).
  void runRaw(const void *a, const void *b, void *c,
              const float *bias = nullptr);
  const std::string &impl() const;
  /// Whether the batches run as one primitive call (else a loop of 2-D).
  bool batched() const;

  struct State;

private:
  explicit Matmul(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

} // namespace weft::rt::onednn

#endif // WEFT_RT_CPU_ONEDNNGEMM_H

//===- CpuBackend.h - oneDNN/OpenBLAS + MPI backend -------------*- C++ -*-===//
//
// Compute on host memory (oneDNN or OpenBLAS GEMMs, loops); communication
// through an MpiCommunicator.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_CPUBACKEND_H
#define WEFT_RT_CPU_CPUBACKEND_H

#include "weft/rt/Backend.h"
#include "weft/rt/BufferPool.h"
#include "weft/rt/cpu/GemmEpilogue.h"

#include <string>

namespace weft::rt {

namespace onednn {
class Matmul;
} // namespace onednn

class CpuBackend final : public Backend {
public:
  CpuBackend(const Mesh &mesh, int64_t rank);
  ~CpuBackend() override;

  const char *name() const override { return "cpu"; }
  Device device() const override { return Device::Host; }
  /// Uninitialized (or, with $WEFT_RT_POISON=1, filled with 0xff bytes: NaN
  /// for floats) 64-byte aligned buffer from the caching pool.
  Tensor empty(DType dtype, const Shape &shape) override;
  void copyFromHost(Tensor &dst, const void *src) override;
  void copyToHost(const Tensor &src, void *dst) override;

  void copyStrided(const CopyPlan &plan, DType dtype, const void *src,
                   void *dst) override;
  void fillZero(void *dst, DType dtype, int64_t count) override;
  /// f32 on a oneDNN matmul primitive cached per plan (or OpenBLAS), f64
  /// on OpenBLAS, bf16 on oneDNN's bf16 matmul or through f32 and f16
  /// through f32 (CpuGemm.cpp, CpuGemmInfo.h).
  void gemm(const GemmPlan &plan, DType dtype, const void *a, const void *b,
            void *c) override;
  /// C = act(A B + bias) (+ C) in one oneDNN primitive (GemmEpilogue.h),
  /// created once per (plan, epilogue) and cached like gemm's. f32 only;
  /// an error in a build without oneDNN or for a layout oneDNN refuses.
  /// fusedGemmKernel runs weft.fused_einsum (--weft-fuse-epilogues) on it.
  void gemmWithEpilogue(const GemmPlan &plan, const GemmEpilogue &epi,
                        const float *a, const float *b, float *c,
                        const float *bias = nullptr);
  /// An f32 epilogue of the form [add bias per column] [relu, gelu, tanh,
  /// silu or sigmoid] [scale] [add residual] (what --weft-fuse-epilogues
  /// makes) on gemmWithEpilogue, when oneDNN runs f32 GEMMs and has a
  /// kernel for the epilogue; false for any other chain, dtype, library or
  /// epilogue (the caller then runs the GEMM and the chain apart;
  /// CpuGemm.cpp).
  bool fusedGemmKernel(const GemmPlan &plan, DType dtype,
                       const FusedMapPlan &epilogue, const void *a,
                       const void *b, const std::vector<const void *> &extras,
                       void *c) override;
  /// What runs an f32 plan: "onednn IMPL", "onednn IMPL per matrix" or
  /// "openblas (why)" (benchmarks and tests).
  static std::string gemmImpl(const GemmPlan &plan);
  /// The GEMM library line (cpu::gemmBanner).
  std::string startBanner() const override;
  void mapKernel(MapKind kind, const MapPlan &plan, DType dtype, const void *a,
                 const void *b, void *out, double scalar) override;
  /// Tiles of each row through per-step buffers (CpuKernels.cpp).
  void fusedMapKernel(const FusedMapPlan &plan, DType dtype,
                      const std::vector<const void *> &inputs,
                      void *out) override;
  /// Tiles of rows (one row when rows are long) through per-thread
  /// buffers, one per value (CpuKernels.cpp).
  void fusedRowsKernel(const FusedRowsPlan &plan, DType dtype,
                       const std::vector<const void *> &inputs,
                       void *out) override;
  /// Whether fusedRowsKernel runs `plan` in its one-pass softmax kernel:
  /// the chain max, sub, exp, sum, div over contiguous f32 rows of at most
  /// 2048 elements, on an AVX-512 CPU that $WEFT_RT_ISA does not cap.
  static bool runsSoftmaxKernel(const FusedRowsPlan &plan, DType dtype);
  /// Row-ordered reductions in ops::reduceCanonical's order (vectorized),
  /// others sequentially per output (CpuKernels.cpp).
  void reduceKernel(ReduceKind kind, const ReducePlan &plan, DType dtype,
                    const void *in, void *out) override;
  void embedKernel(const EmbedPlan &plan, DType dtype, const int32_t *ids,
                   const void *table, void *out, int64_t rowOffset) override;
  void scatterAddKernel(const EmbedPlan &plan, DType dtype, const int32_t *ids,
                        const void *updates, void *table,
                        int64_t rowOffset) override;
  void oneHotKernel(const OneHotPlan &plan, DType dtype, const int32_t *ids,
                    void *out, int64_t offset) override;
  void iotaKernel(DType dtype, int64_t n, void *out, int64_t first) override;
  void randomKernel(const RandomPlan &plan, DType dtype, RandomKind kind,
                    uint64_t seed, void *out) override;
  void convertKernel(DType from, DType to, int64_t count, const void *in,
                     void *out) override;
  void padFillKernel(const PadFillPlan &plan, const void *in,
                     void *out) override;
  void cumsumKernel(const CumsumPlan &plan, const void *in, void *out) override;
  void topKKernel(const TopKPlan &plan, const void *x, const void *payload,
                  void *out) override;

  BufferPool::Stats poolStats() const { return pool_->stats(); }
  BufferPool::Stats memoryStats() const override { return pool_->stats(); }
  void resetMemoryPeak() override { pool_->resetPeak(); }

private:
  /// f16/bf16 operands widened to f32, the f32 GEMM, C rounded on store.
  void gemmViaF32(const GemmPlan &plan, DType dtype, const void *a,
                  const void *b, void *c);
  struct GemmCache;
  std::shared_ptr<GemmCache> gemms_;
  /// The cached primitive of (plan, epilogue), or null where oneDNN has
  /// only its reference kernel for it (or the build has no oneDNN), with
  /// why in `whyNot`.
  onednn::Matmul *epilogueMatmul(const GemmPlan &plan, const GemmEpilogue &epi,
                                 std::string &whyNot);
  std::shared_ptr<BufferPool> pool_ = std::make_shared<BufferPool>();
  bool poison_ = false;
};

std::unique_ptr<Backend> createCpuBackend(const Mesh &mesh, int64_t rank);

class BackendRegistry;
/// Adds "cpu" to `registry` (called through the generated backend list,
/// BackendRegistry.h).
void registerCpuBackend(BackendRegistry &registry);

} // namespace weft::rt

#endif // WEFT_RT_CPU_CPUBACKEND_H

//===- CudaBackendImpl.h - The CUDA backend class ---------------*- C++ -*-===//
//
// One compute stream per backend: kernels and cuBLAS calls are queued on it,
// so scratch buffers can be reused between ops without extra syncs. NCCL
// runs on the communicator's own stream, ordered against this one with
// events (NcclCommunicator.h); a blocking collective leaves the compute
// stream waiting for it, so the ordering of one stream is kept.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_BACKENDS_CUDA_CUDABACKENDIMPL_H
#define WEFT_RT_BACKENDS_CUDA_CUDABACKENDIMPL_H

#include "weft/rt/Backend.h"
#include "weft/rt/BufferPool.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiComm.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

namespace weft::rt {

#define WEFT_CUDA_CHECK(expr)                                                  \
  do {                                                                         \
    cudaError_t err_ = (expr);                                                 \
    if (err_ != cudaSuccess)                                                   \
      ::weft::rt::fail(#expr, " failed: ", cudaGetErrorString(err_));          \
  } while (0)

#define WEFT_NCCL_CHECK(expr)                                                  \
  do {                                                                         \
    ncclResult_t res_ = (expr);                                                \
    if (res_ != ncclSuccess)                                                   \
      ::weft::rt::fail(#expr, " failed: ", ncclGetErrorString(res_));          \
  } while (0)

class CudaBackend final : public Backend {
public:
  CudaBackend(const Mesh &mesh, int64_t rank);
  ~CudaBackend() override;

  const char *name() const override { return "cuda"; }
  Device device() const override { return Device::Cuda; }
  Tensor empty(DType dtype, const Shape &shape) override;
  void copyFromHost(Tensor &dst, const void *src) override;
  void copyToHost(const Tensor &src, void *dst) override;
  void synchronize() override;

  void copyStrided(const CopyPlan &plan, DType dtype, const void *src,
                   void *dst) override;
  void fillZero(void *dst, DType dtype, int64_t count) override;
  void gemm(const GemmPlan &plan, DType dtype, const void *a, const void *b,
            void *c) override;
  void mapKernel(MapKind kind, const MapPlan &plan, DType dtype, const void *a,
                 const void *b, void *out, double scalar) override;
  /// One thread per element running every step (CudaKernels.cu).
  void fusedMapKernel(const FusedMapPlan &plan, DType dtype,
                      const std::vector<const void *> &inputs,
                      void *out) override;
  /// A warp per row, full values recomputed per element in each phase
  /// (CudaKernels.cu); rows of at most 2048 x 2048 elements.
  void fusedRowsKernel(const FusedRowsPlan &plan, DType dtype,
                       const std::vector<const void *> &inputs,
                       void *out) override;
  /// Row-ordered reductions in ops::reduceCanonical's order (a warp per
  /// 2048-element segment, passes over the partials), others a thread per
  /// output (CudaKernels.cu).
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
  void copyDevice(const Tensor &src, Tensor &dst) override;
  /// CUDA graphs of the compute stream (CudaGraph.cu; docs/runtime.md).
  bool supportsGraphs() const override { return true; }
  void beginGraphCapture() override;
  std::size_t endGraphCapture() override;
  void abortGraphCapture() override;
  void launchGraph() override;
  BufferPool::Stats memoryStats() const override { return pool_->stats(); }
  void resetMemoryPeak() override { pool_->resetPeak(); }

private:
  std::shared_ptr<BufferPool> pool_;
  /// Threads the device holds at once (SMs x threads per SM): how far
  /// planReduceLaunch splits a reduction with few outputs.
  int64_t residentThreads_ = 1;
  int deviceId_ = 0;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  /// The recorded step (endGraphCapture), replayed by launchGraph.
  cudaGraphExec_t graph_ = nullptr;
};

} // namespace weft::rt

#endif // WEFT_RT_BACKENDS_CUDA_CUDABACKENDIMPL_H

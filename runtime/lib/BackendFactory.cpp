//===- BackendFactory.cpp - Backend selection -----------------------------===//

#include "weft/rt/Backend.h"
#include "weft/rt/Config.h"
#include "weft/rt/Error.h"

#include "../backends/cpu/CpuBackend.h"
#if WEFT_RT_HAVE_CUDA
#include "../backends/cuda/CudaBackend.h"
#endif

namespace weft::rt {

bool backendAvailable(BackendKind kind) {
  return kind == BackendKind::Cpu || WEFT_RT_HAVE_CUDA;
}

std::unique_ptr<Backend> createBackend(BackendKind kind, const Mesh &mesh,
                                       int64_t rank) {
  switch (kind) {
  case BackendKind::Cpu:
    return createCpuBackend(mesh, rank);
  case BackendKind::Cuda:
#if WEFT_RT_HAVE_CUDA
    return createCudaBackend(mesh, rank);
#else
    fail("the cuda backend is not compiled in (configure with "
         "-DWEFT_RUNTIME_CUDA=ON on a machine with nvcc, cuBLAS and NCCL)");
#endif
  }
  fail("invalid backend kind");
}

} // namespace weft::rt

//===- CudaBackend.h - cuBLAS + NCCL backend --------------------*- C++ -*-===//

#ifndef WEFT_RT_CUDA_CUDABACKEND_H
#define WEFT_RT_CUDA_CUDABACKEND_H

#include "weft/rt/Backend.h"

#include <memory>

namespace weft::rt {

/// Throws Error when no CUDA device is present.
std::unique_ptr<Backend> createCudaBackend(const Mesh &mesh, int64_t rank);

class BackendRegistry;
/// Adds "cuda" to `registry` (called through the generated backend list,
/// BackendRegistry.h).
void registerCudaBackend(BackendRegistry &registry);

} // namespace weft::rt

#endif // WEFT_RT_CUDA_CUDABACKEND_H

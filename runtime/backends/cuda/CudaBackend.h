//===- CudaBackend.h - cuBLAS + NCCL backend --------------------*- C++ -*-===//

#ifndef WEFT_RT_BACKENDS_CUDA_CUDABACKEND_H
#define WEFT_RT_BACKENDS_CUDA_CUDABACKEND_H

#include "weft/rt/Backend.h"

#include <memory>

namespace weft::rt {

/// Throws Error when no CUDA device is present.
std::unique_ptr<Backend> createCudaBackend(const Mesh &mesh, int64_t rank);

} // namespace weft::rt

#endif // WEFT_RT_BACKENDS_CUDA_CUDABACKEND_H

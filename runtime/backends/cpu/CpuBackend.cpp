//===- CpuBackend.cpp - Host memory and copies ----------------------------===//

#include "CpuBackend.h"
#include "weft/rt/Error.h"

#include <cstring>

namespace weft::rt {

CpuBackend::CpuBackend(const Mesh &mesh, int64_t rank) : Backend(mesh, rank) {
  if (mpiActive()) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size == mesh.numDevices(), "mesh ", mesh.str(), " has ",
          mesh.numDevices(), " devices but MPI runs ", size, " ranks");
  }
}

Tensor CpuBackend::empty(DType dtype, const Shape &shape) {
  return hostTensor(dtype, shape);
}

void CpuBackend::copyFromHost(Tensor &dst, const void *src) {
  if (dst.bytes())
    std::memcpy(dst.data, src, dst.bytes());
}

void CpuBackend::copyToHost(const Tensor &src, void *dst) {
  if (src.bytes())
    std::memcpy(dst, src.data, src.bytes());
}

void CpuBackend::copyStrided(const CopyPlan &plan, DType dtype, const void *src,
                             void *dst) {
  if (plan.isContiguous()) {
    std::size_t es = dtypeSize(dtype);
    std::memcpy(static_cast<char *>(dst) + plan.dstOffset * es,
                static_cast<const char *>(src) + plan.srcOffset * es,
                static_cast<std::size_t>(plan.numElements()) * es);
    return;
  }
  copyStridedHost(plan, dtypeSize(dtype), src, dst);
}

void CpuBackend::fillZero(void *dst, DType dtype, int64_t count) {
  if (count > 0)
    std::memset(dst, 0, static_cast<std::size_t>(count) * dtypeSize(dtype));
}

std::unique_ptr<Backend> createCpuBackend(const Mesh &mesh, int64_t rank) {
  return std::make_unique<CpuBackend>(mesh, rank);
}

} // namespace weft::rt

//===- CpuBackend.cpp - Host memory and copies ----------------------------===//

#include "weft/rt/cpu/CpuBackend.h"
#include "weft/rt/BackendRegistry.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiCommunicator.h"
#include "weft/rt/ThreadedCommunicator.h"

#include <cstdlib>
#include <cstring>

namespace weft::rt {

CpuBackend::CpuBackend(const Mesh &mesh, int64_t rank) : Backend(mesh, rank) {
  std::unique_ptr<Communicator> comm =
      std::make_unique<MpiCommunicator>(mesh, rank);
  // Asynchronous collectives (weft.async) move while the step computes
  // only when something drives MPI: a progress thread.
  if (wantCommThread(mesh.numDevices()))
    comm = std::make_unique<ThreadedCommunicator>(std::move(comm));
  setCommunicator(std::move(comm));
  const char *poison = std::getenv("WEFT_RT_POISON");
  poison_ = poison && *poison && std::string(poison) != "0";
}

// Buffers still referenced (the scratch buffers of the base class, tensors
// the caller keeps) are freed when released.
CpuBackend::~CpuBackend() { pool_->close(); }

Tensor CpuBackend::empty(DType dtype, const Shape &shape) {
  for (int64_t d : shape)
    check(d >= 0, "negative extent in shape ", shapeToString(shape));
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.device = Device::Host;
  t.storage = pool_->allocate(t.bytes());
  t.data = t.storage.get();
  if (poison_)
    std::memset(t.data, 0xff, t.bytes());
  return t;
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

void registerCpuBackend(BackendRegistry &registry) {
  registry.add("cpu", "oneDNN/OpenBLAS + MPI on host memory", createCpuBackend);
}

} // namespace weft::rt

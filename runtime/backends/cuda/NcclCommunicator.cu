//===- NcclCommunicator.cu - NCCL collectives on a comm stream ------------===//

#include "CudaBackendImpl.h"
#include "NcclCommunicator.h"
#include "weft/rt/MpiCommunicator.h"

#include <chrono>
#include <thread>

namespace weft::rt {

namespace {

ncclDataType_t ncclType(DType t) {
  switch (t) {
  case DType::F32:
    return ncclFloat32;
  case DType::F64:
    return ncclFloat64;
  case DType::I32:
    return ncclInt32;
  case DType::F16:
    return ncclFloat16;
  case DType::BF16:
    return ncclBfloat16;
  }
  fail("invalid dtype");
}

ncclRedOp_t ncclOp(ReduceKind k) {
  switch (k) {
  case ReduceKind::Sum:
    return ncclSum;
  case ReduceKind::Max:
    return ncclMax;
  case ReduceKind::Min:
    return ncclMin;
  }
  fail("invalid reduce kind");
}

std::size_t ncclCount(int64_t n, CommOp op) {
  check(n >= 0, commOpName(op), " of ", n, " elements");
  return static_cast<std::size_t>(n);
}

class NcclWork final : public Work {
public:
  NcclWork(NcclCommunicator &comm, cudaEvent_t done, CommOp op,
           const GroupPlan &group)
      : comm_(comm), done_(done), op_(op), group_(group) {}

  ~NcclWork() override {
    // Without a wait, the compute stream still must not run ahead of the
    // collective (its buffers may be reused by the next op).
    if (!waited_)
      cudaStreamWaitEvent(comm_.computeStream(), done_, 0);
    comm_.releaseEvent(done_);
  }

  void wait() override {
    if (waited_)
      return;
    double limit = comm_.timeout();
    if (limit > 0) {
      auto deadline =
          std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::duration<double>(limit));
      for (int spins = 0; !isCompleted(); ++spins) {
        if (std::chrono::steady_clock::now() >= deadline) {
          comm_.timedOut(op_, &group_);
          break;
        }
        if (spins > 1000)
          std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
    WEFT_CUDA_CHECK(cudaStreamWaitEvent(comm_.computeStream(), done_, 0));
    waited_ = true;
  }

  bool isCompleted() override {
    cudaError_t err = cudaEventQuery(done_);
    if (err == cudaErrorNotReady)
      return false;
    WEFT_CUDA_CHECK(err);
    return true;
  }

private:
  NcclCommunicator &comm_;
  cudaEvent_t done_;
  CommOp op_;
  const GroupPlan &group_;
  bool waited_ = false;
};

} // namespace

NcclCommunicator::NcclCommunicator(const Mesh &mesh, int64_t rank, int deviceId,
                                   cudaStream_t compute)
    : Communicator(mesh, rank), deviceId_(deviceId), compute_(compute) {
  WEFT_CUDA_CHECK(cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking));
}

NcclCommunicator::~NcclCommunicator() {
  for (auto &[axes, comm] : comms_)
    ncclCommDestroy(comm);
  for (cudaEvent_t e : freeEvents_)
    cudaEventDestroy(e);
  if (comm_)
    cudaStreamDestroy(comm_);
}

cudaEvent_t NcclCommunicator::takeEvent() {
  if (!freeEvents_.empty()) {
    cudaEvent_t e = freeEvents_.back();
    freeEvents_.pop_back();
    return e;
  }
  cudaEvent_t e;
  WEFT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return e;
}

void NcclCommunicator::enter() {
  // A wait captures the event's state when it is queued, so the event can
  // be reused at once.
  cudaEvent_t ready = takeEvent();
  WEFT_CUDA_CHECK(cudaEventRecord(ready, compute_));
  WEFT_CUDA_CHECK(cudaStreamWaitEvent(comm_, ready, 0));
  releaseEvent(ready);
}

std::unique_ptr<Work> NcclCommunicator::leave(CommOp op,
                                              const GroupPlan &group) {
  cudaEvent_t done = takeEvent();
  cudaError_t err = cudaEventRecord(done, comm_);
  if (err != cudaSuccess) {
    releaseEvent(done);
    WEFT_CUDA_CHECK(err);
  }
  return std::make_unique<NcclWork>(*this, done, op, group);
}

ncclComm_t NcclCommunicator::nccl(const GroupPlan &group) {
  auto it = comms_.find(group.axes);
  if (it != comms_.end())
    return it->second;
  MPI_Comm mpi = mpiGroups_.get(group);
  ncclUniqueId id;
  if (group.position == 0)
    WEFT_NCCL_CHECK(ncclGetUniqueId(&id));
  checkMpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, mpi), "MPI_Bcast");
  ncclComm_t comm;
  WEFT_NCCL_CHECK(ncclCommInitRank(&comm, static_cast<int>(group.size), id,
                                   static_cast<int>(group.position)));
  comms_.emplace(group.axes, comm);
  return comm;
}

std::unique_ptr<Work>
NcclCommunicator::startAllReduce(const void *send, void *recv, int64_t count,
                                 DType dtype, ReduceKind kind,
                                 const GroupPlan &group) {
  const CommOp op = CommOp::AllReduce;
  ncclComm_t c = nccl(group);
  enter();
  WEFT_NCCL_CHECK(ncclAllReduce(send, recv, ncclCount(count, op),
                                ncclType(dtype), ncclOp(kind), c, comm_));
  return leave(op, group);
}

std::unique_ptr<Work>
NcclCommunicator::startAllGather(const void *send, void *recv, int64_t chunk,
                                 DType dtype, const GroupPlan &group) {
  const CommOp op = CommOp::AllGather;
  ncclComm_t c = nccl(group);
  enter();
  WEFT_NCCL_CHECK(ncclAllGather(send, recv, ncclCount(chunk, op),
                                ncclType(dtype), c, comm_));
  return leave(op, group);
}

std::unique_ptr<Work>
NcclCommunicator::startReduceScatter(const void *send, void *recv,
                                     int64_t chunk, DType dtype,
                                     ReduceKind kind, const GroupPlan &group) {
  const CommOp op = CommOp::ReduceScatter;
  ncclComm_t c = nccl(group);
  enter();
  WEFT_NCCL_CHECK(ncclReduceScatter(send, recv, ncclCount(chunk, op),
                                    ncclType(dtype), ncclOp(kind), c, comm_));
  return leave(op, group);
}

std::unique_ptr<Work> NcclCommunicator::startAllToAll(const void *send,
                                                      void *recv, int64_t chunk,
                                                      DType dtype,
                                                      const GroupPlan &group) {
  const CommOp op = CommOp::AllToAll;
  ncclComm_t c = nccl(group);
  std::size_t n = ncclCount(chunk, op);
  std::size_t bytes = 0;
  check(!__builtin_mul_overflow(n, dtypeSize(dtype), &bytes),
        "all_to_all chunk of ", chunk, " elements overflows");
  enter();
  WEFT_NCCL_CHECK(ncclGroupStart());
  for (int64_t q = 0; q < group.size; ++q) {
    std::size_t off = bytes * static_cast<std::size_t>(q); // < the buffers
    WEFT_NCCL_CHECK(ncclSend(static_cast<const char *>(send) + off, n,
                             ncclType(dtype), static_cast<int>(q), c, comm_));
    WEFT_NCCL_CHECK(ncclRecv(static_cast<char *>(recv) + off, n,
                             ncclType(dtype), static_cast<int>(q), c, comm_));
  }
  WEFT_NCCL_CHECK(ncclGroupEnd());
  return leave(op, group);
}

//===--- Root collectives -------------------------------------------------===//

std::unique_ptr<Work> NcclCommunicator::startBroadcast(void *buf, int64_t count,
                                                       DType dtype,
                                                       int64_t root,
                                                       const GroupPlan &group) {
  const CommOp op = CommOp::Broadcast;
  ncclComm_t c = nccl(group);
  enter();
  WEFT_NCCL_CHECK(ncclBroadcast(buf, buf, ncclCount(count, op), ncclType(dtype),
                                static_cast<int>(root), c, comm_));
  return leave(op, group);
}

std::unique_ptr<Work>
NcclCommunicator::startReduceTo(const void *send, void *recv, int64_t count,
                                DType dtype, ReduceKind kind, int64_t root,
                                const GroupPlan &group) {
  const CommOp op = CommOp::ReduceTo;
  ncclComm_t c = nccl(group);
  enter();
  WEFT_NCCL_CHECK(ncclReduce(send, recv, ncclCount(count, op), ncclType(dtype),
                             ncclOp(kind), static_cast<int>(root), c, comm_));
  return leave(op, group);
}

namespace {
/// The bytes of a chunk of `chunk` elements, checked.
std::size_t chunkBytes(int64_t chunk, DType dtype, CommOp op) {
  std::size_t bytes = 0;
  check(!__builtin_mul_overflow(ncclCount(chunk, op), dtypeSize(dtype), &bytes),
        commOpName(op), " chunk of ", chunk, " elements overflows");
  return bytes;
}
} // namespace

std::unique_ptr<Work> NcclCommunicator::startGatherTo(const void *send,
                                                      void *recv, int64_t chunk,
                                                      DType dtype, int64_t root,
                                                      const GroupPlan &group) {
  const CommOp op = CommOp::GatherTo;
  ncclComm_t c = nccl(group);
  std::size_t n = ncclCount(chunk, op);
  std::size_t bytes = chunkBytes(chunk, dtype, op);
  enter();
  if (group.position == root) {
    // The root's own chunk is a copy; the others arrive in one group.
    WEFT_CUDA_CHECK(cudaMemcpyAsync(
        static_cast<char *>(recv) + bytes * static_cast<std::size_t>(root),
        send, bytes, cudaMemcpyDeviceToDevice, comm_));
    WEFT_NCCL_CHECK(ncclGroupStart());
    for (int64_t q = 0; q < group.size; ++q)
      if (q != root)
        WEFT_NCCL_CHECK(ncclRecv(
            static_cast<char *>(recv) + bytes * static_cast<std::size_t>(q), n,
            ncclType(dtype), static_cast<int>(q), c, comm_));
    WEFT_NCCL_CHECK(ncclGroupEnd());
  } else {
    WEFT_NCCL_CHECK(
        ncclSend(send, n, ncclType(dtype), static_cast<int>(root), c, comm_));
  }
  return leave(op, group);
}

std::unique_ptr<Work>
NcclCommunicator::startScatterFrom(const void *send, void *recv, int64_t chunk,
                                   DType dtype, int64_t root,
                                   const GroupPlan &group) {
  const CommOp op = CommOp::ScatterFrom;
  ncclComm_t c = nccl(group);
  std::size_t n = ncclCount(chunk, op);
  std::size_t bytes = chunkBytes(chunk, dtype, op);
  enter();
  if (group.position == root) {
    WEFT_CUDA_CHECK(cudaMemcpyAsync(recv,
                                    static_cast<const char *>(send) +
                                        bytes * static_cast<std::size_t>(root),
                                    bytes, cudaMemcpyDeviceToDevice, comm_));
    WEFT_NCCL_CHECK(ncclGroupStart());
    for (int64_t q = 0; q < group.size; ++q)
      if (q != root)
        WEFT_NCCL_CHECK(ncclSend(static_cast<const char *>(send) +
                                     bytes * static_cast<std::size_t>(q),
                                 n, ncclType(dtype), static_cast<int>(q), c,
                                 comm_));
    WEFT_NCCL_CHECK(ncclGroupEnd());
  } else {
    WEFT_NCCL_CHECK(
        ncclRecv(recv, n, ncclType(dtype), static_cast<int>(root), c, comm_));
  }
  return leave(op, group);
}

//===--- Point to point ---------------------------------------------------===//

std::unique_ptr<Work>
NcclCommunicator::startPermute(const void *send, void *recv, int64_t count,
                               DType dtype, int64_t sendTo, int64_t recvFrom,
                               const GroupPlan &group) {
  const CommOp op = CommOp::Permute;
  ncclComm_t c = nccl(group);
  std::size_t n = ncclCount(count, op);
  enter();
  WEFT_NCCL_CHECK(ncclGroupStart());
  if (sendTo >= 0)
    WEFT_NCCL_CHECK(
        ncclSend(send, n, ncclType(dtype), static_cast<int>(sendTo), c, comm_));
  if (recvFrom >= 0)
    WEFT_NCCL_CHECK(ncclRecv(recv, n, ncclType(dtype),
                             static_cast<int>(recvFrom), c, comm_));
  WEFT_NCCL_CHECK(ncclGroupEnd());
  return leave(op, group);
}

std::unique_ptr<Work>
NcclCommunicator::startGatherBytesToRoot(const void *send, void *recv,
                                         std::size_t bytes) {
  return startMpiGatherBytesToRoot(*this, send, recv, bytes);
}

} // namespace weft::rt

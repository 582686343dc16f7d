//===- NcclCommunicator.h - NCCL collectives on a comm stream ---*- C++ -*-===//
//
// NCCL runs on the communicator's own stream. Starting a collective records
// an event on the backend's compute stream and makes the comm stream wait
// for it (the operands are ready); the NCCL call is queued on the comm
// stream, and an event recorded after it marks the end. Work::wait makes
// the compute stream wait for that event: it does not block the host, so
// the blocking Backend collectives cost no more than before, and the
// compute queued between start and wait overlaps the communication.
// With a timeout set, wait polls the event on the host until the deadline.
//
// A group's NCCL communicator is bootstrapped on its MPI communicator
// (MpiGroups, the same MPI_Comm_split color/key as the CPU backend):
// position 0 creates the unique id, MPI_Bcast shares it, every member
// calls ncclCommInitRank with its position as NCCL rank.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_BACKENDS_CUDA_NCCLCOMMUNICATOR_H
#define WEFT_RT_BACKENDS_CUDA_NCCLCOMMUNICATOR_H

#include "weft/rt/Communicator.h"
#include "weft/rt/MpiComm.h"

#include <cuda_runtime.h>
#include <map>
#include <nccl.h>
#include <vector>

namespace weft::rt {

class NcclCommunicator final : public Communicator {
public:
  /// `compute` is the backend's stream on device `deviceId` (current).
  NcclCommunicator(const Mesh &mesh, int64_t rank, int deviceId,
                   cudaStream_t compute);
  ~NcclCommunicator() override;

  const char *name() const override { return "nccl"; }
  Device device() const override { return Device::Cuda; }
  /// NCCL runs on the communicator's own stream.
  bool progressesAsync() const override { return true; }

  std::unique_ptr<Work> startAllReduce(const void *send, void *recv,
                                       int64_t count, DType dtype,
                                       ReduceKind kind,
                                       const GroupPlan &group) override;
  std::unique_ptr<Work> startAllGather(const void *send, void *recv,
                                       int64_t chunk, DType dtype,
                                       const GroupPlan &group) override;
  std::unique_ptr<Work> startReduceScatter(const void *send, void *recv,
                                           int64_t chunk, DType dtype,
                                           ReduceKind kind,
                                           const GroupPlan &group) override;
  std::unique_ptr<Work> startAllToAll(const void *send, void *recv,
                                      int64_t chunk, DType dtype,
                                      const GroupPlan &group) override;
  /// Host bytes: MPI_Igather (MpiCommunicator.h).
  std::unique_ptr<Work> startGatherBytesToRoot(const void *send, void *recv,
                                               std::size_t bytes) override;
  // Root collectives: ncclBroadcast and ncclReduce; gather and scatter as
  // ncclSend/ncclRecv between the root and each other rank in one group.
  std::unique_ptr<Work> startBroadcast(void *buf, int64_t count, DType dtype,
                                       int64_t root,
                                       const GroupPlan &group) override;
  std::unique_ptr<Work> startReduceTo(const void *send, void *recv,
                                      int64_t count, DType dtype,
                                      ReduceKind kind, int64_t root,
                                      const GroupPlan &group) override;
  std::unique_ptr<Work> startGatherTo(const void *send, void *recv,
                                      int64_t chunk, DType dtype, int64_t root,
                                      const GroupPlan &group) override;
  std::unique_ptr<Work> startScatterFrom(const void *send, void *recv,
                                         int64_t chunk, DType dtype,
                                         int64_t root,
                                         const GroupPlan &group) override;
  // Point to point: ncclSend and ncclRecv in one group.
  std::unique_ptr<Work> startPermute(const void *send, void *recv,
                                     int64_t count, DType dtype, int64_t sendTo,
                                     int64_t recvFrom,
                                     const GroupPlan &group) override;

  // For NcclWork.
  cudaStream_t computeStream() const { return compute_; }
  void releaseEvent(cudaEvent_t e) { freeEvents_.push_back(e); }

private:
  ncclComm_t nccl(const GroupPlan &group);
  /// Makes the comm stream wait for the work queued on the compute stream.
  void enter();
  /// The Work of the NCCL calls queued since enter().
  std::unique_ptr<Work> leave(CommOp op, const GroupPlan &group);
  cudaEvent_t takeEvent();

  int deviceId_;
  cudaStream_t compute_;
  cudaStream_t comm_ = nullptr;
  MpiGroups mpiGroups_;
  std::map<AxisList, ncclComm_t> comms_;
  std::vector<cudaEvent_t> freeEvents_;
};

} // namespace weft::rt

#endif // WEFT_RT_BACKENDS_CUDA_NCCLCOMMUNICATOR_H

//===- MpiCommunicator.h - Nonblocking MPI collectives ----------*- C++ -*-===//
//
// The CPU backend's communicator: MPI_Iallreduce, MPI_Iallgather,
// MPI_Ialltoall and MPI_Igather on the group communicators of MpiGroups,
// over host memory, and reduce-scatter as a direct exchange of messages
// (MpiReduceScatter.h). A Work is the MPI requests; the buffers must stay
// alive until it is waited for (Communicator.h).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_MPICOMMUNICATOR_H
#define WEFT_RT_MPICOMMUNICATOR_H

#include "weft/rt/Communicator.h"
#include "weft/rt/MpiComm.h"

#include <vector>

namespace weft::rt {

class MpiCommunicator final : public Communicator {
public:
  /// Checks that MPI runs mesh.numDevices() ranks when it is initialized.
  MpiCommunicator(const Mesh &mesh, int64_t rank);

  const char *name() const override { return "mpi"; }
  Device device() const override { return Device::Host; }

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
  std::unique_ptr<Work> startGatherBytesToRoot(const void *send, void *recv,
                                               std::size_t bytes) override;
  // Root collectives: MPI_Ibcast, MPI_Ireduce, MPI_Igather, MPI_Iscatter
  // on the group's communicator (its ranks are the group positions).
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
  // Point to point: MPI_Isend and MPI_Irecv on the group's communicator.
  std::unique_ptr<Work> startPermute(const void *send, void *recv,
                                     int64_t count, DType dtype, int64_t sendTo,
                                     int64_t recvFrom,
                                     const GroupPlan &group) override;

  /// MPI's blocking collectives once blockingAgreed() and no timeout is
  /// set; start + wait otherwise (Communicator.h).
  void allReduce(const void *send, void *recv, int64_t count, DType dtype,
                 ReduceKind kind, const GroupPlan &group) override;
  void allGather(const void *send, void *recv, int64_t chunk, DType dtype,
                 const GroupPlan &group) override;
  void reduceScatter(const void *send, void *recv, int64_t chunk, DType dtype,
                     ReduceKind kind, const GroupPlan &group) override;
  void allToAll(const void *send, void *recv, int64_t chunk, DType dtype,
                const GroupPlan &group) override;

private:
  bool useBlocking() const;
  MpiGroups groups_;
  /// The blocking reduce-scatter's receive buffers, kept between calls.
  std::vector<char> scratch_;
};

/// An MPI request as Work: wait() is MPI_Wait, or with a timeout set on
/// `comm`, MPI_Test in a loop until the deadline. `group` (null: the world)
/// names the collective in the timeout message.
std::unique_ptr<Work> makeMpiWork(MPI_Request request, const Communicator &comm,
                                  CommOp op, const GroupPlan *group);

/// MPI_Iallreduce over the world of the harness's small agreements (a
/// status flag, a step's finite-loss check), waited for under `comm`'s
/// watchdog and entered on the status board (RankStatus.h), like the
/// program's collectives: a stalled rank ends the job with a message naming
/// it instead of hanging the others. Nothing of `comm` may be in flight.
void watchedWorldAllreduce(const Communicator &comm, const void *send,
                           void *recv, int count, MPI_Datatype type, MPI_Op op);
/// The same for a barrier.
void watchedWorldBarrier(const Communicator &comm);

/// MPI_Igather of `bytes` host bytes from every world rank to rank 0, as
/// Work of `comm` (shared by the communicators of every backend: outputs
/// are gathered from host memory).
std::unique_ptr<Work> startMpiGatherBytesToRoot(const Communicator &comm,
                                                const void *send, void *recv,
                                                std::size_t bytes);

} // namespace weft::rt

#endif // WEFT_RT_MPICOMMUNICATOR_H

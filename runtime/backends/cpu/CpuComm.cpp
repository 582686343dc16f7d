//===- CpuComm.cpp - MPI collectives on group communicators ---------------===//

#include "CpuBackend.h"
#include "weft/rt/Error.h"

#include <climits>

namespace weft::rt {

static int count(int64_t n) {
  check(n >= 0 && n <= INT_MAX, "collective of ", n,
        " elements exceeds the MPI count limit");
  return static_cast<int>(n);
}

void CpuBackend::commAllReduce(const void *send, void *recv, int64_t n,
                               DType dtype, ReduceKind kind,
                               const GroupPlan &group) {
  MPI_Op op = mpiOp(kind, dtype);
  checkMpi(MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, count(n),
                         mpiType(dtype), op, comms_.get(group)),
           "MPI_Allreduce");
}

void CpuBackend::commAllGather(const void *send, void *recv, int64_t chunk,
                               DType dtype, const GroupPlan &group) {
  checkMpi(MPI_Allgather(send, count(chunk), mpiType(dtype), recv, count(chunk),
                         mpiType(dtype), comms_.get(group)),
           "MPI_Allgather");
}

void CpuBackend::commReduceScatter(const void *send, void *recv, int64_t chunk,
                                   DType dtype, ReduceKind kind,
                                   const GroupPlan &group) {
  MPI_Op op = mpiOp(kind, dtype);
  checkMpi(MPI_Reduce_scatter_block(send, recv, count(chunk), mpiType(dtype),
                                    op, comms_.get(group)),
           "MPI_Reduce_scatter_block");
}

void CpuBackend::commAllToAll(const void *send, void *recv, int64_t chunk,
                              DType dtype, const GroupPlan &group) {
  checkMpi(MPI_Alltoall(send, count(chunk), mpiType(dtype), recv, count(chunk),
                        mpiType(dtype), comms_.get(group)),
           "MPI_Alltoall");
}

void CpuBackend::gatherBytesToRoot(const void *send, void *recv,
                                   std::size_t bytes) {
  check(mpiActive(), "gather to root needs MPI to be initialized");
  checkMpi(MPI_Gather(send, count(static_cast<int64_t>(bytes)), MPI_BYTE, recv,
                      count(static_cast<int64_t>(bytes)), MPI_BYTE, 0,
                      MPI_COMM_WORLD),
           "MPI_Gather");
}

} // namespace weft::rt

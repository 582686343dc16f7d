//===- NcclComm.cu - NCCL communicators per axis group --------------------===//
//
// A group's NCCL communicator is bootstrapped on its MPI communicator
// (MpiGroups, the same MPI_Comm_split color/key as the CPU backend): position
// 0 creates the unique id, MPI_Bcast shares it, every member calls
// ncclCommInitRank with its position as NCCL rank.
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"

#include <climits>

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

} // namespace

ncclComm_t CudaBackend::nccl(const GroupPlan &group) {
  auto it = ncclComms_.find(group.axes);
  if (it != ncclComms_.end())
    return it->second;
  MPI_Comm mpi = mpiGroups_.get(group);
  ncclUniqueId id;
  if (group.position == 0)
    WEFT_NCCL_CHECK(ncclGetUniqueId(&id));
  checkMpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, mpi), "MPI_Bcast");
  ncclComm_t comm;
  WEFT_NCCL_CHECK(ncclCommInitRank(&comm, static_cast<int>(group.size), id,
                                   static_cast<int>(group.position)));
  ncclComms_.emplace(group.axes, comm);
  return comm;
}

void CudaBackend::commAllReduce(const void *send, void *recv, int64_t count,
                                DType dtype, ReduceKind kind,
                                const GroupPlan &group) {
  WEFT_NCCL_CHECK(ncclAllReduce(send, recv, count, ncclType(dtype),
                                ncclOp(kind), nccl(group), stream_));
}

void CudaBackend::commAllGather(const void *send, void *recv, int64_t chunk,
                                DType dtype, const GroupPlan &group) {
  WEFT_NCCL_CHECK(
      ncclAllGather(send, recv, chunk, ncclType(dtype), nccl(group), stream_));
}

void CudaBackend::commReduceScatter(const void *send, void *recv, int64_t chunk,
                                    DType dtype, ReduceKind kind,
                                    const GroupPlan &group) {
  WEFT_NCCL_CHECK(ncclReduceScatter(send, recv, chunk, ncclType(dtype),
                                    ncclOp(kind), nccl(group), stream_));
}

void CudaBackend::commAllToAll(const void *send, void *recv, int64_t chunk,
                               DType dtype, const GroupPlan &group) {
  ncclComm_t comm = nccl(group);
  std::size_t bytes = static_cast<std::size_t>(chunk) * dtypeSize(dtype);
  WEFT_NCCL_CHECK(ncclGroupStart());
  for (int64_t q = 0; q < group.size; ++q) {
    WEFT_NCCL_CHECK(ncclSend(static_cast<const char *>(send) + q * bytes, chunk,
                             ncclType(dtype), static_cast<int>(q), comm,
                             stream_));
    WEFT_NCCL_CHECK(ncclRecv(static_cast<char *>(recv) + q * bytes, chunk,
                             ncclType(dtype), static_cast<int>(q), comm,
                             stream_));
  }
  WEFT_NCCL_CHECK(ncclGroupEnd());
}

void CudaBackend::gatherBytesToRoot(const void *send, void *recv,
                                    std::size_t bytes) {
  check(mpiActive(), "gather to root needs MPI to be initialized");
  check(bytes <= static_cast<std::size_t>(INT_MAX), "gather too large");
  checkMpi(MPI_Gather(send, static_cast<int>(bytes), MPI_BYTE, recv,
                      static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD),
           "MPI_Gather");
}

} // namespace weft::rt

//===- MpiReduceScatter.cpp - Reduce-scatter by direct exchange -----------===//

#include "weft/rt/MpiReduceScatter.h"
#include "weft/rt/Communicator.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiComm.h"

#include <cstring>

namespace weft::rt {

namespace {
/// The tag of the exchange's messages. Collectives run in a context of
/// their own, so these never match one of theirs; two exchanges in flight
/// on one communicator match in the order they were posted (MPI's
/// non-overtaking rule), which SPMD code keeps the same on every rank.
constexpr int kReduceScatterTag = 0x5746;
} // namespace

DirectReduceScatter::DirectReduceScatter(const void *send, void *recv,
                                         int64_t chunk, DType dtype,
                                         ReduceKind kind, MPI_Comm comm)
    : send_(static_cast<const char *>(send)), recv_(static_cast<char *>(recv)),
      count_(mpiCount(chunk, CommOp::ReduceScatter)), type_(mpiType(dtype)),
      op_(mpiOp(kind, dtype)), comm_(comm) {
  checkMpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
  const std::size_t esize = dtypeSize(dtype);
  check(!__builtin_mul_overflow(static_cast<std::size_t>(count_), esize,
                                &chunkBytes_) &&
            !__builtin_mul_overflow(chunkBytes_,
                                    static_cast<std::size_t>(size_ - 1),
                                    &scratchBytes_),
        "reduce_scatter of ", chunk, " elements per rank over ", size_,
        " ranks overflows its scratch size");
}

const char *DirectReduceScatter::slot(int q) const {
  if (q == rank_)
    return send_ + static_cast<std::size_t>(q) * chunkBytes_;
  if (q == 0)
    return recv_;
  return scratch_ +
         static_cast<std::size_t>(q < rank_ ? q : q - 1) * chunkBytes_;
}

void DirectReduceScatter::post(char *scratch) {
  scratch_ = scratch;
  requests_.clear();
  if (count_ == 0 || size_ == 1)
    return;
  requests_.reserve(2 * static_cast<std::size_t>(size_ - 1));
  for (int q = 0; q < size_; ++q) {
    if (q == rank_)
      continue;
    MPI_Request r;
    checkMpi(MPI_Irecv(const_cast<char *>(slot(q)), count_, type_, q,
                       kReduceScatterTag, comm_, &r),
             "MPI_Irecv");
    requests_.push_back(r);
  }
  // Sends in the order (g + 1, g + 2, ...) so that not every rank sends to
  // rank 0 first.
  for (int s = 1; s < size_; ++s) {
    const int q = (rank_ + s) % size_;
    MPI_Request r;
    checkMpi(MPI_Isend(send_ + static_cast<std::size_t>(q) * chunkBytes_,
                       count_, type_, q, kReduceScatterTag, comm_, &r),
             "MPI_Isend");
    requests_.push_back(r);
  }
}

void DirectReduceScatter::finish() {
  if (count_ == 0)
    return;
  // recv starts as rank 0's contribution (received there, or copied from
  // send when this is rank 0), then adds ranks 1, 2, ... in order.
  if (rank_ == 0)
    std::memcpy(recv_, send_, chunkBytes_);
  for (int q = 1; q < size_; ++q)
    checkMpi(MPI_Reduce_local(slot(q), recv_, count_, type_, op_),
             "MPI_Reduce_local");
}

} // namespace weft::rt

//===- MpiReduceScatter.h - Reduce-scatter by direct exchange ---*- C++ -*-===//
//
// The CPU backend's reduce-scatter over MPI point-to-point messages instead
// of MPI_Reduce_scatter_block: Open MPI 4.1's default for it (basic_linear:
// a reduce to rank 0, then a scatter) took 0.72 ms for a 1 MiB input on 2
// ranks where this exchange takes 0.086 ms (weft-rt-bench-collectives;
// docs/runtime.md, "Reduce-scatter by direct exchange").
//
// Group rank g sends chunk q of its contribution to each group rank q != g
// and receives chunk g of every other rank's; then recv = c_0 + c_1 + ... +
// c_{p-1} (c_q: rank q's contribution to chunk g), combined in group-rank
// order with MPI_Reduce_local, so the order is fixed and the same on every
// rank and for the blocking and the nonblocking form.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_MPIREDUCESCATTER_H
#define WEFT_RT_MPIREDUCESCATTER_H

#include "weft/rt/DType.h"
#include "weft/rt/Kinds.h"

#include <cstddef>
#include <cstdint>
#include <mpi.h>
#include <vector>

namespace weft::rt {

/// One reduce-scatter in flight: post() sends and receives, finish() (once
/// every request completed) combines.
class DirectReduceScatter {
public:
  /// `send` holds groupSize * chunk elements, `recv` chunk. Throws Error for
  /// counts MPI cannot express or a reduction MPI cannot run on `dtype`.
  DirectReduceScatter(const void *send, void *recv, int64_t chunk, DType dtype,
                      ReduceKind kind, MPI_Comm comm);

  /// Bytes of scratch post() needs: (groupSize - 1) chunks.
  std::size_t scratchBytes() const { return scratchBytes_; }
  /// Posts the receives (into `scratch`, scratchBytes() of it, and rank 0's
  /// chunk straight into recv) and the sends.
  void post(char *scratch);
  std::vector<MPI_Request> &requests() { return requests_; }
  /// Combines the contributions into recv; call after every request of
  /// requests() completed.
  void finish();

private:
  const char *slot(int q) const;

  const char *send_;
  char *recv_;
  char *scratch_ = nullptr;
  int count_;
  std::size_t chunkBytes_ = 0, scratchBytes_ = 0;
  MPI_Datatype type_;
  MPI_Op op_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::vector<MPI_Request> requests_;
};

} // namespace weft::rt

#endif // WEFT_RT_MPIREDUCESCATTER_H

//===- MpiComm.h - MPI session and per-group communicators ------*- C++ -*-===//
//
// Shared by both backends: the CPU backend communicates over these
// communicators, the CUDA backend bootstraps its NCCL communicators on them.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_MPICOMM_H
#define WEFT_RT_MPICOMM_H

#include "weft/rt/CollectivePlan.h"
#include "weft/rt/DType.h"
#include "weft/rt/Kinds.h"

#include <map>
#include <mpi.h>

namespace weft::rt {

/// Initializes MPI (if not yet) and finalizes it on destruction if it did.
class MpiSession {
public:
  MpiSession(int *argc, char ***argv);
  ~MpiSession();
  int rank() const { return rank_; }
  int size() const { return size_; }

private:
  bool owns_ = false;
  int rank_ = 0, size_ = 1;
};

/// True between MPI_Init and MPI_Finalize.
bool mpiActive();
/// Throws Error with the MPI error string when `rc` is not MPI_SUCCESS.
void checkMpi(int rc, const char *what);
MPI_Datatype mpiType(DType t);
/// MPI's op, or for f16/bf16 (as MPI_UINT16_T) a user-defined op that
/// combines in f32 and rounds each result to the 16-bit type.
MPI_Op mpiOp(ReduceKind k, DType t);

/// MPI_Comm_split of MPI_COMM_WORLD per axis list (color/key from the
/// GroupPlan), created on first use and cached. Creation is collective over
/// the world: every rank must ask for the same axis lists in the same order,
/// which SPMD code does.
class MpiGroups {
public:
  MpiGroups() = default;
  ~MpiGroups();
  MpiGroups(const MpiGroups &) = delete;
  MpiGroups &operator=(const MpiGroups &) = delete;
  MPI_Comm get(const GroupPlan &group);

private:
  std::map<AxisList, MPI_Comm> comms_;
};

} // namespace weft::rt

#endif // WEFT_RT_MPICOMM_H

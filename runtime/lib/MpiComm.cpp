//===- MpiComm.cpp - MPI session and per-group communicators --------------===//

#include "weft/rt/MpiComm.h"
#include "weft/rt/ElementOps.h"
#include "weft/rt/Error.h"

#include <cstring>

namespace weft::rt {

MpiSession::MpiSession(int *argc, char ***argv) {
  if (!mpiActive()) {
    // SERIALIZED: the communication progress thread
    // (ThreadedCommunicator) calls MPI, never at the same time as another.
    int provided = MPI_THREAD_SINGLE;
    checkMpi(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided),
             "MPI_Init_thread");
    owns_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  if (owns_ && mpiActive())
    MPI_Finalize();
}

bool mpiActive() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

void checkMpi(int rc, const char *what) {
  if (rc == MPI_SUCCESS)
    return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  fail(what, " failed: ", std::string(msg, len));
}

MPI_Datatype mpiType(DType t) {
  switch (t) {
  case DType::F32:
    return MPI_FLOAT;
  case DType::F64:
    return MPI_DOUBLE;
  case DType::I32:
    return MPI_INT32_T;
  case DType::F16:
  case DType::BF16:
    return MPI_UINT16_T;
  }
  fail("invalid dtype");
}

namespace {
/// f16/bf16 reductions: MPI has no 16-bit float types, so the buffers
/// travel as MPI_UINT16_T (2 bytes an element: a bf16 collective moves
/// half an f32 one's bytes) and reduce through user-defined ops. Each
/// combine widens both operands to f32 (exact), adds (or compares) in f32
/// and rounds the result once to the 16-bit type, nearest even: a sum over
/// p ranks rounds p - 1 times, in MPI's order (docs/precision.md).
template <typename Format, ReduceKind K>
void halfCombine(void *in, void *inout, int *len, MPI_Datatype *) {
  const auto *a = static_cast<const uint16_t *>(in);
  auto *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = static_cast<float>(Format::load(a[i]));
    float y = static_cast<float>(Format::load(b[i]));
    float r = ops::Reduce<K, float>::combine(y, x);
    b[i] = ops::convertValue<ops::F32Format, Format>(r);
  }
}

template <typename Format> MPI_Op halfOp(ReduceKind k) {
  static MPI_Op ops[3] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  MPI_User_function *fns[3] = {&halfCombine<Format, ReduceKind::Sum>,
                               &halfCombine<Format, ReduceKind::Max>,
                               &halfCombine<Format, ReduceKind::Min>};
  int i = k == ReduceKind::Sum ? 0 : k == ReduceKind::Max ? 1 : 2;
  if (ops[i] == MPI_OP_NULL) // freed by MPI_Finalize
    checkMpi(MPI_Op_create(fns[i], /*commute=*/1, &ops[i]), "MPI_Op_create");
  return ops[i];
}
} // namespace

MPI_Op mpiOp(ReduceKind k, DType t) {
  if (t == DType::BF16)
    return halfOp<ops::BF16Format>(k);
  if (t == DType::F16)
    return halfOp<ops::F16Format>(k);
  check(t == DType::F32 || t == DType::F64 || t == DType::I32,
        "MPI reductions of ", dtypeName(t),
        " are not supported on the cpu "
        "backend");
  switch (k) {
  case ReduceKind::Sum:
    return MPI_SUM;
  case ReduceKind::Max:
    return MPI_MAX;
  case ReduceKind::Min:
    return MPI_MIN;
  }
  fail("invalid reduce kind");
}

MpiGroups::~MpiGroups() {
  if (!mpiActive())
    return;
  for (auto &[axes, comm] : comms_)
    MPI_Comm_free(&comm);
}

MPI_Comm MpiGroups::get(const GroupPlan &group) {
  auto it = comms_.find(group.axes);
  if (it != comms_.end())
    return it->second;
  check(mpiActive(), "collective over a group of ", group.size,
        " ranks needs MPI to be initialized");
  MPI_Comm comm;
  checkMpi(MPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(group.color),
                          static_cast<int>(group.position), &comm),
           "MPI_Comm_split");
  int size = 0;
  MPI_Comm_size(comm, &size);
  check(size == group.size, "MPI group has ", size, " ranks, expected ",
        group.size, " (is the world size the mesh size?)");
  comms_.emplace(group.axes, comm);
  return comm;
}

} // namespace weft::rt

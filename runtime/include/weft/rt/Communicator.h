//===- Communicator.h - Collectives over groups of ranks --------*- C++ -*-===//
//
// Communication, separate from compute (c10d's ProcessGroup): a Communicator
// runs collectives on contiguous buffers of one kind of memory (host for
// MpiCommunicator, device for NcclCommunicator) over the group of a
// GroupPlan. Every collective has an asynchronous form returning a Work
// handle; the blocking form is start + wait. Backend owns one Communicator
// and its collective methods (pack, communicate, unpack) call the blocking
// forms; the asynchronous ones are the seam for overlapping communication
// with compute.
//
// Lifetime rules of the asynchronous forms:
//  - the send and receive buffers must stay alive and untouched until
//    wait() returned (or isCompleted() said true): the library may read and
//    write them at any time before;
//  - the GroupPlan must outlive the Work (Backend's groups do);
//  - every rank of a group must start the group's collectives in the same
//    order (as for blocking collectives). Waits may come in any order.
// Destroying a Work that was not waited for waits for it first (buffers
// could otherwise be written after their release). A Work must not outlive
// its Communicator.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_COMMUNICATOR_H
#define WEFT_RT_COMMUNICATOR_H

#include "weft/rt/CollectivePlan.h"
#include "weft/rt/DType.h"
#include "weft/rt/Kinds.h"
#include "weft/rt/Mesh.h"
#include "weft/rt/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace weft::rt {

/// What a Communicator's operations are: the four collectives of the local
/// view plus the gather of host bytes to world rank 0 that outputs use.
enum class CommOp : int {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  GatherToRoot,
  // The root collectives of the local view (issue 33).
  Broadcast,
  ReduceTo,
  GatherTo,
  ScatterFrom,
  // Point to point (issue 33).
  Permute
};
/// "all_reduce", ..., "gather_to_root" (the names of the IR ops).
const char *commOpName(CommOp op);

/// An operation in flight.
class Work {
public:
  virtual ~Work();
  /// Returns once the operation completed on this rank: host buffers may be
  /// read/reused. For device communicators it orders the backend's compute
  /// stream after the operation (the host does not block unless a timeout
  /// is set). Throws Error when the library reports a failure. Idempotent.
  virtual void wait() = 0;
  /// True once the operation completed (never blocks).
  virtual bool isCompleted() = 0;
  /// Seconds from the operation's start to its completion, once completed
  /// and when the communicator knows (ThreadedCommunicator); -1 otherwise.
  virtual double secondsInFlight() const { return -1; }
};

/// Called when a wait exceeds the communicator's timeout, with the message
/// `weft: error: rank R: collective KIND over AXES did not complete within
/// S s`. The default prints it and calls MPI_Abort (every rank ends, exit
/// non-zero); tests install one that throws.
using CommTimeoutHandler = std::function<void(const std::string &message)>;

class Communicator {
public:
  /// `mesh` names the axes in messages; `rank` is this rank's mesh index.
  Communicator(Mesh mesh, int64_t rank);
  virtual ~Communicator();
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  virtual const char *name() const = 0;
  /// Where the buffers of the collectives live.
  virtual Device device() const = 0;
  /// Whether a started operation moves while the caller computes (NCCL's
  /// own stream, MPI behind a progress thread). When not, Backend's start
  /// forms run the collective at once: a plain nonblocking MPI collective
  /// would only move inside the wait, slower than the blocking call.
  virtual bool progressesAsync() const { return false; }

  //===--- Asynchronous forms ----------------------------------------------//
  // Chunks of the communication buffer are ordered by group position
  // (CollectivePlan.h). `count`/`chunk` are elements of `dtype`. Groups of
  // one work (Backend copies instead of calling them).

  /// `send == recv` is an in-place all-reduce.
  virtual std::unique_ptr<Work> startAllReduce(const void *send, void *recv,
                                               int64_t count, DType dtype,
                                               ReduceKind kind,
                                               const GroupPlan &group) = 0;
  /// recv holds group.size chunks of `chunk` elements.
  virtual std::unique_ptr<Work> startAllGather(const void *send, void *recv,
                                               int64_t chunk, DType dtype,
                                               const GroupPlan &group) = 0;
  /// send holds group.size chunks of `chunk` elements; recv one.
  virtual std::unique_ptr<Work> startReduceScatter(const void *send, void *recv,
                                                   int64_t chunk, DType dtype,
                                                   ReduceKind kind,
                                                   const GroupPlan &group) = 0;
  /// Chunk q of send goes to position q; chunk q of recv comes from it.
  virtual std::unique_ptr<Work> startAllToAll(const void *send, void *recv,
                                              int64_t chunk, DType dtype,
                                              const GroupPlan &group) = 0;
  /// Gathers `bytes` HOST bytes from every world rank to world rank 0 (recv
  /// holds world-size * bytes there and is ignored elsewhere).
  virtual std::unique_ptr<Work>
  startGatherBytesToRoot(const void *send, void *recv, std::size_t bytes) = 0;

  //===--- Root collectives (issue 33) -------------------------------------//
  // `root` is a position in `group`. Buffers that only the root reads or
  // writes (reduce_to's and gather_to's recv, scatter_from's send) may be
  // null on the other ranks. There are no blocking library forms: every
  // rank starts and waits, so blocking and nonblocking never mix.

  /// `buf` (count elements): sent from the root, received by every other
  /// rank in place.
  virtual std::unique_ptr<Work> startBroadcast(void *buf, int64_t count,
                                               DType dtype, int64_t root,
                                               const GroupPlan &group) = 0;
  /// The reduction of every rank's `send` into the root's `recv` (disjoint
  /// buffers of `count` elements).
  virtual std::unique_ptr<Work> startReduceTo(const void *send, void *recv,
                                              int64_t count, DType dtype,
                                              ReduceKind kind, int64_t root,
                                              const GroupPlan &group) = 0;
  /// The root's recv holds group.size chunks of `chunk` elements, chunk q
  /// from position q.
  virtual std::unique_ptr<Work> startGatherTo(const void *send, void *recv,
                                              int64_t chunk, DType dtype,
                                              int64_t root,
                                              const GroupPlan &group) = 0;
  /// The root's send holds group.size chunks; position q receives chunk q.
  virtual std::unique_ptr<Work> startScatterFrom(const void *send, void *recv,
                                                 int64_t chunk, DType dtype,
                                                 int64_t root,
                                                 const GroupPlan &group) = 0;

  //===--- Point to point (issue 33) ---------------------------------------//
  /// Sends `count` elements of `send` to group position `sendTo` and
  /// receives `count` into `recv` from position `recvFrom` (-1: none of
  /// either; neither is this rank's own position). Every rank of the
  /// group calls it, in the same order as the group's other operations.
  virtual std::unique_ptr<Work> startPermute(const void *send, void *recv,
                                             int64_t count, DType dtype,
                                             int64_t sendTo, int64_t recvFrom,
                                             const GroupPlan &group) = 0;

  //===--- Blocking forms: start + wait ------------------------------------//
  // By default never the library's blocking calls: MPI does not match a
  // blocking collective with a nonblocking one, so mixing them across ranks
  // (one rank waiting asynchronously, or with a timeout) would deadlock.
  // After agreeOnTimeout() found no timeout on any rank, a communicator may
  // use the library's blocking calls here (MpiCommunicator does: Open MPI's
  // nonblocking all-reduce measured 1.55-1.8x its blocking one); every rank
  // then makes the same choice, and blocking forms must then be used by
  // every rank alike (as SPMD programs do).
  virtual void allReduce(const void *send, void *recv, int64_t count,
                         DType dtype, ReduceKind kind, const GroupPlan &group) {
    startAllReduce(send, recv, count, dtype, kind, group)->wait();
  }
  virtual void allGather(const void *send, void *recv, int64_t chunk,
                         DType dtype, const GroupPlan &group) {
    startAllGather(send, recv, chunk, dtype, group)->wait();
  }
  virtual void reduceScatter(const void *send, void *recv, int64_t chunk,
                             DType dtype, ReduceKind kind,
                             const GroupPlan &group) {
    startReduceScatter(send, recv, chunk, dtype, kind, group)->wait();
  }
  virtual void allToAll(const void *send, void *recv, int64_t chunk,
                        DType dtype, const GroupPlan &group) {
    startAllToAll(send, recv, chunk, dtype, group)->wait();
  }
  void gatherBytesToRoot(const void *send, void *recv, std::size_t bytes) {
    startGatherBytesToRoot(send, recv, bytes)->wait();
  }

  //===--- Watchdog --------------------------------------------------------//
  /// A wait longer than `seconds` (0: no limit, the default) calls the
  /// handler (null: the default, print + MPI_Abort). Applies to waits
  /// started after the call.
  /// Virtual: a decorator (ThreadedCommunicator) forwards it.
  virtual void setTimeout(double seconds, CommTimeoutHandler handler = nullptr);
  double timeout() const { return timeoutSeconds_; }
  /// Collective over the world (every rank must call it, after
  /// setTimeout): records whether no rank has a timeout, or every rank's
  /// timeout is enforced by its watchdog thread (rankstatus::startWatchdog),
  /// which lets the blocking forms use the library's blocking collectives.
  /// The program harness calls it once every rank loaded its inputs.
  virtual void agreeOnTimeout();
  /// True when agreeOnTimeout() allowed the blocking forms.
  bool blockingAgreed() const { return blockingAgreed_; }

  const Mesh &mesh() const { return mesh_; }
  int64_t rank() const { return rank_; }

  // For Work implementations:
  /// Ends the process (exit 1, one line on stderr) when the launcher that
  /// started it (mpirun or its daemon) has died: a job killed around a
  /// waiting rank must not leave it spinning. Called by waits that poll.
  void exitIfLauncherGone() const;
  /// The timeout message for `op` over `group` (null: the world).
  std::string timeoutMessage(CommOp op, const GroupPlan *group) const;
  /// Reports a timeout through the handler. Returns only if the handler
  /// returns (it may throw); the wait then goes on without a limit.
  void timedOut(CommOp op, const GroupPlan *group) const;

private:
  Mesh mesh_;
  int64_t rank_;
  bool blockingAgreed_ = false;
  double timeoutSeconds_ = 0;
  CommTimeoutHandler onTimeout_;
};

/// The element count of one MPI call, checked: `n` must be in [0, INT_MAX]
/// (MPI's counts are int). Throws Error naming `op` otherwise. NCCL counts
/// are size_t and need no such limit.
int mpiCount(int64_t n, CommOp op);

/// The largest timeout accepted (a week): larger values are typos, and
/// deadlines stay far from overflowing the clock.
inline constexpr double kMaxCommTimeout = 7 * 24 * 3600.0;

/// The timeout of $WEFT_COMM_TIMEOUT (seconds, >= 0; `unset` when unset).
/// Throws Error on a malformed value.
double commTimeoutFromEnv(double unset = 0);

} // namespace weft::rt

#endif // WEFT_RT_COMMUNICATOR_H

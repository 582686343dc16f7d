//===- ThreadedCommunicator.h - Collectives progressed on a thread -*- C++
//-*-===//
//
// A Communicator decorator that gives asynchronous collectives a progress
// thread (issue 13). MPI moves the data of a nonblocking collective only
// inside MPI calls; a collective started before a long GEMM would otherwise
// sit still until its wait. The thread starts every collective submitted to
// it, in submission order, and tests the ones in flight every few
// microseconds (sleeping in between, so it does not take a core from the
// compute), so the communication runs while the step computes.
//
// Ordering: every rank must start a group's collectives in the same order.
// All operations go through the thread's queue while any is queued or in
// flight; a blocking operation with nothing in flight runs directly on the
// calling thread (no hand-off latency for programs without asynchronous
// collectives), under the same mutex the thread holds around its MPI calls,
// so MPI is never entered by two threads at once (MPI_THREAD_SERIALIZED
// suffices).
//
// Errors of an operation (thrown by the inner communicator on the thread)
// are rethrown by its wait(). The timeout (Communicator::setTimeout) is
// enforced by wait() on the waiting thread; with a timeout set, blocking
// operations go through the thread too, so their wait can give up.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_THREADEDCOMMUNICATOR_H
#define WEFT_RT_THREADEDCOMMUNICATOR_H

#include "weft/rt/Communicator.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace weft::rt {

class ThreadedCommunicator final : public Communicator {
public:
  /// Takes over `inner` (same mesh and rank) and starts the thread.
  explicit ThreadedCommunicator(std::unique_ptr<Communicator> inner);
  /// Waits for what is in flight, then stops the thread.
  ~ThreadedCommunicator() override;

  const char *name() const override { return inner_->name(); }
  Device device() const override { return inner_->device(); }
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
  std::unique_ptr<Work> startGatherBytesToRoot(const void *send, void *recv,
                                               std::size_t bytes) override;
  // Root collectives: the inner communicator's start forms, started and
  // tested by the thread.
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
  // Point to point: the inner start form, started and tested by the thread.
  std::unique_ptr<Work> startPermute(const void *send, void *recv,
                                     int64_t count, DType dtype, int64_t sendTo,
                                     int64_t recvFrom,
                                     const GroupPlan &group) override;

  void allReduce(const void *send, void *recv, int64_t count, DType dtype,
                 ReduceKind kind, const GroupPlan &group) override;
  void allGather(const void *send, void *recv, int64_t chunk, DType dtype,
                 const GroupPlan &group) override;
  void reduceScatter(const void *send, void *recv, int64_t chunk, DType dtype,
                     ReduceKind kind, const GroupPlan &group) override;
  void allToAll(const void *send, void *recv, int64_t chunk, DType dtype,
                const GroupPlan &group) override;

  /// The limit applies to the waits of this communicator (the inner one
  /// runs without: its call on the progress thread completes whenever the
  /// group does).
  void setTimeout(double seconds,
                  CommTimeoutHandler handler = nullptr) override;
  /// Agrees for this communicator and for the inner one.
  void agreeOnTimeout() override;

  Communicator &inner() { return *inner_; }

  /// An operation's shared state (public for the Work it hands out).
  struct Ticket;
  /// Runs queued blocking operations on the calling thread, in order, up
  /// to `t`, when the progress thread is not in MPI (a waiting thread
  /// helps instead of waiting to be scheduled). Returns when `t` is done,
  /// the queue's front is not blocking, or the thread is busy.
  void helpWith(Ticket &t);

private:
  /// Starts the operation: returns its Work while in flight, null once it
  /// completed (a blocking call) or failed (its ticket carries the error).
  using Start = std::function<std::unique_ptr<Work>()>;
  struct Queued {
    std::shared_ptr<Ticket> ticket;
    Start start;
    bool blocking = false; // completes inside start()
  };
  std::unique_ptr<Work> submit(CommOp op, const GroupPlan *group, Start start,
                               bool blocking);
  /// Runs `q.start` (mpi_ held): finishes its ticket unless in flight.
  std::unique_ptr<Work> runQueued(Queued &q);
  /// Runs `blocking` here when nothing is queued or in flight, else on the
  /// thread after them, and waits.
  void runBlocking(CommOp op, const GroupPlan *group,
                   const std::function<void()> &blocking);
  void loop();

  std::unique_ptr<Communicator> inner_;
  std::mutex mutex_; // the queue, counts and stop flag
  std::mutex mpi_;   // held around every call into the inner communicator
  std::condition_variable wake_;
  std::deque<Queued> queue_;
  int inFlight_ = 0; // started by the thread, not completed
  bool stop_ = false;
  std::thread thread_;
};

/// Whether the CPU backend should put its MPI communicator behind a
/// progress thread: more than one rank, MPI provides at least
/// MPI_THREAD_SERIALIZED, and a core is free for it (fewer ranks on this
/// node, OMPI_COMM_WORLD_LOCAL_SIZE, than hardware threads: on a node whose
/// every core computes, the thread's copies would take time from the
/// compute; measured in docs/overlap.md). WEFT_RT_COMM_THREAD=1 forces it
/// on, =0 off.
bool wantCommThread(int64_t worldSize);

} // namespace weft::rt

#endif // WEFT_RT_THREADEDCOMMUNICATOR_H

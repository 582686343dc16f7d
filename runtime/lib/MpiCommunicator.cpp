//===- MpiCommunicator.cpp - Nonblocking MPI collectives ------------------===//

#include "weft/rt/MpiCommunicator.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiReduceScatter.h"
#include "weft/rt/RankStatus.h"

#include <chrono>
#include <climits>
#include <functional>
#include <thread>
#include <vector>

namespace weft::rt {

namespace {

class MpiWork final : public Work {
public:
  /// `finish` (may be empty) runs once, on this rank, after every request
  /// completed: the local part of an operation made of messages.
  MpiWork(std::vector<MPI_Request> requests, const Communicator &comm,
          CommOp op, const GroupPlan *group, std::function<void()> finish = {})
      : requests_(std::move(requests)), comm_(comm), op_(op), group_(group),
        finish_(std::move(finish)) {}

  ~MpiWork() override {
    if (!done_ && mpiActive() && !requests_.empty())
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(),
                  MPI_STATUSES_IGNORE);
  }

  void wait() override {
    if (done_)
      return;
    double limit = comm_.timeout();
    if (limit > 0)
      waitUntil(std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(limit)));
    if (!done_) {
      checkMpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(),
                           MPI_STATUSES_IGNORE),
               commOpName(op_));
      complete();
    }
  }

  bool isCompleted() override {
    if (!done_) {
      int flag = 0;
      checkMpi(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(),
                           &flag, MPI_STATUSES_IGNORE),
               commOpName(op_));
      if (flag)
        complete();
    }
    return done_;
  }

private:
  void complete() {
    done_ = true;
    if (finish_)
      finish_();
  }

  /// Tests until the requests complete or the deadline passes (then the
  /// communicator's timeout handler runs). Spins first, then sleeps 50 us
  /// between tests so a long wait does not take a core from the others.
  void waitUntil(std::chrono::steady_clock::time_point deadline) {
    for (int spins = 0;; ++spins) {
      if (isCompleted())
        return;
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        comm_.timedOut(op_, group_);
        return;
      }
      if (spins > 1000) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        if (spins % 4096 == 0)
          comm_.exitIfLauncherGone();
      }
    }
  }

  std::vector<MPI_Request> requests_;
  const Communicator &comm_;
  CommOp op_;
  const GroupPlan *group_;
  std::function<void()> finish_;
  bool done_ = false;
};

} // namespace

std::unique_ptr<Work> makeMpiWork(MPI_Request request, const Communicator &comm,
                                  CommOp op, const GroupPlan *group) {
  return std::make_unique<MpiWork>(std::vector<MPI_Request>{request}, comm, op,
                                   group);
}

namespace {
void waitWatched(MPI_Request req, const Communicator &comm) {
  uint64_t seq = rankstatus::enter(CommOp::AllReduce, "the world");
  rankstatus::setWaiting(seq, true);
  makeMpiWork(req, comm, CommOp::AllReduce, nullptr)->wait();
  rankstatus::setWaiting(seq, false);
}
} // namespace

void watchedWorldAllreduce(const Communicator &comm, const void *send,
                           void *recv, int count, MPI_Datatype type,
                           MPI_Op op) {
  MPI_Request req;
  checkMpi(MPI_Iallreduce(send, recv, count, type, op, MPI_COMM_WORLD, &req),
           "MPI_Iallreduce");
  waitWatched(req, comm);
}

void watchedWorldBarrier(const Communicator &comm) {
  MPI_Request req;
  checkMpi(MPI_Ibarrier(MPI_COMM_WORLD, &req), "MPI_Ibarrier");
  waitWatched(req, comm);
}

std::unique_ptr<Work> startMpiGatherBytesToRoot(const Communicator &comm,
                                                const void *send, void *recv,
                                                std::size_t bytes) {
  check(mpiActive(), "gather to root needs MPI to be initialized");
  check(bytes <= static_cast<std::size_t>(INT_MAX), "gather_to_root of ", bytes,
        " bytes per rank exceeds the MPI count limit (", INT_MAX, ")");
  int n = static_cast<int>(bytes);
  MPI_Request req;
  checkMpi(MPI_Igather(send, n, MPI_BYTE, recv, n, MPI_BYTE, 0, MPI_COMM_WORLD,
                       &req),
           "MPI_Igather");
  return makeMpiWork(req, comm, CommOp::GatherToRoot, nullptr);
}

MpiCommunicator::MpiCommunicator(const Mesh &mesh, int64_t rank)
    : Communicator(mesh, rank) {
  if (mpiActive()) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size == mesh.numDevices(), "mesh ", mesh.str(), " has ",
          mesh.numDevices(), " devices but MPI runs ", size, " ranks");
  }
}

std::unique_ptr<Work> MpiCommunicator::startAllReduce(const void *send,
                                                      void *recv, int64_t n,
                                                      DType dtype,
                                                      ReduceKind kind,
                                                      const GroupPlan &group) {
  const CommOp op = CommOp::AllReduce;
  MPI_Op mop = mpiOp(kind, dtype);
  MPI_Request req;
  checkMpi(MPI_Iallreduce(send == recv ? MPI_IN_PLACE : send, recv,
                          mpiCount(n, op), mpiType(dtype), mop,
                          groups_.get(group), &req),
           "MPI_Iallreduce");
  return makeMpiWork(req, *this, op, &group);
}

std::unique_ptr<Work> MpiCommunicator::startAllGather(const void *send,
                                                      void *recv, int64_t chunk,
                                                      DType dtype,
                                                      const GroupPlan &group) {
  const CommOp op = CommOp::AllGather;
  int n = mpiCount(chunk, op);
  MPI_Request req;
  checkMpi(MPI_Iallgather(send, n, mpiType(dtype), recv, n, mpiType(dtype),
                          groups_.get(group), &req),
           "MPI_Iallgather");
  return makeMpiWork(req, *this, op, &group);
}

std::unique_ptr<Work>
MpiCommunicator::startReduceScatter(const void *send, void *recv, int64_t chunk,
                                    DType dtype, ReduceKind kind,
                                    const GroupPlan &group) {
  // A direct exchange (MpiReduceScatter.h); the Work owns its scratch.
  struct State {
    DirectReduceScatter exchange;
    std::vector<char> scratch;
  };
  auto state = std::make_shared<State>(State{
      DirectReduceScatter(send, recv, chunk, dtype, kind, groups_.get(group)),
      {}});
  state->scratch.resize(state->exchange.scratchBytes());
  state->exchange.post(state->scratch.data());
  std::vector<MPI_Request> requests = state->exchange.requests();
  return std::make_unique<MpiWork>(std::move(requests), *this,
                                   CommOp::ReduceScatter, &group,
                                   [state] { state->exchange.finish(); });
}

std::unique_ptr<Work> MpiCommunicator::startAllToAll(const void *send,
                                                     void *recv, int64_t chunk,
                                                     DType dtype,
                                                     const GroupPlan &group) {
  const CommOp op = CommOp::AllToAll;
  int n = mpiCount(chunk, op);
  MPI_Request req;
  checkMpi(MPI_Ialltoall(send, n, mpiType(dtype), recv, n, mpiType(dtype),
                         groups_.get(group), &req),
           "MPI_Ialltoall");
  return makeMpiWork(req, *this, op, &group);
}

bool MpiCommunicator::useBlocking() const {
  // With a timeout, the blocking forms too once every rank's watchdog
  // thread enforces it (RankStatus.h): the agreement made the same choice
  // on every rank.
  return blockingAgreed();
}

void MpiCommunicator::allReduce(const void *send, void *recv, int64_t n,
                                DType dtype, ReduceKind kind,
                                const GroupPlan &group) {
  if (!useBlocking())
    return Communicator::allReduce(send, recv, n, dtype, kind, group);
  checkMpi(MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv,
                         mpiCount(n, CommOp::AllReduce), mpiType(dtype),
                         mpiOp(kind, dtype), groups_.get(group)),
           "MPI_Allreduce");
}

void MpiCommunicator::allGather(const void *send, void *recv, int64_t chunk,
                                DType dtype, const GroupPlan &group) {
  if (!useBlocking())
    return Communicator::allGather(send, recv, chunk, dtype, group);
  int n = mpiCount(chunk, CommOp::AllGather);
  checkMpi(MPI_Allgather(send, n, mpiType(dtype), recv, n, mpiType(dtype),
                         groups_.get(group)),
           "MPI_Allgather");
}

void MpiCommunicator::reduceScatter(const void *send, void *recv, int64_t chunk,
                                    DType dtype, ReduceKind kind,
                                    const GroupPlan &group) {
  if (!useBlocking())
    return Communicator::reduceScatter(send, recv, chunk, dtype, kind, group);
  // A direct exchange (MpiReduceScatter.h), not MPI_Reduce_scatter_block;
  // the scratch is kept from call to call.
  DirectReduceScatter exchange(send, recv, chunk, dtype, kind,
                               groups_.get(group));
  if (scratch_.size() < exchange.scratchBytes())
    scratch_.resize(exchange.scratchBytes());
  exchange.post(scratch_.data());
  std::vector<MPI_Request> &requests = exchange.requests();
  checkMpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                       MPI_STATUSES_IGNORE),
           "reduce_scatter");
  exchange.finish();
}

void MpiCommunicator::allToAll(const void *send, void *recv, int64_t chunk,
                               DType dtype, const GroupPlan &group) {
  if (!useBlocking())
    return Communicator::allToAll(send, recv, chunk, dtype, group);
  int n = mpiCount(chunk, CommOp::AllToAll);
  checkMpi(MPI_Alltoall(send, n, mpiType(dtype), recv, n, mpiType(dtype),
                        groups_.get(group)),
           "MPI_Alltoall");
}

//===--- Root collectives -------------------------------------------------===//

std::unique_ptr<Work> MpiCommunicator::startBroadcast(void *buf, int64_t count,
                                                      DType dtype, int64_t root,
                                                      const GroupPlan &group) {
  const CommOp op = CommOp::Broadcast;
  MPI_Request req;
  checkMpi(MPI_Ibcast(buf, mpiCount(count, op), mpiType(dtype),
                      static_cast<int>(root), groups_.get(group), &req),
           "MPI_Ibcast");
  return makeMpiWork(req, *this, op, &group);
}

std::unique_ptr<Work>
MpiCommunicator::startReduceTo(const void *send, void *recv, int64_t count,
                               DType dtype, ReduceKind kind, int64_t root,
                               const GroupPlan &group) {
  const CommOp op = CommOp::ReduceTo;
  MPI_Request req;
  checkMpi(MPI_Ireduce(send, recv, mpiCount(count, op), mpiType(dtype),
                       mpiOp(kind, dtype), static_cast<int>(root),
                       groups_.get(group), &req),
           "MPI_Ireduce");
  return makeMpiWork(req, *this, op, &group);
}

std::unique_ptr<Work> MpiCommunicator::startGatherTo(const void *send,
                                                     void *recv, int64_t chunk,
                                                     DType dtype, int64_t root,
                                                     const GroupPlan &group) {
  const CommOp op = CommOp::GatherTo;
  int n = mpiCount(chunk, op);
  MPI_Request req;
  checkMpi(MPI_Igather(send, n, mpiType(dtype), recv, n, mpiType(dtype),
                       static_cast<int>(root), groups_.get(group), &req),
           "MPI_Igather");
  return makeMpiWork(req, *this, op, &group);
}

std::unique_ptr<Work>
MpiCommunicator::startScatterFrom(const void *send, void *recv, int64_t chunk,
                                  DType dtype, int64_t root,
                                  const GroupPlan &group) {
  const CommOp op = CommOp::ScatterFrom;
  int n = mpiCount(chunk, op);
  MPI_Request req;
  checkMpi(MPI_Iscatter(send, n, mpiType(dtype), recv, n, mpiType(dtype),
                        static_cast<int>(root), groups_.get(group), &req),
           "MPI_Iscatter");
  return makeMpiWork(req, *this, op, &group);
}

//===--- Point to point ---------------------------------------------------===//

std::unique_ptr<Work> MpiCommunicator::startPermute(const void *send,
                                                    void *recv, int64_t count,
                                                    DType dtype, int64_t sendTo,
                                                    int64_t recvFrom,
                                                    const GroupPlan &group) {
  const CommOp op = CommOp::Permute;
  int n = mpiCount(count, op);
  MPI_Comm comm = groups_.get(group);
  // One tag: MPI keeps the order of messages between two ranks on one
  // communicator, and every rank posts the group's permutes in program
  // order, so the k-th receive from a rank matches its k-th send.
  constexpr int kTag = 33;
  std::vector<MPI_Request> requests;
  if (recvFrom >= 0) {
    requests.emplace_back();
    checkMpi(MPI_Irecv(recv, n, mpiType(dtype), static_cast<int>(recvFrom),
                       kTag, comm, &requests.back()),
             "MPI_Irecv");
  }
  if (sendTo >= 0) {
    requests.emplace_back();
    checkMpi(MPI_Isend(send, n, mpiType(dtype), static_cast<int>(sendTo), kTag,
                       comm, &requests.back()),
             "MPI_Isend");
  }
  return std::make_unique<MpiWork>(std::move(requests), *this, op, &group);
}

std::unique_ptr<Work>
MpiCommunicator::startGatherBytesToRoot(const void *send, void *recv,
                                        std::size_t bytes) {
  return startMpiGatherBytesToRoot(*this, send, recv, bytes);
}

} // namespace weft::rt

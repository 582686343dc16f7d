//===- ThreadedCommunicator.cpp - Collectives progressed on a thread ------===//

#include "weft/rt/ThreadedCommunicator.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiComm.h"
#include "weft/rt/RankStatus.h"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace weft::rt {

struct ThreadedCommunicator::Ticket {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
  std::chrono::steady_clock::time_point startedAt, doneAt;
};

namespace {

using Clock = std::chrono::steady_clock;

/// How long the thread sleeps between two rounds of tests of the
/// operations in flight: short against a collective's time (tens of
/// microseconds and up), long enough not to take a core from the compute.
constexpr auto kPollInterval = std::chrono::microseconds(20);

class ThreadWork final : public Work {
public:
  ThreadWork(std::shared_ptr<ThreadedCommunicator::Ticket> t,
             ThreadedCommunicator &comm, CommOp op, const GroupPlan *group)
      : ticket_(std::move(t)), comm_(comm), op_(op), group_(group) {}
  ~ThreadWork() override {
    // Buffers must not be released under a collective in flight.
    try {
      wait();
    } catch (...) {
      // The error was the operation's; a destructor cannot report it.
    }
  }

  void wait() override {
    if (waited_)
      return;
    // Rather than wait for the thread to be scheduled, run what is queued
    // up to this operation here (in order; the thread may be busy or
    // descheduled on a machine whose cores all compute).
    if (comm_.timeout() == 0)
      comm_.helpWith(*ticket_);
    std::unique_lock<std::mutex> lock(ticket_->m);
    double limit = comm_.timeout();
    if (limit > 0) {
      auto deadline =
          Clock::now() + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(limit));
      // In slices of a second, to notice a launcher that died around us.
      while (!ticket_->done) {
        auto slice = std::min(deadline, Clock::now() + std::chrono::seconds(1));
        if (ticket_->cv.wait_until(lock, slice, [&] { return ticket_->done; }))
          break;
        if (Clock::now() >= deadline) {
          lock.unlock();
          comm_.timedOut(op_, group_); // Returns only if the handler does.
          lock.lock();
          break;
        }
        lock.unlock();
        comm_.exitIfLauncherGone();
        lock.lock();
      }
    }
    ticket_->cv.wait(lock, [&] { return ticket_->done; });
    waited_ = true;
    if (ticket_->error)
      std::rethrow_exception(ticket_->error);
  }

  bool isCompleted() override {
    std::lock_guard<std::mutex> lock(ticket_->m);
    return ticket_->done;
  }

  double secondsInFlight() const override {
    std::lock_guard<std::mutex> lock(ticket_->m);
    if (!ticket_->done)
      return -1;
    return std::chrono::duration<double>(ticket_->doneAt - ticket_->startedAt)
        .count();
  }

private:
  std::shared_ptr<ThreadedCommunicator::Ticket> ticket_;
  ThreadedCommunicator &comm_;
  CommOp op_;
  const GroupPlan *group_;
  bool waited_ = false;
};

void finish(ThreadedCommunicator::Ticket &t, std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(t.m);
    t.done = true;
    t.doneAt = Clock::now();
    t.error = std::move(error);
  }
  t.cv.notify_all();
}

} // namespace

ThreadedCommunicator::ThreadedCommunicator(std::unique_ptr<Communicator> inner)
    : Communicator(inner->mesh(), inner->rank()), inner_(std::move(inner)) {
  thread_ = std::thread([this] { loop(); });
}

ThreadedCommunicator::~ThreadedCommunicator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ThreadedCommunicator::setTimeout(double seconds,
                                      CommTimeoutHandler handler) {
  // Only here: the waiting thread enforces the limit (ThreadWork::wait)
  // while the progress thread stays in the library's call, so a rank that
  // joins late still completes the collective afterwards.
  Communicator::setTimeout(seconds, std::move(handler));
}

void ThreadedCommunicator::agreeOnTimeout() {
  // A world collective: nothing may be in flight (the harness calls it
  // before the first step).
  std::lock_guard<std::mutex> lock(mpi_);
  Communicator::agreeOnTimeout();
  inner_->agreeOnTimeout();
}

void ThreadedCommunicator::loop() {
  struct Running {
    std::shared_ptr<Ticket> ticket;
    std::unique_ptr<Work> work;
  };
  std::vector<Running> running;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock,
                 [&] { return stop_ || !queue_.empty() || !running.empty(); });
      if (stop_ && queue_.empty() && running.empty())
        return;
    }
    std::deque<Queued> starts;
    bool progressed = false;
    {
      // mpi_ before taking the queue: a waiting thread (helpWith) runs the
      // queue's front only while holding mpi_, so operations taken here
      // cannot be overtaken by one submitted after them. (Taking the queue
      // first let a later blocking operation run on the waiting thread
      // before the earlier ones this thread had taken: two ranks then
      // entered two collectives in different orders and hung.)
      std::lock_guard<std::mutex> mpi(mpi_);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        starts.swap(queue_);
      }
      progressed = !starts.empty();
      // Start in submission order: every rank submits a group's
      // collectives in program order.
      for (Queued &q : starts)
        if (std::unique_ptr<Work> work = runQueued(q))
          running.push_back({q.ticket, std::move(work)});
      for (std::size_t i = 0; i < running.size();) {
        bool done = false;
        std::exception_ptr error;
        try {
          done = running[i].work->isCompleted();
        } catch (...) {
          done = true;
          error = std::current_exception();
        }
        if (!done) {
          ++i;
          continue;
        }
        finish(*running[i].ticket, error);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        progressed = true;
        std::lock_guard<std::mutex> lock(mutex_);
        --inFlight_;
      }
    }
    if (!running.empty() && !progressed)
      std::this_thread::sleep_for(kPollInterval);
  }
}

std::unique_ptr<Work> ThreadedCommunicator::runQueued(Queued &q) {
  {
    std::lock_guard<std::mutex> lock(q.ticket->m);
    q.ticket->startedAt = Clock::now();
  }
  try {
    std::unique_ptr<Work> work = q.start();
    if (work)
      return work;              // In flight: the thread tests it.
    finish(*q.ticket, nullptr); // Completed by a blocking call.
  } catch (...) {
    finish(*q.ticket, std::current_exception());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  --inFlight_;
  return nullptr;
}

void ThreadedCommunicator::helpWith(Ticket &t) {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(t.m);
      if (t.done)
        return;
    }
    // mpi_ before mutex_ (the thread's order): once we hold it, the thread
    // cannot start anything, so taking the queue's front keeps the order.
    std::unique_lock<std::mutex> mpi(mpi_, std::try_to_lock);
    if (!mpi.owns_lock())
      return; // The thread is in MPI: it will get to `t`.
    Queued q;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.empty() || !queue_.front().blocking)
        return;
      q = std::move(queue_.front());
      queue_.pop_front();
    }
    runQueued(q);
  }
}

std::unique_ptr<Work> ThreadedCommunicator::submit(CommOp op,
                                                   const GroupPlan *group,
                                                   Start start, bool blocking) {
  auto ticket = std::make_shared<Ticket>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    check(!stop_, commOpName(op), ": the communicator is shutting down");
    queue_.push_back({ticket, std::move(start), blocking});
    ++inFlight_;
  }
  wake_.notify_all();
  return std::make_unique<ThreadWork>(std::move(ticket), *this, op, group);
}

void ThreadedCommunicator::runBlocking(CommOp op, const GroupPlan *group,
                                       const std::function<void()> &blocking) {
  {
    std::unique_lock<std::mutex> mpi(mpi_);
    std::unique_lock<std::mutex> lock(mutex_);
    // With a timeout the wait must be able to give up: on the thread,
    // unless the watchdog thread enforces it (RankStatus.h).
    if (inFlight_ == 0 && (timeout() == 0 || rankstatus::watchdogRunning())) {
      // Nothing queued or in flight: the thread is idle and cannot enter
      // MPI while we hold mpi_. Run the inner blocking form here.
      lock.unlock();
      blocking();
      return;
    }
  }
  // Queued behind what is in flight: the same blocking call, on the thread.
  // (Never the nonblocking form here: MPI does not match a blocking
  // collective on one rank with a nonblocking one on another, and a rank
  // with nothing in flight runs the blocking form directly.)
  submit(
      op, group,
      [&blocking] {
        blocking();
        return std::unique_ptr<Work>();
      },
      /*blocking=*/true)
      ->wait();
}

std::unique_ptr<Work>
ThreadedCommunicator::startAllReduce(const void *send, void *recv,
                                     int64_t count, DType dtype,
                                     ReduceKind kind, const GroupPlan &group) {
  return submit(
      CommOp::AllReduce, &group,
      [=, this, &group] {
        // The library's blocking form, run on the thread: Open MPI's blocking
        // collectives are much faster than its nonblocking ones
        // (Communicator.h), and the thread is the one that waits.
        inner_->allReduce(send, recv, count, dtype, kind, group);
        return std::unique_ptr<Work>();
      },
      /*blocking=*/true);
}

std::unique_ptr<Work>
ThreadedCommunicator::startAllGather(const void *send, void *recv,
                                     int64_t chunk, DType dtype,
                                     const GroupPlan &group) {
  return submit(
      CommOp::AllGather, &group,
      [=, this, &group] {
        // The library's blocking form, run on the thread: Open MPI's blocking
        // collectives are much faster than its nonblocking ones
        // (Communicator.h), and the thread is the one that waits.
        inner_->allGather(send, recv, chunk, dtype, group);
        return std::unique_ptr<Work>();
      },
      /*blocking=*/true);
}

std::unique_ptr<Work> ThreadedCommunicator::startReduceScatter(
    const void *send, void *recv, int64_t chunk, DType dtype, ReduceKind kind,
    const GroupPlan &group) {
  return submit(
      CommOp::ReduceScatter, &group,
      [=, this, &group] {
        // The library's blocking form, run on the thread: Open MPI's blocking
        // collectives are much faster than its nonblocking ones
        // (Communicator.h), and the thread is the one that waits.
        inner_->reduceScatter(send, recv, chunk, dtype, kind, group);
        return std::unique_ptr<Work>();
      },
      /*blocking=*/true);
}

std::unique_ptr<Work>
ThreadedCommunicator::startAllToAll(const void *send, void *recv, int64_t chunk,
                                    DType dtype, const GroupPlan &group) {
  return submit(
      CommOp::AllToAll, &group,
      [=, this, &group] {
        // The library's blocking form, run on the thread: Open MPI's blocking
        // collectives are much faster than its nonblocking ones
        // (Communicator.h), and the thread is the one that waits.
        inner_->allToAll(send, recv, chunk, dtype, group);
        return std::unique_ptr<Work>();
      },
      /*blocking=*/true);
}

std::unique_ptr<Work>
ThreadedCommunicator::startGatherBytesToRoot(const void *send, void *recv,
                                             std::size_t bytes) {
  return submit(
      CommOp::GatherToRoot, nullptr,
      [=, this] { return inner_->startGatherBytesToRoot(send, recv, bytes); },
      /*blocking=*/false);
}

//===--- Root collectives: the inner start forms, on the thread ----------===//

std::unique_ptr<Work>
ThreadedCommunicator::startBroadcast(void *buf, int64_t count, DType dtype,
                                     int64_t root, const GroupPlan &group) {
  return submit(
      CommOp::Broadcast, &group,
      [=, this, &group] {
        return inner_->startBroadcast(buf, count, dtype, root, group);
      },
      /*blocking=*/false);
}

std::unique_ptr<Work>
ThreadedCommunicator::startReduceTo(const void *send, void *recv, int64_t count,
                                    DType dtype, ReduceKind kind, int64_t root,
                                    const GroupPlan &group) {
  return submit(
      CommOp::ReduceTo, &group,
      [=, this, &group] {
        return inner_->startReduceTo(send, recv, count, dtype, kind, root,
                                     group);
      },
      /*blocking=*/false);
}

std::unique_ptr<Work>
ThreadedCommunicator::startGatherTo(const void *send, void *recv, int64_t chunk,
                                    DType dtype, int64_t root,
                                    const GroupPlan &group) {
  return submit(
      CommOp::GatherTo, &group,
      [=, this, &group] {
        return inner_->startGatherTo(send, recv, chunk, dtype, root, group);
      },
      /*blocking=*/false);
}

std::unique_ptr<Work>
ThreadedCommunicator::startScatterFrom(const void *send, void *recv,
                                       int64_t chunk, DType dtype, int64_t root,
                                       const GroupPlan &group) {
  return submit(
      CommOp::ScatterFrom, &group,
      [=, this, &group] {
        return inner_->startScatterFrom(send, recv, chunk, dtype, root, group);
      },
      /*blocking=*/false);
}

std::unique_ptr<Work>
ThreadedCommunicator::startPermute(const void *send, void *recv, int64_t count,
                                   DType dtype, int64_t sendTo,
                                   int64_t recvFrom, const GroupPlan &group) {
  return submit(
      CommOp::Permute, &group,
      [=, this, &group] {
        return inner_->startPermute(send, recv, count, dtype, sendTo, recvFrom,
                                    group);
      },
      /*blocking=*/false);
}

void ThreadedCommunicator::allReduce(const void *send, void *recv,
                                     int64_t count, DType dtype,
                                     ReduceKind kind, const GroupPlan &group) {
  runBlocking(CommOp::AllReduce, &group, [&] {
    inner_->allReduce(send, recv, count, dtype, kind, group);
  });
}

void ThreadedCommunicator::allGather(const void *send, void *recv,
                                     int64_t chunk, DType dtype,
                                     const GroupPlan &group) {
  runBlocking(CommOp::AllGather, &group,
              [&] { inner_->allGather(send, recv, chunk, dtype, group); });
}

void ThreadedCommunicator::reduceScatter(const void *send, void *recv,
                                         int64_t chunk, DType dtype,
                                         ReduceKind kind,
                                         const GroupPlan &group) {
  runBlocking(CommOp::ReduceScatter, &group, [&] {
    inner_->reduceScatter(send, recv, chunk, dtype, kind, group);
  });
}

void ThreadedCommunicator::allToAll(const void *send, void *recv, int64_t chunk,
                                    DType dtype, const GroupPlan &group) {
  runBlocking(CommOp::AllToAll, &group,
              [&] { inner_->allToAll(send, recv, chunk, dtype, group); });
}

bool wantCommThread(int64_t worldSize) {
  if (worldSize <= 1 || !mpiActive())
    return false;
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_SERIALIZED)
    return false;
  const char *env = std::getenv("WEFT_RT_COMM_THREAD");
  if (env && *env)
    return std::string(env) != "0";
  int64_t local = worldSize;
  if (const char *l = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
    local = std::strtoll(l, nullptr, 10);
  unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 && local > 0 && local < static_cast<int64_t>(cores);
}

} // namespace weft::rt

//===- RankStatus.cpp - What every rank is doing, for the watchdog --------===//

#include "weft/rt/RankStatus.h"

#include "weft/rt/Communicator.h"
#include "weft/rt/MpiComm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace weft::rt::rankstatus {

namespace {

/// One rank's entry. Lock-free 8-byte atomics are address-free, so they
/// work across processes sharing the mapping.
struct Slot {
  std::atomic<uint64_t> seq;     // collectives entered
  std::atomic<uint64_t> waiting; // the collective waited for (0: none)
  std::atomic<int64_t> step;
  std::atomic<int64_t> op;      // CommOp of the last collective entered
  std::atomic<int64_t> sinceNs; // steady clock of the last change
  std::atomic<int64_t> pid;
  char pad[16];
};
static_assert(sizeof(Slot) == 64, "one cache line per rank");

struct Board {
  Slot *slots = nullptr; // world-size entries (only this host's are used)
  std::size_t bytes = 0;
  int rank = 0, size = 1;
  std::vector<char> local; // per world rank: 1 when on this host
  Slot own{};              // used when there is no shared board
  pid_t parent = 0;
};

Board &board() {
  static Board b;
  return b;
}

Slot &mine() {
  Board &b = board();
  return b.slots ? b.slots[b.rank] : b.own;
}

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void touch(Slot &s) { s.sinceNs.store(nowNs(), std::memory_order_relaxed); }

} // namespace

void open() {
  Board &b = board();
  b.parent = ::getppid();
  if (!mpiActive() || b.slots)
    return;
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.size);
  b.local.assign(static_cast<std::size_t>(b.size), 0);
  MPI_Comm node;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, b.rank,
                          MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return;
  int nodeRank = 0, nodeSize = 1;
  MPI_Comm_rank(node, &nodeRank);
  MPI_Comm_size(node, &nodeSize);
  std::vector<int> worldRanks(static_cast<std::size_t>(nodeSize));
  MPI_Allgather(&b.rank, 1, MPI_INT, worldRanks.data(), 1, MPI_INT, node);
  // The host's first rank creates the segment under a fresh name.
  char name[64] = {0};
  b.bytes = sizeof(Slot) * static_cast<std::size_t>(b.size);
  int created = 0;
  if (nodeRank == 0) {
    std::random_device rd;
    std::snprintf(name, sizeof(name), "/weft-status-%d-%08x",
                  static_cast<int>(::getpid()), rd());
    int fd = ::shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) {
      created = ::ftruncate(fd, static_cast<off_t>(b.bytes)) == 0;
      ::close(fd);
      if (!created)
        ::shm_unlink(name);
    }
  }
  MPI_Bcast(&created, 1, MPI_INT, 0, node);
  MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, node);
  int mapped = 0;
  void *p = MAP_FAILED;
  if (created) {
    int fd = ::shm_open(name, O_RDWR, 0600);
    if (fd >= 0) {
      p = ::mmap(nullptr, b.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      ::close(fd);
    }
    mapped = p != MAP_FAILED;
  }
  int allMapped = 0;
  MPI_Allreduce(&mapped, &allMapped, 1, MPI_INT, MPI_MIN, node);
  // Every rank of the host has it mapped (or gave up): the name goes, so
  // the segment lives exactly as long as the mappings.
  if (nodeRank == 0 && created)
    ::shm_unlink(name);
  MPI_Comm_free(&node);
  if (!allMapped) {
    if (p != MAP_FAILED)
      ::munmap(p, b.bytes);
    return;
  }
  b.slots = static_cast<Slot *>(p);
  for (int r : worldRanks)
    b.local[static_cast<std::size_t>(r)] = 1;
  Slot &s = b.slots[b.rank];
  s.pid.store(::getpid(), std::memory_order_relaxed);
  touch(s);
}

namespace {
/// What the current collective runs over, for the watchdog's message
/// (process-local; the board holds numbers only).
std::mutex whereMutex;
std::string whereText;
std::atomic<bool> watchdogStarted{false};
} // namespace

uint64_t enter(CommOp op, const std::string &where) {
  {
    std::lock_guard<std::mutex> lock(whereMutex);
    whereText = where;
  }
  Slot &s = mine();
  s.op.store(static_cast<int64_t>(op), std::memory_order_relaxed);
  touch(s);
  return s.seq.fetch_add(1, std::memory_order_relaxed) + 1;
}

void setStep(int64_t step) {
  Slot &s = mine();
  s.step.store(step, std::memory_order_relaxed);
  touch(s);
}

int64_t step() { return mine().step.load(std::memory_order_relaxed); }

void setWaiting(uint64_t seq, bool waiting) {
  Slot &s = mine();
  s.waiting.store(waiting ? seq : 0, std::memory_order_relaxed);
  touch(s);
}

uint64_t waitingFor() { return mine().waiting.load(std::memory_order_relaxed); }

namespace {
/// Whether process `pid` of this host is stopped (SIGSTOP, a debugger):
/// state T or t in /proc/PID/stat.
bool processStopped(int64_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%lld/stat",
                static_cast<long long>(pid));
  FILE *f = std::fopen(path, "r");
  if (!f)
    return false;
  char buf[512];
  std::size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char *close = std::strrchr(buf, ')');
  return close && close[1] == ' ' && (close[2] == 'T' || close[2] == 't');
}

std::vector<int64_t> membersOrWorld(const std::vector<int64_t> &members) {
  std::vector<int64_t> all = members;
  if (all.empty())
    for (int r = 0; r < board().size; ++r)
      all.push_back(r);
  return all;
}
} // namespace

std::string stopped(const std::vector<int64_t> &members) {
  Board &b = board();
  std::string out;
  if (!b.slots)
    return out;
  for (int64_t r : membersOrWorld(members)) {
    if (r == b.rank || !b.local[static_cast<std::size_t>(r)])
      continue;
    int64_t pid = b.slots[r].pid.load(std::memory_order_relaxed);
    if (pid > 0 && processStopped(pid))
      out += (out.empty() ? "" : ", ") + ("rank " + std::to_string(r) +
                                          " (pid " + std::to_string(pid) + ")");
  }
  return out;
}

std::string describeTimeout(uint64_t seq, const std::vector<int64_t> &members,
                            bool group) {
  std::string missing = laggards(seq, members);
  std::string halted = stopped(members);
  std::string out = missing.empty()
                        ? std::string("; every rank") +
                              (group ? " of the group" : "") + " entered it"
                        : "; not arrived: " + missing;
  if (!halted.empty())
    out += "; stopped (SIGSTOP or a debugger): " + halted;
  return out;
}

std::string laggards(uint64_t seq, const std::vector<int64_t> &members) {
  Board &b = board();
  std::vector<int64_t> all = members;
  if (all.empty())
    for (int r = 0; r < b.size; ++r)
      all.push_back(r);
  std::string out, hidden;
  int64_t now = nowNs();
  for (int64_t r : all) {
    if (r == b.rank)
      continue;
    if (!b.slots || !b.local[static_cast<std::size_t>(r)]) {
      hidden += (hidden.empty() ? "" : ", ") + std::to_string(r);
      continue;
    }
    const Slot &s = b.slots[r];
    uint64_t entered = s.seq.load(std::memory_order_relaxed);
    if (entered >= seq)
      continue;
    uint64_t waiting = s.waiting.load(std::memory_order_relaxed);
    double idle =
        static_cast<double>(now - s.sinceNs.load(std::memory_order_relaxed)) *
        1e-9;
    char buf[256];
    std::snprintf(
        buf, sizeof(buf),
        "rank %lld (pid %lld; entered %llu collective(s)%s%s, step %lld; %s "
        "for %.1f s)",
        static_cast<long long>(r),
        static_cast<long long>(s.pid.load(std::memory_order_relaxed)),
        static_cast<unsigned long long>(entered), entered ? ", the last " : "",
        entered ? commOpName(
                      static_cast<CommOp>(s.op.load(std::memory_order_relaxed)))
                : "",
        static_cast<long long>(s.step.load(std::memory_order_relaxed)),
        waiting ? "waiting in it" : "not in a collective", idle);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  if (!hidden.empty())
    out += (out.empty() ? "" : "; ") + ("rank(s) " + hidden) +
           " on other hosts (not visible from here)";
  return out;
}

bool launcherGone() {
  Board &b = board();
  return b.parent != 0 && ::getppid() != b.parent;
}

namespace {
[[noreturn]] void endProcess(const std::string &line) {
  std::string msg = line + "\n";
  std::fwrite(msg.data(), 1, msg.size(), stderr);
  std::fflush(stderr);
  std::_Exit(1);
}

void watch(double seconds) {
  auto period = std::chrono::duration<double>(std::min(1.0, seconds / 4));
  int64_t limitNs = static_cast<int64_t>(seconds * 1e9);
  Board &b = board();
  for (;;) {
    std::this_thread::sleep_for(period);
    if (launcherGone())
      endProcess("weft: error: rank " + std::to_string(b.rank) +
                 ": the launcher (mpirun) is gone; exiting");
    Slot &s = mine();
    uint64_t seq = s.waiting.load(std::memory_order_relaxed);
    if (!seq)
      continue;
    int64_t waited = nowNs() - s.sinceNs.load(std::memory_order_relaxed);
    if (waited < limitNs || s.waiting.load(std::memory_order_relaxed) != seq)
      continue;
    std::string where;
    {
      std::lock_guard<std::mutex> lock(whereMutex);
      where = whereText;
    }
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%g", seconds);
    std::string msg =
        "weft: error: rank " + std::to_string(b.rank) + ": collective " +
        commOpName(static_cast<CommOp>(s.op.load(std::memory_order_relaxed))) +
        (where.empty() ? "" : " over " + where) + " (collective #" +
        std::to_string(seq);
    if (int64_t st = s.step.load(std::memory_order_relaxed))
      msg += ", step " + std::to_string(st);
    msg += std::string(") did not complete within ") + secs + " s";
    msg += describeTimeout(seq, {}, /*group=*/false);
    endProcess(msg + "; aborting");
  }
}
} // namespace

void startWatchdog(double seconds) {
  if (!(seconds > 0) || watchdogStarted.exchange(true))
    return;
  std::thread(watch, seconds).detach();
}

bool watchdogRunning() { return watchdogStarted.load(); }

} // namespace weft::rt::rankstatus

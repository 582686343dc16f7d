//===- Communicator.cpp - Work, timeouts and count checks -----------------===//

#include "weft/rt/Communicator.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiComm.h"
#include "weft/rt/RankStatus.h"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mpi.h>

namespace weft::rt {

const char *commOpName(CommOp op) {
  switch (op) {
  case CommOp::AllReduce:
    return "all_reduce";
  case CommOp::AllGather:
    return "all_gather";
  case CommOp::ReduceScatter:
    return "reduce_scatter";
  case CommOp::AllToAll:
    return "all_to_all";
  case CommOp::GatherToRoot:
    return "gather_to_root";
  case CommOp::Broadcast:
    return "broadcast";
  case CommOp::ReduceTo:
    return "reduce_to";
  case CommOp::GatherTo:
    return "gather_to";
  case CommOp::ScatterFrom:
    return "scatter_from";
  case CommOp::Permute:
    return "collective_permute";
  }
  return "invalid";
}

Work::~Work() = default;

Communicator::Communicator(Mesh mesh, int64_t rank)
    : mesh_(std::move(mesh)), rank_(rank) {}

Communicator::~Communicator() = default;

void Communicator::setTimeout(double seconds, CommTimeoutHandler handler) {
  check(std::isfinite(seconds) && seconds >= 0 && seconds <= kMaxCommTimeout,
        "collective timeout must be in [0, ", kMaxCommTimeout,
        "] seconds, got ", seconds);
  timeoutSeconds_ = seconds;
  onTimeout_ = std::move(handler);
}

void Communicator::agreeOnTimeout() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  // [a rank without a timeout or with a watchdog thread, a rank with a
  // timeout]: blocking forms are safe when no rank has a timeout, or when
  // every rank's timeout is enforced by its watchdog thread.
  int mine[2] = {timeoutSeconds_ == 0 || rankstatus::watchdogRunning() ? 1 : 0,
                 timeoutSeconds_ > 0 ? 1 : 0};
  int all[2] = {mine[0], mine[1]};
  if (init && !fin) {
    int minMax[2] = {mine[0], -mine[1]};
    checkMpi(MPI_Allreduce(minMax, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
             "MPI_Allreduce");
    all[1] = -all[1];
  }
  blockingAgreed_ = all[1] == 0 || all[0] == 1;
}

std::string Communicator::timeoutMessage(CommOp op,
                                         const GroupPlan *group) const {
  std::string axes = "the world";
  if (group) {
    axes = "{";
    for (std::size_t i = 0; i < group->axes.size(); ++i)
      axes += (i ? "," : "") + mesh_.axis(group->axes[i]).name;
    axes += "}";
  }
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%g", timeoutSeconds_);
  std::string msg = "weft: error: rank " + std::to_string(rank_) +
                    ": collective " + commOpName(op) + " over " + axes;
  // Which collective, in which step, and who is missing (RankStatus.h).
  uint64_t seq = rankstatus::waitingFor();
  if (seq) {
    msg += " (collective #" + std::to_string(seq);
    if (int64_t step = rankstatus::step())
      msg += ", step " + std::to_string(step);
    msg += ")";
  }
  msg += std::string(" did not complete within ") + secs + " s";
  if (seq)
    msg += rankstatus::describeTimeout(
        seq, group ? group->members : std::vector<int64_t>(), group != nullptr);
  return msg;
}

void Communicator::timedOut(CommOp op, const GroupPlan *group) const {
  std::string msg = timeoutMessage(op, group);
  if (onTimeout_) {
    onTimeout_(msg);
    return;
  }
  // One write, so lines of different ranks do not mix; then end every rank.
  msg += "; aborting\n";
  std::fwrite(msg.data(), 1, msg.size(), stderr);
  std::fflush(stderr);
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin)
    MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void Communicator::exitIfLauncherGone() const {
  if (!rankstatus::launcherGone())
    return;
  std::string msg = "weft: error: rank " + std::to_string(rank_) +
                    ": the launcher (mpirun) is gone; exiting\n";
  std::fwrite(msg.data(), 1, msg.size(), stderr);
  std::fflush(stderr);
  std::_Exit(1);
}

int mpiCount(int64_t n, CommOp op) {
  check(n >= 0 && n <= INT_MAX, commOpName(op), " of ", n,
        " elements exceeds the MPI count limit (", INT_MAX, ")");
  return static_cast<int>(n);
}

double commTimeoutFromEnv(double unset) {
  const char *env = std::getenv("WEFT_COMM_TIMEOUT");
  if (!env || !*env)
    return unset;
  char *end = nullptr;
  double v = std::strtod(env, &end);
  check(*end == '\0' && std::isfinite(v) && v >= 0 && v <= kMaxCommTimeout,
        "WEFT_COMM_TIMEOUT expects seconds in [0, ", kMaxCommTimeout,
        "], got '", env, "'");
  return v;
}

} // namespace weft::rt

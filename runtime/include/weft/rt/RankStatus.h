//===- RankStatus.h - What every rank is doing, for the watchdog -*- C++
//-*-===//
//
// When a collective times out, the waiting rank must say which ranks did
// not arrive; MPI cannot tell it (the stalled rank answers nothing, and a
// rank blocked in a collective cannot make another MPI call). Like
// PyTorch's desync report (each rank's last collective sequence number in
// its TCPStore), every rank publishes its progress in a status board: the
// number of collectives it has entered, the step, whether it is waiting in
// one and since when. The board is a shared-memory segment per host
// (created at start by the host's first rank, unlinked once every rank of
// the host has mapped it, so nothing outlives the job); ranks on other
// hosts are reported as not visible. Writes are single relaxed atomics: a
// rank never waits for the board.
//
// Sequence numbers count the collectives a rank has entered through the
// backend (Backend.cpp), which every rank issues in the same program order;
// a rank whose count is below the timed-out collective's did not arrive.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_RANKSTATUS_H
#define WEFT_RT_RANKSTATUS_H

#include <cstdint>
#include <string>
#include <vector>

namespace weft::rt {

enum class CommOp;

namespace rankstatus {

/// Creates or maps this host's board. Collective over MPI_COMM_WORLD; a
/// no-op without MPI, and harmless when shared memory is unavailable (the
/// report then says so).
void open();
/// Enters the next collective (`op`, over `where`: "{data}", "the world");
/// returns its sequence number (1, 2, ...).
uint64_t enter(CommOp op, const std::string &where = "");
/// The step the rank is in (0: before the first).
void setStep(int64_t step);
int64_t step();
/// Marks the rank as waiting in collective `seq` (or not waiting).
void setWaiting(uint64_t seq, bool waiting);
/// The collective this rank waits for now (0: none).
uint64_t waitingFor();
/// For a timed-out collective `seq` over `members` (world ranks; empty: the
/// world): "rank 2 (entered collective #16 all_gather in step 3, not in a
/// collective for 12.0 s)" for each member whose count is below `seq`, or
/// "" when every visible member arrived. Ranks on other hosts are listed as
/// not visible.
std::string laggards(uint64_t seq, const std::vector<int64_t> &members);
/// The visible members of `members` (empty: the world) whose process is
/// stopped (SIGSTOP, a debugger: state T in /proc): "rank 1 (pid 123)",
/// or "". A rank stopped inside the collective has entered it, so
/// laggards() alone would not name it.
std::string stopped(const std::vector<int64_t> &members);
/// The timeout message's tail for collective `seq`: "; not arrived: ..."
/// or "; every rank [of the group] entered it", then "; stopped (SIGSTOP
/// or a debugger): ..." when some member is stopped.
std::string describeTimeout(uint64_t seq, const std::vector<int64_t> &members,
                            bool group);

/// True when this process's parent (mpirun or its daemon) has gone: the
/// job was killed around us. Recorded at open().
bool launcherGone();

/// Starts the watchdog thread (once; `seconds` > 0): every
/// min(1 s, seconds / 4) it checks whether this rank has waited in one
/// collective longer than `seconds`, and whether its launcher is gone. On
/// either it prints one line naming the collective, the step and the ranks
/// that did not arrive (laggards()) and ends the process with exit 1
/// (_exit: no MPI call from this thread; mpirun then ends the job). Like
/// NCCL's and PyTorch's watchdogs, it lets the waiting thread stay in the
/// library's blocking call, which is faster than a test loop.
void startWatchdog(double seconds);
/// True when startWatchdog ran in this process.
bool watchdogRunning();

} // namespace rankstatus
} // namespace weft::rt

#endif // WEFT_RT_RANKSTATUS_H

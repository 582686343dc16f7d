//===- CommWatchdogTest.cpp - A stalled rank ends the job -----------------===//
//
// Run under mpirun with 2 or more ranks and WEFT_COMM_TIMEOUT set: after one
// all-reduce that every rank joins (it creates the group's communicator),
// rank 1 stalls and rank 0's next all-reduce outlives the timeout. The
// default handler prints
//   weft: error: rank 0: collective all_reduce over {x} (collective #2) did
//   not complete within S s; not arrived: rank 1 (pid P; entered 1
//   collective(s), the last all_reduce, ...); aborting
// (the status board, RankStatus.h, names the rank that did not arrive) and
// calls MPI_Abort, which ends every rank, rank 1's sleep included.
// ctest matches the message (PASS_REGULAR_EXPRESSION); reaching the end of
// main is a failure.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/BackendRegistry.h"
#include "weft/rt/Communicator.h"
#include "weft/rt/MpiComm.h"
#include "weft/rt/RankStatus.h"

#include <chrono>
#include <iostream>
#include <thread>

using namespace weft::rt;

int main(int argc, char **argv) {
  MpiSession mpi(&argc, &argv);
  auto be = createBackend("cpu", Mesh({{"x", mpi.size()}}), mpi.rank());
  be->setCommTimeout(commTimeoutFromEnv());
  rankstatus::open();
  Tensor x = be->zeros(DType::F32, {16});
  be->allReduce(x, x, {0}, ReduceKind::Sum);
  if (mpi.rank() == 1)
    std::this_thread::sleep_for(std::chrono::seconds(60));
  be->allReduce(x, x, {0}, ReduceKind::Sum);
  std::cout << "FAILED: rank " << mpi.rank()
            << " finished: the watchdog did not fire\n";
  return 1;
}

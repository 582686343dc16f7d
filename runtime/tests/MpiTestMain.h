//===- MpiTestMain.h - The main of the MPI gtest binaries ------*- C++ -*-===//
//
// Shared by weft-rt-mpi-tests (CollectiveTests.cpp) and
// weft-rt-harness-tests (HarnessTests.cpp): every rank runs the tests, the
// backend named by WEFT_TEST_BACKEND (default cpu) must be creatable on a
// 1-D mesh of every rank, failures of the other ranks are printed with
// their rank, and the exit status is nonzero when any rank failed.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_TESTS_MPITESTMAIN_H
#define WEFT_RT_TESTS_MPITESTMAIN_H

#include "weft/rt/Backend.h"
#include "weft/rt/Error.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>

namespace weft::rt::test {

/// Failures of ranks other than 0 (whose default printer is removed),
/// printed with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult &r) override {
    if (r.failed())
      std::cerr << "[rank " << rank_ << "] "
                << (r.file_name() ? r.file_name() : "unknown file") << ":"
                << r.line_number() << ": " << r.summary() << std::endl;
  }

private:
  int rank_;
};

/// WEFT_TEST_BACKEND, or "cpu".
inline std::string testBackendName() {
  const char *env = std::getenv("WEFT_TEST_BACKEND");
  return env && *env ? env : "cpu";
}

/// Runs the tests on every rank (after gtest and MPI are initialized):
/// skips (exit 0) when the backend cannot be created, or fails when
/// WEFT_TEST_REQUIRE_BACKEND=1 asked for it; `setUp` runs on every rank
/// before the tests, after a successful probe.
inline int runMpiTests(int rank, int size,
                       const std::function<void()> &setUp = {}) {
  try {
    createBackend(parseBackendKind(testBackendName()), Mesh({{"x", size}}),
                  rank);
  } catch (const Error &e) {
    // A backend asked for with WEFT_TEST_REQUIRE_BACKEND=1 must run.
    const char *req = std::getenv("WEFT_TEST_REQUIRE_BACKEND");
    bool required = req && std::string(req) == "1";
    if (rank == 0)
      std::cout << "[weft] " << (required ? "FAILED" : "SKIPPED") << ": "
                << e.what() << "\n";
    return required ? 1 : 0;
  }
  auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  if (setUp)
    setUp();
  int rc = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    std::cout << "[weft] " << size << " ranks: "
              << (any ? "FAILED on some rank" : "all ranks passed") << "\n";
  return any;
}

} // namespace weft::rt::test

#endif // WEFT_RT_TESTS_MPITESTMAIN_H

//===- TraceOutput.cpp - Gathering and writing --trace --------------------===//
//
// Every rank serializes its own events; one gather to rank 0 (the pieces
// padded to the longest) brings them together, and rank 0 writes one file. One
// file is what Perfetto and chrome://tracing open; gathering costs one trace's
// bytes per rank once, at exit.
//
//===----------------------------------------------------------------------===//

#include "TraceOutput.h"

#include "weft/rt/Communicator.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiCommunicator.h"
#include "weft/rt/Npy.h"
#include "weft/rt/Trace.h"

#include <cstdint>
#include <exception>
#include <vector>

#include <unistd.h>

namespace weft::rt {

std::string writeTraceFile(Communicator &comm, const Trace &trace, int rank,
                           int size, const std::string &path) {
  std::string mine = trace.eventsJson(rank);
  std::vector<std::string> pieces;
  if (size == 1) {
    pieces.push_back(std::move(mine));
  } else {
    // Pieces padded with spaces to the longest (agreed by an all-reduce),
    // one gather; rank 0 trims the padding.
    uint64_t len = mine.size(), longest = 0;
    watchedWorldAllreduce(comm, &len, &longest, 1, MPI_UINT64_T, MPI_MAX);
    mine.resize(longest, ' ');
    std::vector<char> all(rank == 0 ? longest * size : 0);
    comm.gatherBytesToRoot(mine.data(), all.data(), longest);
    if (rank == 0) {
      for (int r = 0; r < size; ++r) {
        std::string piece(all.data() + longest * r, longest);
        piece.erase(piece.find_last_not_of(' ') + 1);
        pieces.push_back(std::move(piece));
      }
    }
  }
  if (rank != 0)
    return "";
  try {
    std::string text = chromeTraceJson(pieces);
    writeFileAtomically(path, [&](int fd) {
      const char *p = text.data();
      std::size_t left = text.size();
      while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0)
          throw Error("cannot write the trace");
        p += n;
        left -= static_cast<std::size_t>(n);
      }
    });
  } catch (const std::exception &e) {
    return std::string("--trace '") + path + "': " + e.what();
  }
  return "";
}

} // namespace weft::rt

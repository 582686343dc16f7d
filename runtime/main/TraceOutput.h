//===- TraceOutput.h - Gathering and writing --trace ------------*- C++ -*-===//

#ifndef WEFT_RT_MAIN_TRACEOUTPUT_H
#define WEFT_RT_MAIN_TRACEOUTPUT_H

#include <string>

namespace weft::rt {

class Communicator;
class Trace;

/// Gathers every world rank's trace events to rank 0 (collective), which
/// writes them to `path` as one Chrome trace file, atomically
/// (writeFileAtomically). Returns rank 0's error ("" when written, and on
/// the other ranks).
std::string writeTraceFile(Communicator &comm, const Trace &trace, int rank,
                           int size, const std::string &path);

} // namespace weft::rt

#endif // WEFT_RT_MAIN_TRACEOUTPUT_H

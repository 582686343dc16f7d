//===- GraphedStep.h - The training step replayed as a CUDA graph -*- C++
//-*-===//
//
// `--cuda-graph` (docs/runtime.md, "CUDA graphs"). A small training step is
// bound by launches (T2: about 300 ops of 5-20 us each on an H100), so the
// harness records one step into a graph and replays it: one launch per
// step. A recording fixes every buffer the step reads and writes, so:
//   - every input gets a pinned buffer of its own for the whole run, and a
//     step's fresh values (its batch, step number, learning rate) are
//     copied into it before each replay;
//   - inputs are not donated (the step must not write into, or free, a
//     pinned buffer), so the step's updated parameters and state land in
//     buffers the recording allocated; the recording ends with a copy of
//     each into its input's pinned buffer, so the next replay reads it;
//   - the step's outputs stay held between replays (the loss is read from
//     the same buffer every step).
// A step that synchronizes with the host inside (a random op whose offset
// is read from a tensor, an upload) cannot be recorded: capture() says
// why and the harness runs the step as before.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_MAIN_GRAPHEDSTEP_H
#define WEFT_RT_MAIN_GRAPHEDSTEP_H

#include "weft/rt/Backend.h"
#include "weft/rt/Program.h"

#include <string>
#include <vector>

namespace weft::rt {

class GraphedStep {
public:
  GraphedStep(Backend &backend, StepContext &ctx, const ProgramInfo &info)
      : be_(backend), ctx_(ctx), info_(info) {}
  /// Why the step's outputs cannot be replayed in place ("" when they can):
  /// an updated value that is itself an input.
  std::string unsupportedOutputs() const;
  /// Pins the inputs (copying their current values) and records one step.
  /// Returns "" or why it could not be recorded; then nothing was recorded
  /// and the context holds no outputs.
  std::string capture();
  /// Copies the inputs the harness set for this step (setStepInputs) into
  /// their pinned buffers, then queues one replay. The outputs are the
  /// context's (held since the recording).
  void replay();
  std::size_t nodes() const { return nodes_; }

private:
  Backend &be_;
  StepContext &ctx_;
  const ProgramInfo &info_;
  std::vector<Tensor> pinned_;
  std::size_t nodes_ = 0;
};

} // namespace weft::rt

#endif // WEFT_RT_MAIN_GRAPHEDSTEP_H

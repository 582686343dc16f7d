//===- Harness.h - main() of compiled Weft programs -------------*- C++ -*-===//
//
// One Harness per rank. Harness.cpp runs a forward program (--iters steps
// on fixed inputs); Training.cpp runs a training step (--steps steps that
// feed each updated parameter and state tensor back as the next step's
// input).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_MAIN_HARNESS_H
#define WEFT_RT_MAIN_HARNESS_H

#include "Options.h"
#include "TokenData.h"

#include "weft/rt/Backend.h"
#include "weft/rt/Program.h"
#include "weft/rt/Trace.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace weft::rt {

class GraphedStep;

class Harness {
public:
  Harness(const ProgramInfo &info, int rank, int size)
      : info_(info), rank_(rank), size_(size) {}
  int run(int argc, char **argv);

private:
  /// One write per message, so lines of different ranks do not mix.
  void error(const std::string &msg) const {
    std::string line = "weft: error: ";
    if (size_ > 1)
      line += "rank " + std::to_string(rank_) + ": ";
    line += msg + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  /// True when `ok` holds on every rank. When any rank failed, rank 0
  /// prints the message of the lowest failing rank, naming it (and how many
  /// others failed), once for the job. Collective.
  bool agreeOn(bool ok, const std::string &message) const;
  Tensor loadInput(std::size_t i);
  /// --cuda-graph: records step `t` into `graph` on every rank; false (and
  /// no graph, a line on rank 0 saying why) when any rank could not.
  bool recordStep(std::unique_ptr<GraphedStep> &graph, int64_t t);
  /// Checks that `dir` can be written (it exists and is writable, or its
  /// nearest existing parent is) without creating it: a failed run leaves
  /// no empty directory (rank 0).
  void checkOutputDir(const std::string &dir, const char *option);
  /// Checks that --trace's file can be written at exit: its directory
  /// exists and is writable (rank 0).
  void checkTraceFile(const std::string &path);
  /// Refuses an --output-dir that would replace a file given by --input.
  void checkOutputsSpareInputs(const std::vector<std::string> &names) const;
  void writeOutputs();
  /// With --memory-report, prints the allocator's high-water mark per
  /// device (max and min over ranks) on rank 0. Collective.
  void reportMemory(const char *what) const;
  /// Writes --trace's file (every rank's events, gathered to rank 0) and
  /// says so; false, with the error reported once, when it fails.
  /// Collective.
  bool publishTrace(const Trace &trace);
  /// `local` of output `t`, all-reduced over its partial axes if it has any.
  Tensor reducePartial(const ProgramTensor &t, Tensor local);

  // A training step's harness (Training.cpp, docs/training.md).
  /// Loads input `i` of a training step by its role (TensorRole).
  Tensor loadTrainingInput(std::size_t i);
  /// Runs --steps steps on the loaded inputs; the process exit code.
  int runTraining(std::vector<Tensor> inputs);
  /// The file --input gives input `name` (empty: none).
  std::string inputFile(const std::string &name) const;
  /// Sets the per-step inputs of step `t`: step, lr, and the batches.
  void setStepInputs(int64_t t);
  /// Gathers inputs `which` (their current values in the step context) and
  /// writes each as DIR/<name>.npy on rank 0 (creating DIR). Every rank
  /// takes part in every gather; returns rank 0's first error ("" if none).
  std::string writeInputs(const std::string &dir,
                          const std::vector<std::size_t> &which);
  /// Gathers inputs `which` to rank 0 in order (every rank takes part in
  /// every gather) and, on rank 0 while `*err` is empty, calls `write`
  /// with each tensor and its logical value; an exception it throws is
  /// kept in `*err` and stops the writing, not the gathers.
  void gatherEachToRoot(
      const std::vector<std::size_t> &which, std::string *err,
      const std::function<void(const ProgramTensor &, const Tensor &)> &write);
  /// Resolves and verifies --load's checkpoint (every rank; rank 0 also
  /// checks the checksums) and sets startStep_. Throws Error.
  void openCheckpoint();
  /// Writes the checkpoint of step `step` under --save (Checkpoint.h) and
  /// agrees on the outcome; false (on every rank) when it failed.
  bool saveCheckpoint(int64_t step, const std::vector<std::size_t> &trained);
  /// After a non-finite loss at step `t`: which data inputs of the step hold
  /// NaN or Inf, in words for the error ("" when none). Collective.
  std::string nonFiniteData(int64_t t);
  double learningRate(int64_t t) const;
  /// --init: draws the parameters it covers on rank 0, broadcasts each and
  /// sets every rank's block in `inputs` (collective: after every rank
  /// loaded the rest).
  void initParameters(std::vector<Tensor> &inputs);

  const ProgramInfo &info_;
  int rank_, size_;
  HarnessOptions opts_;
  Mesh mesh_;
  std::unique_ptr<Backend> be_;
  std::unique_ptr<StepContext> ctx_;

  // Training state.
  /// The step a --load resumes after (0: a fresh run), and the checkpoint
  /// directory it resolved to.
  int64_t startStep_ = 0;
  std::string loadedDir_;
  /// Dynamic loss scaling (docs/precision.md): the scale the next step
  /// runs with and its steps with finite gradients since it last changed;
  /// both are checkpointed, so a resumed run continues the same way.
  double lossScale_ = 0;
  int64_t lossScaleClean_ = 0;
  /// The last checkpoint this run published (rank 0).
  std::string savedDir_;
  bool stagingCleaned_ = false;
  /// Per data input, where its batches come from: `file` is its --input
  /// (empty: drawn afresh every step with --random-inputs), `count` the
  /// batches in the file's leading step dimension (0: the file holds one
  /// batch, loaded once and used every step).
  struct BatchSource {
    std::string file;
    int64_t count = 0;
    /// Fed from --tokens: 0 the ids, 1 the targets (-1: not).
    int tokenShift = -1;
  };
  std::vector<BatchSource> batches_;
  /// --tokens: the open file, and its binding to the data inputs
  /// (TokenData.h; Training.cpp).
  std::unique_ptr<TokenFile> tokens_;
  /// Opens --tokens and binds its ids and targets inputs (their
  /// batches_[i].tokenShift); throws Error on a bad file or binding.
  void openTokens();
  /// --print-windows: rank's window starts of batch `batch`, one line.
  void printWindows(int64_t t, int64_t batch, std::size_t ids) const;
};

} // namespace weft::rt

#endif // WEFT_RT_MAIN_HARNESS_H

//===- Options.h - Command line of compiled Weft programs -------*- C++ -*-===//

#ifndef WEFT_RT_MAIN_OPTIONS_H
#define WEFT_RT_MAIN_OPTIONS_H

#include "Init.h"
#include "TokenData.h"

#include "weft/rt/Program.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace weft::rt {

/// The most --iters or --warmup steps accepted (they are ints; a larger
/// count is a typo, and would not finish anyway).
inline constexpr int kMaxIterations = 1000000000;

/// The collective timeout when neither --comm-timeout nor
/// $WEFT_COMM_TIMEOUT is given: 10 minutes, PyTorch's default for NCCL
/// process groups (a step of a large model may take minutes; a stopped
/// rank must still end the job).
inline constexpr double kDefaultCommTimeout = 600;

struct HarnessOptions {
  std::string backend = "cpu";
  /// NAME=FILE.npy pairs, in command-line order.
  std::vector<std::pair<std::string, std::string>> inputs;
  bool randomInputs = false;
  uint64_t seed = 0;
  /// Empty: outputs are gathered and summarized but not written.
  std::string outputDir;
  int iters = 1;
  int warmup = 0;
  /// --comm-timeout in seconds (0: none); negative when not given, then
  /// $WEFT_COMM_TIMEOUT applies, and without it kDefaultCommTimeout.
  double commTimeout = -1;
  bool profile = false;
  /// --trace FILE.json: every rank's ops per step, written by rank 0 in
  /// the Chrome trace format (empty: no trace, nothing recorded).
  std::string trace;
  /// Print the allocator's high-water mark per device (max over ranks).
  bool memoryReport = false;
  /// --cuda-graph: record the training step once and replay it
  /// (GraphedStep.h, docs/runtime.md "CUDA graphs").
  bool cudaGraph = false;
  bool help = false;

  // A training step (isTrainingProgram): docs/training.md.
  /// Steps to run in this process (default 1).
  int steps = 1;
  /// The base learning rate (negative: the program's default).
  double lr = -1;
  /// "constant" or "cosine" (decay to 0 at the last step), after a linear
  /// warmup over `warmupSteps` steps.
  std::string lrSchedule = "constant";
  int warmupSteps = 0;
  /// Checkpoints (Checkpoint.h): --save names a root that holds one
  /// directory per checkpoint (step-N); --load a checkpoint directory or a
  /// root (its newest). Empty: none.
  std::string saveDir, loadDir;
  /// --save-every K: a checkpoint after every step divisible by K, besides
  /// the last one (0: after the last step only).
  int saveEvery = 0;
  /// --keep N: keep the newest N checkpoints under --save (0: all).
  int keep = 0;
  /// --resume DIR: --save DIR, and --load DIR when DIR holds a checkpoint
  /// (a restartable job's one command line; the parameters' --input files
  /// are then not read).
  bool resume = false;
  /// Print the loss line every this many steps (and at the last).
  int logEvery = 1;
  /// Dynamic loss scaling (a program compiled with --precision=f16-mixed;
  /// docs/precision.md): the first scale, and after how many steps with
  /// finite gradients it grows by `lossScaleGrowth`; an overflow multiplies
  /// it by `lossScaleBackoff` and skips the step. PyTorch's GradScaler's
  /// defaults.
  double lossScaleInit = 65536.0;
  int lossScaleInterval = 2000;
  double lossScaleGrowth = 2.0, lossScaleBackoff = 0.5;
  /// --tokens FILE and its options (TokenData.h): the batches from a
  /// token file.
  TokenOptions tokens;
  /// --init SPEC and --init-seed N (Init.h, docs/pipeline.md): parameters
  /// without a file drawn on rank 0 and broadcast.
  InitSpec init;
  uint64_t initSeed = 0;
  /// Which options were given, for the errors of options that do not fit
  /// the program (a forward program has no --steps; a training step no
  /// --iters).
  std::vector<std::string> given;
};

/// Parses the harness options (`--opt value` or `--opt=value`). Throws
/// Error naming the option on anything malformed or unknown, and on an
/// --input naming no input of `info`.
HarnessOptions parseHarnessOptions(const ProgramInfo &info, int argc,
                                   char **argv);

/// What an input is to a training step, in words ("parameter",
/// "optimizer state", ...), for --help and the harness's errors.
const char *roleName(TensorRole role);

/// "f32[10, 64]", plus ", padded to [12, 64]" for a padded tensor: its
/// dtype and logical shape (ProgramTensor::logicalShape), for messages.
std::string describeShape(const ProgramTensor &t);

/// The --help text, listing the program's mesh, inputs and outputs.
std::string harnessUsage(const ProgramInfo &info, const char *argv0);

} // namespace weft::rt

#endif // WEFT_RT_MAIN_OPTIONS_H

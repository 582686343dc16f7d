//===- Options.cpp - Command line of compiled Weft programs ---------------===//

#include "Options.h"

#include "weft/rt/BackendRegistry.h"
#include "weft/rt/Communicator.h"
#include "weft/rt/Error.h"

#include <algorithm>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace weft::rt {

/// An integer in [min, max]; out-of-range values (including those beyond
/// int64) are errors, never wrapped or clamped.
static int64_t parseInt(const std::string &opt, const std::string &text,
                        int64_t min, int64_t max = INT64_MAX) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  bool syntax = !text.empty() && *end == '\0';
  bool tooLarge = syntax && ((errno == ERANGE && v > 0) || v > max);
  check(!tooLarge, "option ", opt, " expects an integer <= ", max, ", got '",
        text, "'");
  check(syntax && errno == 0 && v >= min, "option ", opt,
        " expects an integer >= ", min, ", got '", text, "'");
  return v;
}

/// A finite number in [min, max].
static double parseDouble(const std::string &opt, const std::string &text,
                          double min, double max) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  check(!text.empty() && *end == '\0' && errno == 0 && std::isfinite(v) &&
            v >= min && v <= max,
        "option ", opt, " expects a number in [", min, ", ", max, "], got '",
        text, "'");
  return v;
}

HarnessOptions parseHarnessOptions(const ProgramInfo &info, int argc,
                                   char **argv) {
  HarnessOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      o.help = true;
      continue;
    }
    if (arg == "--memory-report") {
      o.memoryReport = true;
      continue;
    }
    if (arg == "--profile") {
      o.profile = true;
      continue;
    }
    if (arg == "--cuda-graph") {
      o.cudaGraph = true;
      continue;
    }
    std::string name = arg, value;
    bool inlineValue = false;
    if (auto eq = arg.find('=');
        arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    auto takeValue = [&]() {
      if (inlineValue)
        return;
      check(i + 1 < argc, "option ", name, " expects a value");
      value = argv[++i];
    };
    auto takeDirectory = [&]() {
      takeValue();
      check(!value.empty(), "option ", name, " expects a directory");
      return value;
    };
    o.given.push_back(name);
    if (name == "--backend") {
      takeValue();
      // Every backend Weft has: one this build lacks is reported when it
      // is created, with how to build it (BackendRegistry).
      std::vector<std::string> known = knownBackends();
      std::string names;
      for (std::size_t k = 0; k < known.size(); ++k)
        names += (k == 0                  ? ""
                  : k + 1 == known.size() ? " or "
                                          : ", ") +
                 known[k];
      check(std::find(known.begin(), known.end(), value) != known.end(),
            "option --backend expects ", names, ", got '", value, "'");
      o.backend = value;
    } else if (name == "--input") {
      takeValue();
      auto eq = value.find('=');
      check(eq != std::string::npos && eq > 0 && eq + 1 < value.size(),
            "option --input expects NAME=FILE.npy, got '", value, "'");
      std::string in = value.substr(0, eq);
      bool known = false;
      std::string names;
      for (const auto &t : info.inputs) {
        known |= t.name == in;
        names += (names.empty() ? "" : ", ") + t.name;
      }
      check(known, "--input ", value, ": the program has no input named '", in,
            "' (inputs: ", names, ")");
      o.inputs.emplace_back(in, value.substr(eq + 1));
    } else if (name == "--random-inputs") {
      takeValue();
      o.randomInputs = true;
      o.seed = static_cast<uint64_t>(parseInt(name, value, 0));
    } else if (name == "--output-dir") {
      o.outputDir = takeDirectory();
    } else if (name == "--iters") {
      takeValue();
      o.iters = static_cast<int>(parseInt(name, value, 1, kMaxIterations));
    } else if (name == "--warmup") {
      takeValue();
      o.warmup = static_cast<int>(parseInt(name, value, 0, kMaxIterations));
    } else if (name == "--steps") {
      takeValue();
      o.steps = static_cast<int>(parseInt(name, value, 1, kMaxIterations));
    } else if (name == "--lr") {
      takeValue();
      o.lr = parseDouble(name, value, 0, 1e6);
    } else if (name == "--lr-schedule") {
      takeValue();
      check(value == "constant" || value == "cosine",
            "option --lr-schedule expects constant or cosine, got '", value,
            "'");
      o.lrSchedule = value;
    } else if (name == "--warmup-steps") {
      takeValue();
      o.warmupSteps =
          static_cast<int>(parseInt(name, value, 0, kMaxIterations));
    } else if (name == "--save") {
      o.saveDir = takeDirectory();
    } else if (name == "--load") {
      o.loadDir = takeDirectory();
    } else if (name == "--resume") {
      o.saveDir = takeDirectory();
      o.resume = true;
    } else if (name == "--save-every") {
      takeValue();
      o.saveEvery = static_cast<int>(parseInt(name, value, 1, kMaxIterations));
    } else if (name == "--keep") {
      takeValue();
      o.keep = static_cast<int>(parseInt(name, value, 1, kMaxIterations));
    } else if (name == "--loss-scale") {
      takeValue();
      o.lossScaleInit = parseDouble(name, value, 1e-30, 1e38);
    } else if (name == "--loss-scale-growth-interval") {
      takeValue();
      o.lossScaleInterval =
          static_cast<int>(parseInt(name, value, 1, kMaxIterations));
    } else if (name == "--loss-scale-growth") {
      takeValue();
      o.lossScaleGrowth = parseDouble(name, value, 1, 1e6);
    } else if (name == "--loss-scale-backoff") {
      takeValue();
      o.lossScaleBackoff = parseDouble(name, value, 1e-6, 1);
    } else if (name == "--log-every") {
      takeValue();
      o.logEvery = static_cast<int>(parseInt(name, value, 1, kMaxIterations));
    } else if (name == "--init") {
      takeValue();
      std::vector<std::string> params;
      for (const auto &t : info.inputs)
        if (t.role == TensorRole::Param)
          params.push_back(t.name);
      o.init = parseInitSpec(value, params);
    } else if (name == "--init-seed") {
      takeValue();
      o.initSeed = static_cast<uint64_t>(parseInt(name, value, 0));
    } else if (name == "--trace") {
      takeValue();
      check(!value.empty(), "option --trace expects a file name");
      o.trace = value;
    } else if (name == "--comm-timeout") {
      takeValue();
      o.commTimeout = parseDouble(name, value, 0, kMaxCommTimeout);
    } else if (parseTokenOption(
                   name,
                   [&] {
                     takeValue();
                     return value;
                   },
                   o.tokens)) {
    } else {
      fail("unknown option '", arg, "' (see --help)");
    }
  }
  static const char *const trainingOnly[] = {
      "--steps",        "--lr",         "--lr-schedule",   "--warmup-steps",
      "--save",         "--load",       "--log-every",     "--save-every",
      "--keep",         "--resume",     "--tokens",        "--token-dtype",
      "--token-inputs", "--token-seed", "--print-windows", "--init",
      "--init-seed"};
  static const char *const lossScalingOnly[] = {
      "--loss-scale", "--loss-scale-growth-interval", "--loss-scale-growth",
      "--loss-scale-backoff"};
  bool scaled = std::any_of(
      info.inputs.begin(), info.inputs.end(),
      [](const ProgramTensor &t) { return t.role == TensorRole::LossScale; });
  for (const std::string &g : o.given)
    for (const char *l : lossScalingOnly)
      check(scaled || g != l, "option ", g, ": program '", info.name,
            "' has no dynamic loss scaling (compile it with weftc "
            "--precision=f16-mixed)");
  static const char *const forwardOnly[] = {"--iters", "--warmup"};
  bool training = isTrainingProgram(info);
  for (const std::string &g : o.given) {
    for (const char *t : trainingOnly)
      check(training || g != t, "option ", g, ": program '", info.name,
            "' is not a training step (compile it with weftc --train)");
    for (const char *f : forwardOnly)
      check(!training || g != f, "option ", g, ": program '", info.name,
            "' is a training step; use --steps N");
  }
  auto given = [&](const char *opt) {
    return std::find(o.given.begin(), o.given.end(), opt) != o.given.end();
  };
  check(!o.resume || (!given("--save") && !given("--load")),
        "option --resume DIR is --save DIR plus --load DIR when DIR holds a "
        "checkpoint; it takes no --save or --load");
  for (const char *needsTokens :
       {"--token-dtype", "--token-inputs", "--token-seed", "--print-windows"})
    check(!o.tokens.file.empty() || !given(needsTokens), "option ", needsTokens,
          " needs --tokens FILE");
  // --init (Init.h): what it names has no file and no checkpoint, and what
  // it draws is a float.
  check(given("--init") || !given("--init-seed"),
        "option --init-seed needs --init SPEC");
  check(!given("--init") || !given("--load"),
        "option --init: the parameters come from the checkpoint with "
        "--load; give one of them (--resume DIR takes --init for a fresh "
        "start)");
  for (const auto &[param, rule] : o.init.byName)
    for (const auto &[in, file] : o.inputs)
      check(in != param, "parameter '", param,
            "' is given by both --input and --init");
  for (const ProgramTensor &t : info.inputs) {
    bool hasFile = false;
    for (const auto &[in, file] : o.inputs)
      hasFile |= in == t.name;
    if (t.role == TensorRole::Param && !hasFile && o.init.ruleFor(t.name))
      check(isFloat(t.dtype), "option --init: parameter '", t.name, "' is ",
            dtypeName(t.dtype), "; only float parameters can be drawn");
  }
  if (o.cudaGraph) {
    check(isTrainingProgram(info),
          "option --cuda-graph records a training step; this program is a "
          "forward program");
    check(!o.profile && o.trace.empty(),
          "option --cuda-graph replays the whole step as one graph; "
          "--profile and --trace time each op: give one or the other");
  }
  bool saves = !o.saveDir.empty();
  for (const char *needsSave : {"--save-every", "--keep"})
    check(saves || std::find(o.given.begin(), o.given.end(), needsSave) ==
                       o.given.end(),
          "option ", needsSave, " needs --save DIR");
  return o;
}

const char *roleName(TensorRole role) {
  switch (role) {
  case TensorRole::Data:
    return "data";
  case TensorRole::Param:
    return "parameter";
  case TensorRole::State:
    return "optimizer state";
  case TensorRole::Step:
    return "step";
  case TensorRole::LearningRate:
    return "learning rate";
  case TensorRole::LossScale:
    return "loss scale";
  case TensorRole::FiniteGrads:
    return "finite-gradients flag";
  }
  return "input";
}

std::string describeShape(const ProgramTensor &t) {
  std::string s =
      std::string(dtypeName(t.dtype)) + shapeToString(logicalShapeOf(t));
  if (isPadded(t))
    s += ", padded to " + shapeToString(t.globalShape);
  return s;
}

static std::string describe(const ProgramTensor &t,
                            const std::vector<MeshAxis> &mesh) {
  std::ostringstream os;
  os << "  " << t.name << ": " << dtypeName(t.dtype)
     << shapeToString(logicalShapeOf(t)) << " layout [";
  for (std::size_t d = 0; d < t.layout.dims.size(); ++d) {
    os << (d ? ", " : "") << "{";
    for (std::size_t k = 0; k < t.layout.dims[d].size(); ++k)
      os << (k ? ", " : "") << mesh.at(t.layout.dims[d][k]).name;
    os << "}";
  }
  os << "]";
  if (isPadded(t))
    os << " (padded to " << shapeToString(t.globalShape) << ")";
  if (t.dtype == DType::I32)
    os << " (random ids in [0, " << t.intBound << "))";
  if (t.role != TensorRole::Data)
    os << " (" << roleName(t.role)
       << (t.role == TensorRole::Step || t.role == TensorRole::LearningRate ||
                   t.role == TensorRole::LossScale
               ? ", supplied"
               : "")
       << ")";
  if (t.microBatch > 0)
    os << " (micro-batch " << t.microBatch << ")";
  if (t.updates >= 0)
    os << " (updates input #" << t.updates << ")";
  os << "\n";
  return os.str();
}

static std::string availableList() {
  std::string s;
  for (const auto &n : availableBackends())
    s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string harnessUsage(const ProgramInfo &info, const char *argv0) {
  std::ostringstream os;
  int64_t devices = 1;
  std::string mesh;
  for (const auto &a : info.mesh) {
    devices *= a.size;
    mesh += (mesh.empty() ? "" : ", ") + ("\"" + a.name + "\" = ") +
            std::to_string(a.size);
  }
  os << "Weft program '" << info.name << "' (compiled from " << info.source
     << ")\n\n"
     << "usage: mpirun -np " << devices << " " << argv0 << " [options]\n\n"
     << "options:\n"
     << "  --backend cpu|cuda       backend (default cpu; compiled in: "
     << availableList() << ")\n"
     << "  --input NAME=FILE.npy    read input NAME from a global .npy (each "
        "rank reads its block)\n"
     << "  --random-inputs SEED     draw inputs not given by --input from the "
        "counter RNG\n"
     << "  --output-dir DIR         write each output as DIR/NAME.npy (rank "
        "0)\n"
     << "  --iters N                timed steps (default 1); with N > 1 "
        "rank 0 prints\n"
     << "                           the median step time\n"
     << "  --warmup W               untimed steps first (default 0)\n"
     << "  --profile                per-op time, FLOP/s, bytes per "
        "collective, median step time\n"
     << "  --trace FILE.json        every rank's ops, collectives and "
        "transfers per step\n"
     << "                           (begin, end, bytes) in the Chrome trace "
        "format, written\n"
     << "                           by rank 0 (Perfetto, chrome://tracing)\n"
     << "  --memory-report          the allocator's high-water mark per "
        "device (max over ranks),\n"
     << "                           to compare with the compiler's estimate "
        "(weftc --memory-budget)\n"
     << "  --comm-timeout SECONDS   end the job when a collective does not "
        "complete\n"
     << "                           in time, naming the ranks that did not "
        "arrive\n"
     << "                           (0: never; default $WEFT_COMM_TIMEOUT or "
     << kDefaultCommTimeout << ")\n"
     << "  --help                   this text\n";
  if (isTrainingProgram(info))
    os << "\ntraining (" << info.optimizer << "; docs/training.md):\n"
       << "  --steps N                training steps in this process "
          "(default 1); rank 0\n"
       << "                           prints 'step T loss L lr X time MS' "
          "per step\n"
       << "  --lr X                   base learning rate (default "
       << info.defaultLr << ")\n"
       << "  --lr-schedule S          constant (default) or cosine (to 0 at "
          "the last step)\n"
       << "  --warmup-steps W         linear learning-rate warmup over the "
          "first W steps\n"
       << "  --load DIR               resume from a checkpoint (params, "
          "state, step): DIR is\n"
       << "                           one checkpoint, or a --save root (its "
          "newest)\n"
       << "  --save DIR               write checkpoints under DIR, as "
          "DIR/step-N, after the\n"
       << "                           last step (each published whole, with "
          "a manifest)\n"
       << "  --save-every K           also after every step divisible by K\n"
       << "  --resume DIR             --save DIR, resuming from its newest "
          "checkpoint if it has\n"
       << "                           one (a restartable job's command "
          "line)\n"
       << "  --keep N                 keep only the newest N checkpoints "
          "under DIR\n"
       << "  --log-every K            print every K-th step's line (default "
          "1)\n"
       << "  --cuda-graph             (cuda) record the step once after two "
          "warm-up steps and\n"
       << "                           replay it: one launch per step "
          "(docs/runtime.md)\n";
  if (std::any_of(info.inputs.begin(), info.inputs.end(),
                  [](const ProgramTensor &t) {
                    return t.role == TensorRole::LossScale;
                  }))
    os << "  --loss-scale S           dynamic loss scaling's first scale "
          "(default 65536)\n"
       << "  --loss-scale-growth-interval N  grow it after N steps with "
          "finite gradients\n"
       << "                           (default 2000)\n"
       << "  --loss-scale-growth F    by F (default 2)\n"
       << "  --loss-scale-backoff F   an overflow skips the step and "
          "multiplies it by F\n"
       << "                           (default 0.5)\n";
  if (isTrainingProgram(info))
    os << "  --init SPEC              draw parameters without --input on "
          "rank 0 and broadcast\n"
       << "                           them: NAME=INIT,...[,INIT] with INIT "
          "normal:STD,\n"
       << "                           scaled:GAIN (STD = GAIN/sqrt(fan_in)) "
          "or zeros; a bare\n"
       << "                           INIT is the default "
          "(docs/pipeline.md)\n"
       << "  --init-seed N            the seed of --init (default 0)\n"
       << "  " << info.microBatches
       << " micro-batch(es) per step: micro-batch k of step T reads batch "
          "(T-1)*"
       << info.microBatches << "+k.\n"
       << "  --tokens FILE            the batches from a flat file of token "
          "ids (nanoGPT's\n"
       << "                           train.bin): row b of step T reads the "
          "window at a start\n"
       << "                           drawn from (seed, T, b), into the ids "
          "and targets inputs\n"
       << "  --token-dtype u16|u32    the file's token type (default u16)\n"
       << "  --token-inputs IDS,TGT   the inputs the windows feed (default "
          "tokens,labels)\n"
       << "  --token-seed N           the windows' seed (default 0)\n"
       << "  --print-windows          print each step's window starts per "
          "rank\n"
       << "  A batch input's .npy may have a leading step dimension S: step "
          "T reads\n"
       << "  batch (T-1) mod S. Parameters come from --input, --init or "
          "--random-inputs,\n"
       << "  optimizer state starts at zero, unless --load gives both.\n";
  os << "\n"
     << "mesh [" << mesh << "]: " << devices << " rank(s)\n"
     << "inputs:\n";
  for (const auto &t : info.inputs)
    os << describe(t, info.mesh);
  os << "outputs:\n";
  for (const auto &t : info.outputs)
    os << describe(t, info.mesh);
  return os.str();
}

} // namespace weft::rt

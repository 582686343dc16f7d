//===- weftc.cpp - Annotated .mlir to an SPMD executable ------------------===//
//
// Strings the stages together: parse, propagate, partition, optimize
// collectives, lower to the runtime, translate to C++, compile and link.
// Each stage is an ordinary pass; weftc only picks them by name from the
// registry (a stage missing from this build is skipped or reported).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "weft/Conversion/WeftToRuntime/Passes.h"
#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftDialect.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory weftcCat("weftc options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<prog.mlir>"),
                                      cl::Required, cl::cat(weftcCat));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Executable to write (default: the input's "
                        "name without .mlir), or the file --emit "
                        "prints to (default: stdout)"),
               cl::value_desc("file"), cl::cat(weftcCat));
enum class Emit { Exe, Global, Local, EmitC, Cpp };
static cl::opt<Emit>
    emit("emit", cl::desc("Stop after a stage and print it"),
         cl::init(Emit::Exe),
         cl::values(clEnumValN(Emit::Global, "global",
                               "the global view after --weft-propagate"),
                    clEnumValN(Emit::Local, "local",
                               "the local view after --weft-partition and "
                               "--weft-optimize-collectives"),
                    clEnumValN(Emit::EmitC, "emitc",
                               "the EmitC IR after --weft-lower-to-runtime"),
                    clEnumValN(Emit::Cpp, "cpp", "the generated C++"),
                    clEnumValN(Emit::Exe, "exe", "the executable (default)")),
         cl::cat(weftcCat));
static cl::opt<bool> unsharded(
    "unsharded",
    cl::desc("Compile the program for one device: every sharding and "
             "weft.shard dropped, the mesh's axes kept with size 1 (the "
             "reference run of tests)"),
    cl::cat(weftcCat));
static cl::opt<std::string> meshSizes(
    "mesh",
    cl::desc("Resize mesh axes before compiling, e.g. --mesh data=2,model=4 "
             "(every weft.mesh with that axis; shardings must still divide "
             "their dimensions)"),
    cl::value_desc("axis=size,..."), cl::cat(weftcCat));
static cl::opt<std::string>
    commReport("comm-report", cl::ValueOptional,
               cl::desc("Print the collectives of the partitioned program "
                        "(--comm-report=json for JSON)"),
               cl::value_desc("json"), cl::cat(weftcCat));
static cl::opt<std::string>
    entry("entry", cl::desc("The function to compile (default: the only one)"),
          cl::value_desc("name"), cl::cat(weftcCat));
static cl::opt<bool> verbose("v", cl::desc("Print each stage with its time"),
                             cl::cat(weftcCat));
static cl::opt<std::string>
    cxx("cxx",
        cl::desc("C++ compiler (default: the one the runtime was "
                 "built with)"),
        cl::value_desc("path"), cl::cat(weftcCat));
static cl::list<std::string>
    cxxFlags("cxx-flag", cl::desc("Extra flag for the C++ compiler (repeat)"),
             cl::value_desc("flag"), cl::cat(weftcCat));
static cl::opt<std::string>
    saveCpp("save-cpp", cl::desc("Also write the generated C++ to this file"),
            cl::value_desc("file"), cl::cat(weftcCat));

static cl::opt<std::string> searchMode(
    "search",
    cl::desc("How --weft-propagate chooses layouts: global (the whole "
             "function's cheapest plan under the machine profile, the "
             "default), greedy (op by op, bytes only) or exhaustive (every "
             "plan; small programs only). docs/propagation.md"),
    cl::init("global"), cl::value_desc("mode"), cl::cat(weftcCat));
static cl::opt<std::string> machineProfile(
    "machine-profile",
    cl::desc("Machine profile JSON the global search prices plans with "
             "(docs/machine-profile.md; weft-calibrate measures one). "
             "Default: one H100-class NVLink node"),
    cl::value_desc("file"), cl::cat(weftcCat));

static cl::opt<int64_t> memoryBudget(
    "memory-budget",
    cl::desc("Auto-sharding: the most bytes per device the plan may hold at "
             "once (the global search's estimate; unannotated arguments and "
             "results become choices too). The run's --memory-report prints "
             "the allocator's high-water mark to compare. 0: no budget"),
    cl::init(0), cl::value_desc("bytes"), cl::cat(weftcCat));

static cl::opt<int64_t> combineBytes(
    "combine-bytes",
    cl::desc("Merge independent all-reduces of one kind and axes whose "
             "operands total at most this many bytes per device into one "
             "(--weft-combine-collectives; 0: never)"),
    cl::init(1 << 20), cl::value_desc("bytes"), cl::cat(weftcCat));

static cl::opt<bool> schedule(
    "schedule",
    cl::desc("Start each collective as early and wait for it as late as its "
             "data allow, so compute runs while it moves "
             "(--weft-schedule-collectives; results are bit-identical). "
             "--schedule=false runs every collective where the partitioner "
             "put it, to completion. Off under --memory-budget unless given "
             "(the budget's estimate is of the unscheduled order)"),
    cl::init(true), cl::cat(weftcCat));

static cl::opt<bool> rematGathers(
    "remat-gathers",
    cl::desc("FSDP: gather a split weight again for its backward use instead "
             "of keeping the forward's gathered copy alive "
             "(--weft-remat-gathers): at most two gathered weights alive, "
             "for one more all-gather per reused weight"),
    cl::init(false), cl::cat(weftcCat));

static cl::opt<bool> fuse(
    "fuse",
    cl::desc("Fuse softmax and norms into one pass over each row "
             "(--weft-fuse-rows) and chains of elementwise maps into one pass "
             "each (--weft-fuse-elementwise), after --emit=local; results are "
             "bit-identical. --fuse=false runs every map and reduction alone"),
    cl::init(true), cl::cat(weftcCat));

// Training (docs/training.md): --grad appends the gradients of the
// weft.param arguments (--weft-autodiff); --train also builds the optimizer
// step (--weft-optimizer), whose harness runs --steps N.
static cl::OptionCategory trainCat("weftc training options");
static cl::opt<bool>
    gradOnly("grad",
             cl::desc("Return the loss and the gradient of every weft.param "
                      "argument (--weft-autodiff)"),
             cl::cat(trainCat));
static cl::opt<std::string>
    train("train",
          cl::desc("Compile a training step with this optimizer: adamw or "
                   "sgd (--weft-autodiff, then --weft-optimizer)"),
          cl::value_desc("optimizer"), cl::cat(trainCat));
static cl::opt<double> trainLr("lr",
                               cl::desc("Default learning rate (the "
                                        "executable's --lr overrides it)"),
                               cl::init(1e-3), cl::cat(trainCat));
static cl::opt<double> trainBeta1("beta1", cl::desc("AdamW beta1"),
                                  cl::init(0.9), cl::cat(trainCat));
static cl::opt<double> trainBeta2("beta2", cl::desc("AdamW beta2"),
                                  cl::init(0.999), cl::cat(trainCat));
static cl::opt<double> trainEps("eps", cl::desc("AdamW epsilon"),
                                cl::init(1e-8), cl::cat(trainCat));
static cl::opt<double>
    trainWeightDecay("weight-decay",
                     cl::desc("Weight decay (default 0.01 for adamw, 0 for "
                              "sgd)"),
                     cl::init(-1), cl::cat(trainCat));
static cl::opt<double> trainMomentum("momentum",
                                     cl::desc("SGD momentum (default 0)"),
                                     cl::init(0), cl::cat(trainCat));
static cl::opt<int64_t> microBatches(
    "micro-batches",
    cl::desc("Accumulate the gradients over K micro-batches per step, one "
             "reduction per step (--weft-accumulate)"),
    cl::init(1), cl::value_desc("K"), cl::cat(trainCat));
static cl::opt<std::string> zeroAxis(
    "zero1-axis",
    cl::desc("ZeRO-1: split the optimizer state over this mesh axis too (the "
             "update runs on the shard; the parameter is all-gathered)"),
    cl::value_desc("axis"), cl::cat(trainCat));
static cl::opt<double>
    trainClipNorm("clip-norm",
                  cl::desc("Clip the gradients' global norm (0: off)"),
                  cl::init(0), cl::cat(trainCat));

/// The training options' own errors, before any input is read: --train's
/// optimizer, --grad and --train together, and an optimizer option given
/// where it does nothing (not a silent no-op): without --train (--grad
/// applies no optimizer), or for the other optimizer (--momentum is SGD's,
/// --beta1/--beta2/--eps AdamW's). --micro-batches needs --grad or --train.
static bool checkTrainingOptions() {
  bool training = train.getNumOccurrences() > 0;
  if (gradOnly && training) {
    llvm::errs() << "weftc: error: --grad and --train exclude each other "
                    "(--train includes the gradients)\n";
    return false;
  }
  if (training && train != "adamw" && train != "sgd") {
    llvm::errs() << "weftc: error: --train expects adamw or sgd, got '"
                 << train << "'\n";
    return false;
  }
  struct Opt {
    const char *name;
    bool given;
    const char *onlyFor; // nullptr: either optimizer
  };
  const Opt opts[] = {
      {"lr", trainLr.getNumOccurrences() > 0, nullptr},
      {"weight-decay", trainWeightDecay.getNumOccurrences() > 0, nullptr},
      {"clip-norm", trainClipNorm.getNumOccurrences() > 0, nullptr},
      {"zero1-axis", zeroAxis.getNumOccurrences() > 0, nullptr},
      {"momentum", trainMomentum.getNumOccurrences() > 0, "sgd"},
      {"beta1", trainBeta1.getNumOccurrences() > 0, "adamw"},
      {"beta2", trainBeta2.getNumOccurrences() > 0, "adamw"},
      {"eps", trainEps.getNumOccurrences() > 0, "adamw"},
  };
  for (const Opt &o : opts) {
    if (!o.given)
      continue;
    if (!training) {
      llvm::errs() << "weftc: error: --" << o.name
                   << " is an optimizer option: it needs --train"
                   << (gradOnly ? " (--grad returns the gradients and applies "
                                  "no optimizer)"
                                : "")
                   << "\n";
      return false;
    }
    if (o.onlyFor && train != o.onlyFor) {
      llvm::errs() << "weftc: error: --" << o.name << " is an option of --train="
                   << o.onlyFor << ", not of --train=" << train << "\n";
      return false;
    }
  }
  if (microBatches.getNumOccurrences() && !training && !gradOnly) {
    llvm::errs() << "weftc: error: --micro-batches needs --train or --grad\n";
    return false;
  }
  return true;
}

namespace {

/// Times and reports (with -v) one stage.
class Stage {
public:
  explicit Stage(const char *name)
      : name_(name), start_(std::chrono::steady_clock::now()) {}
  ~Stage() {
    if (!verbose)
      return;
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start_)
                    .count();
    llvm::errs() << llvm::format("weftc: %-26s %9.2f ms\n", name_, ms);
  }

private:
  const char *name_;
  std::chrono::steady_clock::time_point start_;
};

bool registered(StringRef pass) { return PassInfo::lookup(pass) != nullptr; }

/// Runs `pipeline` (a pass list on the module, e.g. "weft-comm-report";
/// function passes nest: "func.func(weft-propagate)", which runs on every
/// function in parallel; the textual parser does not nest implicitly, so
/// each call site names its stage's anchor).
LogicalResult runPipeline(ModuleOp module, const std::string &pipeline) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os))) {
    llvm::errs() << "weftc: error: bad pipeline '" << pipeline << "': " << error
                 << "\n";
    return failure();
  }
  return pm.run(module);
}

/// Writes `print` to -o (or stdout).
LogicalResult emitTo(llvm::function_ref<void(raw_ostream &)> print) {
  std::string err;
  auto out = openOutputFile(
      outputFile.empty() ? std::string("-") : std::string(outputFile), &err);
  if (!out) {
    llvm::errs() << "weftc: error: " << err << "\n";
    return failure();
  }
  print(out->os());
  out->keep();
  return success();
}

/// Keeps only the function to compile (mlir::weft::selectFunction: --entry,
/// or the only function with a body).
LogicalResult selectEntry(ModuleOp module) {
  FailureOr<func::FuncOp> chosen =
      mlir::weft::selectFunction(module, entry, "weftc", "--entry NAME");
  if (failed(chosen))
    return failure();
  if (chosen->isExternal())
    return chosen->emitError("weftc: function @")
           << chosen->getSymName() << " is a declaration: it has no body "
                                      "to compile";
  for (func::FuncOp f :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (f != *chosen)
      f.erase();
  return success();
}

/// The executable weftc writes: -o, else the input without its extension.
std::string executablePath() {
  if (!outputFile.empty())
    return outputFile;
  SmallString<128> p(inputFile);
  llvm::sys::path::replace_extension(p, "");
  return p.str().str();
}

/// Every file weftc will write, checked before anything is compiled (D5:
/// never the source; an unwritable -o is found now, not at link time).
LogicalResult checkOutputs() {
  SmallVector<std::pair<std::string, std::string>> outputs;
  if (emit == Emit::Exe) {
    if (outputFile.empty()) {
      if (inputFile == "-") {
        llvm::errs() << "weftc: error: reading the program from stdin: name "
                        "the executable with -o\n";
        return failure();
      }
      if (!llvm::sys::path::has_extension(inputFile)) {
        llvm::errs() << "weftc: error: the default executable name is the "
                        "input without its extension, which for '"
                     << inputFile
                     << "' is the input itself; name the executable with -o\n";
        return failure();
      }
    }
    outputs.emplace_back(executablePath(),
                         outputFile.empty() ? "the executable" : "-o");
    if (!saveCpp.empty())
      outputs.emplace_back(saveCpp, "--save-cpp");
  } else if (!outputFile.empty() && outputFile != "-") {
    outputs.emplace_back(outputFile, "-o");
  }
  if (outputs.size() == 2 &&
      (outputs[0].first == outputs[1].first ||
       [&] {
         bool same = false;
         return !llvm::sys::fs::equivalent(outputs[0].first, outputs[1].first,
                                           same) &&
                same;
       }())) {
    llvm::errs() << "weftc: error: -o and --save-cpp name the same file '"
                 << outputs[1].first << "'\n";
    return failure();
  }
  for (auto &[path, what] : outputs)
    if (failed(weftc::checkOutputPath(path, what, inputFile)))
      return failure();
  return success();
}

int run(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  if (!checkTrainingOptions())
    return 1;
  // Parse and verify, recording SSA names for the inputs and outputs.
  OwningOpRef<ModuleOp> module;
  {
    Stage s("parse + verify");
    AsmParserState state;
    Block block;
    // Verified below. --unsharded drops the shardings and --mesh re-sizes
    // the mesh before the shardings are checked against it, so a layout
    // that does not divide the declared mesh is no error there.
    ParserConfig config(&context, /*verifyAfterParse=*/false);
    LocationAttr fileLoc;
    if (failed(parseAsmSourceFile(sourceMgr, &block, config, &state)))
      return 1;
    auto loc = FileLineColLoc::get(&context, inputFile, 0, 0);
    module = detail::constructContainerOpForParserIfNecessary<ModuleOp>(
        &block, &context, loc);
    bool rewritesMesh = unsharded || meshSizes.getNumOccurrences();
    if (!module ||
        failed(rewritesMesh ? weftc::verifyOps(*module) : verify(*module)))
      return 1;
    if (failed(selectEntry(*module)))
      return 1;
    weftc::attachSourceNames(*module, state);
  }

  if (gradOnly || train.getNumOccurrences()) {
    bool trained =
        llvm::any_of(module->getOps<func::FuncOp>(), [](func::FuncOp f) {
          for (unsigned i = 0; i < f.getNumArguments(); ++i)
            if (f.getArgAttr(i, mlir::weft::kParamAttr))
              return true;
          return false;
        });
    if (!trained) {
      llvm::errs() << "weftc: error: --" << (gradOnly ? "grad" : "train")
                   << ": the function has no weft.param argument to train\n";
      return 1;
    }
    Stage s("weft-autodiff");
    if (failed(runPipeline(*module, "func.func(weft-autodiff)")))
      return 1;
    if (microBatches != 1) {
      Stage s("weft-accumulate");
      if (failed(runPipeline(*module,
                             "func.func(weft-accumulate{micro-batches=" +
                                 std::to_string(microBatches) + "})")))
        return 1;
    }
    if (train.getNumOccurrences()) {
      std::string options;
      llvm::raw_string_ostream os(options);
      os << "kind=" << train;
      for (auto [key, value] :
           {std::pair<const char *, double>{"lr", trainLr},
            {"beta1", trainBeta1},
            {"beta2", trainBeta2},
            {"eps", trainEps},
            {"weight-decay", trainWeightDecay},
            {"momentum", trainMomentum},
            {"clip-norm", trainClipNorm}})
        os << " " << key << "=" << llvm::format("%.17g", value);
      if (!zeroAxis.empty())
        os << " zero1-axis=" << zeroAxis;
      Stage s("weft-optimizer");
      if (failed(runPipeline(*module,
                             "func.func(weft-optimizer{" + options + "})")))
        return 1;
    }
  }

  bool local = mlir::weft::isLocalView(*module);
  if (meshSizes.getNumOccurrences()) {
    Stage s("resize mesh");
    if (local) {
      llvm::errs() << "weftc: error: --mesh needs a global-view program (the "
                      "local shapes of this one are fixed)\n";
      return 1;
    }
    if (failed(weftc::resizeMesh(*module, meshSizes)))
      return 1;
    if (!unsharded && failed(verify(*module))) {
      llvm::errs() << "weftc: error: the program does not fit --mesh "
                   << meshSizes << " (see above)\n";
      return 1;
    }
  }
  if (unsharded) {
    Stage s("unsharded");
    if (failed(weftc::makeUnsharded(*module)) || failed(verify(*module)))
      return 1;
  }
  if (local) {
    if (emit == Emit::Global) {
      llvm::errs() << "weftc: error: --emit=global: the input is already a "
                      "local view\n";
      return 1;
    }
    if (verbose)
      llvm::errs() << "weftc: the input is a local view; skipping "
                      "propagation and partitioning\n";
  } else {
    {
      Stage s("weft-propagate");
      // Options reach the pass through its textual pipeline: a path with
      // a space or brace would not parse there.
      if (machineProfile.find_first_of(" {}") != std::string::npos) {
        llvm::errs() << "weftc: error: --machine-profile path may not "
                        "contain spaces or braces: '"
                     << machineProfile << "'\n";
        return 1;
      }
      if (memoryBudget < 0) {
        llvm::errs() << "weftc: error: --memory-budget must be >= 0, got "
                     << memoryBudget << "\n";
        return 1;
      }
      std::string options = "search=" + searchMode;
      if (memoryBudget > 0)
        options += " memory-budget=" + std::to_string(memoryBudget);
      if (!machineProfile.empty())
        options += " profile=" + machineProfile;
      if (failed(runPipeline(*module,
                             "func.func(weft-propagate{" + options + "})")))
        return 1;
    }
    if (emit == Emit::Global)
      return failed(emitTo([&](raw_ostream &os) { module->print(os); }));
    if (registered("weft-pad-uneven")) {
      Stage s("weft-pad-uneven");
      if (failed(runPipeline(*module, "func.func(weft-pad-uneven)")))
        return 1;
    }
    if (registered("weft-partition")) {
      Stage s("weft-partition");
      if (failed(runPipeline(*module, "func.func(weft-partition)")))
        return 1;
    } else if (unsharded) {
      weftc::localizeTrivially(*module);
    } else {
      llvm::errs() << "weftc: error: this build has no --weft-partition pass; "
                      "it can compile local-view programs and --unsharded "
                      "ones only\n";
      return 1;
    }
  }
  if (registered("weft-optimize-collectives")) {
    Stage s("weft-optimize-collectives");
    if (failed(runPipeline(*module, "weft-optimize-collectives")))
      return 1;
  } else if (verbose) {
    llvm::errs() << "weftc: no --weft-optimize-collectives in this build; "
                    "skipped\n";
  }
  if (combineBytes < 0) {
    llvm::errs() << "weftc: error: --combine-bytes must be >= 0, got "
                 << combineBytes << "\n";
    return 1;
  }
  if (combineBytes > 0 && registered("weft-combine-collectives")) {
    Stage s("weft-combine-collectives");
    if (failed(runPipeline(*module,
                           "weft-combine-collectives{max-bytes=" +
                               std::to_string(combineBytes) + "}")))
      return 1;
  }
  if (rematGathers && registered("weft-remat-gathers")) {
    Stage s("weft-remat-gathers");
    if (failed(runPipeline(*module, "func.func(weft-remat-gathers)")))
      return 1;
  }
  // A memory budget's estimate is of the partitioner's order: starting
  // collectives earlier keeps buffers alive longer, so with a budget the
  // schedule runs only when asked for (--schedule).
  bool scheduleNow =
      schedule && (memoryBudget == 0 || schedule.getNumOccurrences() > 0);
  if (scheduleNow && registered("weft-schedule-collectives")) {
    Stage s("weft-schedule-collectives");
    if (failed(runPipeline(*module, "func.func(weft-schedule-collectives)")))
      return 1;
  }
  if (commReport.getNumOccurrences()) {
    if (!registered("weft-comm-report")) {
      llvm::errs() << "weftc: --comm-report: this build has no "
                      "--weft-comm-report pass; no report\n";
    } else {
      if (!commReport.empty() && commReport != "json") {
        llvm::errs() << "weftc: error: --comm-report takes no value or "
                        "'json', got '"
                     << commReport << "'\n";
        return 1;
      }
      Stage s("weft-comm-report");
      // The report goes to stdout, unless stdout carries the --emit output.
      bool toStderr = emit != Emit::Exe && outputFile.empty();
      std::string options = commReport == "json" ? "json=true" : "json=false";
      if (toStderr)
        options += " output=/dev/stderr";
      if (failed(runPipeline(*module, "weft-comm-report{" + options + "}")))
        return 1;
    }
  }
  if (emit == Emit::Local)
    return failed(emitTo([&](raw_ostream &os) { module->print(os); }));

  if (fuse && registered("weft-fuse-rows")) {
    Stage s("weft-fuse-rows");
    if (failed(runPipeline(*module, "func.func(weft-fuse-rows)")))
      return 1;
  }
  if (fuse && registered("weft-fuse-elementwise")) {
    Stage s("weft-fuse-elementwise");
    if (failed(runPipeline(*module, "func.func(weft-fuse-elementwise)")))
      return 1;
  }
  {
    Stage s("weft-lower-to-runtime");
    if (failed(runPipeline(*module, "weft-lower-to-runtime")))
      return 1;
  }
  if (emit == Emit::EmitC)
    return failed(emitTo([&](raw_ostream &os) { module->print(os); }));

  std::string cpp;
  {
    Stage s("translate to C++");
    llvm::raw_string_ostream os(cpp);
    if (failed(emitc::translateToCpp(*module, os)))
      return 1;
  }
  if (emit == Emit::Cpp)
    return failed(emitTo([&](raw_ostream &os) { os << cpp; }));
  if (!saveCpp.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream f(saveCpp, ec);
    if (ec) {
      llvm::errs() << "weftc: error: cannot write " << saveCpp << ": "
                   << ec.message() << "\n";
      return 1;
    }
    f << cpp;
  }

  std::string exe = executablePath();
  SmallString<128> cppFile;
  if (llvm::sys::fs::createTemporaryFile("weftc", "cpp", cppFile)) {
    llvm::errs() << "weftc: error: cannot create a temporary file\n";
    return 1;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream f(cppFile, ec);
    f << cpp;
  }
  LogicalResult built = success();
  {
    Stage s("C++ compile + link");
    built =
        weftc::compileProgram(cppFile.str().str(), exe, cxx, cxxFlags, verbose);
  }
  llvm::sys::fs::remove(cppFile);
  return failed(built) ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  weft::registerDebugOptions(); // -debug-only=weft-propagate ...
  weft::registerWeftPasses();
  weft::registerWeftToRuntimePasses();
  cl::HideUnrelatedOptions({&weftcCat, &trainCat});
  cl::ParseCommandLineOptions(
      argc, argv,
      "weftc: compile an annotated Weft program into an SPMD executable\n\n"
      "  weftc prog.mlir -o prog                  # then: mpirun -np N ./prog "
      "--random-inputs 1 --profile\n"
      "  weftc prog.mlir --emit=local             # the per-rank program\n"
      "  weftc prog.mlir --unsharded -o ref       # the one-device reference\n"
      "  weftc prog.mlir --mesh model=2 -o prog2  # the same program on 2 ranks\n"
      "\nStages: parse -> --weft-propagate -> --weft-pad-uneven -> "
      "--weft-partition -> "
      "--weft-optimize-collectives -> --weft-combine-collectives -> "
      "[--weft-remat-gathers ->] --weft-schedule-collectives -> "
      "--weft-fuse-rows -> --weft-fuse-elementwise -> --weft-lower-to-runtime -> C++ -> "
      "executable. A local-view input (weft.global_type attributes) skips "
      "the first three. Run the executable with --help for its options.\n");

  DialectRegistry registry;
  registry.insert<weft::WeftDialect, func::FuncDialect, arith::ArithDialect,
                  emitc::EmitCDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source; a dump of the op (for a module error,
  // the whole program) adds nothing.
  context.printOpOnDiagnostic(false);

  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file) {
    llvm::errs() << "weftc: error: " << err << "\n";
    return 1;
  }
  if (failed(checkOutputs()))
    return 1;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  return run(context, sourceMgr);
}

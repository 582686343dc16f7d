//===- weftc.cpp - Annotated .mlir to an SPMD executable ------------------===//
//
// Option parsing, then: parse and verify, pick the entry function, run the
// compile pipeline (mlir::weft::buildWeftPipeline, weft-opt's
// --weft-pipeline) in one PassManager, translate to C++, compile and link.
// MLIR's -mlir-timing, -mlir-print-ir-after-all and
// --mlir-pass-pipeline-crash-reproducer span the whole pipeline.
//
//===----------------------------------------------------------------------===//

#include "CompileCache.h"
#include "Driver.h"

#include "weft/Conversion/WeftToRuntime/Passes.h"
#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftDialect.h"
#include "weft/Dialect/Weft/Transforms/MeshRewrites.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Dialect/Weft/Transforms/Vjp.h"
#include "weft/Pipeline/Pipeline.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

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
enum class Emit { Exe, Input, Global, Local, EmitC, Cpp };
static cl::opt<Emit>
    emit("emit", cl::desc("Stop after a stage and print it"),
         cl::init(Emit::Exe),
         cl::values(clEnumValN(Emit::Input, "input",
                               "the program weft-pipeline starts from: "
                               "parsed, the entry function alone, the "
                               "source's names as weft.name, with its "
                               "locations"),
                    clEnumValN(Emit::Global, "global",
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
static cl::list<std::string> showSharding(
    "show-sharding", cl::ValueOptional, cl::CommaSeparated,
    cl::desc("Print, after the propagation, which device holds which block "
             "of every input and output (or only the named ones), as a grid "
             "per tensor (--weft-show-sharding)"),
    cl::value_desc("name,..."), cl::cat(weftcCat));
static cl::opt<std::string>
    entry("entry", cl::desc("The function to compile (default: the only one)"),
          cl::value_desc("name"), cl::cat(weftcCat));
static cl::opt<bool>
    verbose("v",
            cl::desc("Print the time of every stage and pass (MLIR's "
                     "-mlir-timing report) and the C++ compiler command"),
            cl::cat(weftcCat));
static cl::opt<std::string>
    cxx("cxx",
        cl::desc("C++ compiler (default: the one the runtime was "
                 "built with)"),
        cl::value_desc("path"), cl::cat(weftcCat));
static cl::list<std::string>
    cxxFlags("cxx-flag", cl::desc("Extra flag for the C++ compiler (repeat)"),
             cl::value_desc("flag"), cl::cat(weftcCat));
static cl::opt<std::string> compileCache(
    "compile-cache",
    cl::desc("Keep built executables in this directory and reuse one when "
             "the same C++ is built again with the same toolchain (default: "
             "$WEFTC_CACHE_DIR; 'off': none; docs/weftc.md)"),
    cl::value_desc("dir"), cl::cat(weftcCat));
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
             "(docs/machine-profile.md; weft-calibrate measures one), or "
             "builtin:cpu / builtin:gpu. Default: the built-in profile of "
             "--backend"),
    cl::value_desc("file"), cl::cat(weftcCat));
static cl::opt<std::string> targetBackend(
    "backend",
    cl::desc("The backend the executable will run on (its --backend): cpu "
             "(default) or cuda. Without --machine-profile, plans are priced "
             "with that backend's built-in profile"),
    cl::init("cpu"), cl::value_desc("cpu|cuda"), cl::cat(weftcCat));
static cl::opt<bool> reshardAnnotated(
    "reshard-annotated",
    cl::desc("Let the global search read annotated values in other layouts "
             "than written (by default annotations are kept where the "
             "program computes with them; docs/propagation.md)"),
    cl::init(false), cl::cat(weftcCat));

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

static cl::opt<bool> combinePerCall(
    "combine-per-call",
    cl::desc("A bucket of --combine-bytes holds the operands of one layer "
             "call only, so every layer's buckets are the same and the "
             "backward of a deep model compiles once (docs/calls.md, "
             "\"Buckets per call\"; false: buckets across layers)"),
    cl::init(true), cl::cat(weftcCat));

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

static cl::opt<bool> rematLayers(
    "remat-layers",
    cl::desc("Activation checkpointing: recompute each layer call's "
             "activations in the backward pass instead of keeping them from "
             "the forward pass (jax.checkpoint on each layer, Megatron's full "
             "recompute; docs/calls.md). One call alone: mark it "
             "`func.call ... {weft.remat}`"),
    cl::init(false), cl::cat(weftcCat));

static cl::opt<bool> fuse(
    "fuse",
    cl::desc("Fuse softmax and norms into one pass over each row "
             "(--weft-fuse-rows) and chains of elementwise maps into one pass "
             "each (--weft-fuse-elementwise), after --emit=local; results are "
             "bit-identical. --fuse=false runs every map and reduction alone"),
    cl::init(true), cl::cat(weftcCat));

static cl::opt<bool> planLayers(
    "plan-layers",
    cl::desc("Propagate three calls of a layer function called four times "
             "or more (the first, the second, the last) and give every "
             "middle call the second call's plan: propagation time does not "
             "grow with depth (docs/calls.md, \"One plan per layer\"). "
             "--plan-layers=false propagates every call"),
    cl::init(true), cl::cat(weftcCat));

static cl::opt<bool> fuseEpilogues(
    "fuse-epilogues",
    cl::desc("Fold a bias add, an activation, a scale and a residual add into "
             "the einsum producing their operand (--weft-fuse-epilogues; one "
             "oneDNN matmul with post-ops on the CPU), before --fuse's "
             "passes; results agree with the unfused program to rounding, "
             "not bit for bit. --fuse-epilogues=false keeps every einsum "
             "alone"),
    cl::init(true), cl::cat(weftcCat));

static cl::opt<int64_t> pipelineStages(
    "pipeline-stages",
    cl::desc("Pipeline the entry's chain of layer calls over N stages of the "
             "mesh axis \"stage\" (GPipe; --weft-stage-calls, "
             "docs/pipeline.md \"Stages from layer calls\"): the weights of "
             "each stage's k-th layer become one argument stacked over the "
             "stages, named <stage 0's name>.stages. Default: the calls' "
             "weft.stage annotations if any, else off; 0: off"),
    cl::init(0), cl::value_desc("N"), cl::cat(weftcCat));
static cl::opt<int64_t> pipelineMicroBatches(
    "pipeline-micro-batches",
    cl::desc("With --pipeline-stages (or calls with weft.stage): the "
             "number of micro-batches M the batch (dimension 0 of the "
             "chain's input) is split into (default 2N)"),
    cl::init(0), cl::value_desc("M"), cl::cat(weftcCat));
static cl::opt<std::string> pipelineSchedule(
    "pipeline-schedule",
    cl::desc("With --pipeline-stages (or calls with weft.stage): gpipe "
             "(default: all forward micro-batches, then all backward ones) "
             "or 1f1b (PipeDream-flush: each micro-batch's backward starts "
             "at its loss; a stage holds at most 2N - 1 stage inputs; the "
             "loss must be a sum over the batch's rows; docs/pipeline.md "
             "\"1F1B from layer calls\")"),
    cl::init("gpipe"), cl::value_desc("gpipe|1f1b"), cl::cat(weftcCat));
static cl::opt<bool> outlineLayers(
    "outline-layers",
    cl::desc("Compile each layer function's equal copies once: the local "
             "program's runs of ops from equal layer calls become one "
             "function each (--weft-outline-layers, docs/calls.md). "
             "--outline-layers=false lowers the flat program"),
    cl::init(true), cl::cat(weftcCat));

static cl::opt<bool> callLoops(
    "call-loops",
    cl::desc("Lower each run of equal calls of outlined layers (one call "
             "per layer) to one loop over an array of tensors, so the step "
             "function does not grow with depth (docs/calls.md, \"The call "
             "loop\"). On by default: at T2's width and 48 layers the looped "
             "file is 31% smaller and compiles 23% faster; "
             "--call-loops=false keeps one statement block per call"),
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
static cl::opt<std::string>
    precision("precision",
              cl::desc("The precision policy: f32 (default), bf16-mixed "
                       "(f32 parameters, optimizer state and step; GEMMs "
                       "in bf16 with f32 accumulation) or f16-mixed (the "
                       "same in f16, with dynamic loss scaling; "
                       "docs/precision.md)"),
              cl::init("f32"), cl::value_desc("policy"), cl::cat(trainCat));
static cl::opt<std::string> gradReduceDtype(
    "grad-reduce-dtype",
    cl::desc("With --precision=bf16-mixed or f16-mixed: reduce the weight "
             "gradients in the policy's half type (default, half the "
             "bytes) or f32"),
    cl::init("bf16"), cl::value_desc("bf16|f16|f32"), cl::cat(trainCat));
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
    llvm::errs() << "weftc: error: --train expects adamw or sgd, got '" << train
                 << "'\n";
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
      llvm::errs() << "weftc: error: --" << o.name
                   << " is an option of --train=" << o.onlyFor
                   << ", not of --train=" << train << "\n";
      return false;
    }
  }
  if (precision != "f32" && precision != "bf16-mixed" &&
      precision != "f16-mixed") {
    llvm::errs() << "weftc: error: --precision expects f32, bf16-mixed or "
                    "f16-mixed, got '"
                 << precision << "'\n";
    return false;
  }
  if (gradReduceDtype.getNumOccurrences() && precision == "f32") {
    llvm::errs() << "weftc: error: --grad-reduce-dtype needs "
                    "--precision=bf16-mixed or f16-mixed\n";
    return false;
  }
  // The policy's half type, or f32.
  std::string half = precision == "f16-mixed" ? "f16" : "bf16";
  if (gradReduceDtype.getNumOccurrences() && gradReduceDtype != half &&
      gradReduceDtype != "f32") {
    llvm::errs() << "weftc: error: --grad-reduce-dtype with --precision="
                 << precision << " expects " << half << " or f32, got '"
                 << gradReduceDtype << "'\n";
    return false;
  }
  // Dynamic loss scaling skips optimizer steps: a program of gradients
  // only would leave the harness nothing to skip.
  if (precision == "f16-mixed" && gradOnly) {
    llvm::errs() << "weftc: error: --precision=f16-mixed needs --train: its "
                    "dynamic loss scaling skips the optimizer step of a "
                    "step whose gradients overflow (use bf16-mixed with "
                    "--grad)\n";
    return false;
  }
  if (microBatches.getNumOccurrences() && !training && !gradOnly) {
    llvm::errs() << "weftc: error: --micro-batches needs --train or --grad\n";
    return false;
  }
  if (pipelineStages < 0) {
    llvm::errs() << "weftc: error: --pipeline-stages=" << pipelineStages
                 << ": the number of stages is 1 or more (0: off)\n";
    return false;
  }
  if (pipelineSchedule != "gpipe" && pipelineSchedule != "1f1b") {
    llvm::errs() << "weftc: error: --pipeline-schedule=" << pipelineSchedule
                 << ": gpipe or 1f1b\n";
    return false;
  }
  if (pipelineSchedule == "1f1b" && rematLayers) {
    llvm::errs() << "weftc: error: --remat-layers with "
                    "--pipeline-schedule=1f1b: 1F1B's backward recomputes "
                    "each stage's forward from its input already\n";
    return false;
  }
  if (pipelineMicroBatches.getNumOccurrences() && pipelineMicroBatches < 1) {
    llvm::errs() << "weftc: error: --pipeline-micro-batches="
                 << pipelineMicroBatches << ": at least 1 micro-batch\n";
    return false;
  }
  return true;
}

namespace {

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
           << chosen->getSymName()
           << " is a declaration: it has no body "
              "to compile";
  // The entry and the functions it calls, directly or not, stay: the
  // pipeline's first pass (weft-inline-calls) flattens the calls.
  llvm::DenseSet<Operation *> keep{*chosen};
  SmallVector<func::FuncOp> work{*chosen};
  while (!work.empty()) {
    func::FuncOp f = work.pop_back_val();
    f.walk([&](func::CallOp call) {
      if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
              module, call.getCalleeAttr()))
        if (keep.insert(callee).second)
          work.push_back(callee);
    });
    // A vjp's declaration keeps the function it differentiates.
    if (auto of = f->getAttrOfType<FlatSymbolRefAttr>(mlir::weft::kVjpOfAttr))
      if (auto target =
              SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(module, of))
        if (keep.insert(target).second)
          work.push_back(target);
  }
  // The callees are there to be inlined: private, so weft-inline-calls
  // erases them once it has.
  for (func::FuncOp f :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!keep.contains(f))
      f.erase();
    else if (f != *chosen)
      f.setPrivate();
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
  if (outputs.size() == 2 && (outputs[0].first == outputs[1].first || [&] {
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

/// Sets the pipeline's options from weftc's: `local` says whether the input
/// is already a local view.
void setPipelineOptions(mlir::weft::WeftPipelineOptions &o, bool local) {
  using namespace mlir::weft;
  o.inputView = local ? InputView::Local : InputView::Global;
  o.stopAfter = emit == Emit::Global  ? PipelineStop::Global
                : emit == Emit::Local ? PipelineStop::Local
                                      : PipelineStop::EmitC;
  if (gradOnly)
    o.training = TrainingKind::Grad;
  else if (train.getNumOccurrences())
    o.training = train == "sgd" ? TrainingKind::Sgd : TrainingKind::AdamW;
  o.lr = trainLr;
  o.beta1 = trainBeta1;
  o.beta2 = trainBeta2;
  o.eps = trainEps;
  o.weightDecay = trainWeightDecay;
  o.momentum = trainMomentum;
  o.clipNorm = trainClipNorm;
  o.microBatches = microBatches;
  o.precision = precision;
  o.gradReduceDtype = gradReduceDtype.getNumOccurrences()
                          ? std::string(gradReduceDtype)
                          : (precision == "f16-mixed" ? "f16" : "bf16");
  o.zero1Axis = zeroAxis;
  o.mesh = meshSizes;
  o.unsharded = unsharded;
  o.search = searchMode;
  o.machineProfile = machineProfile;
  o.backend = targetBackend;
  o.reshardAnnotated = reshardAnnotated;
  o.memoryBudget = memoryBudget;
  o.combineBytes = combineBytes;
  o.combinePerCall = combinePerCall;
  o.rematGathers = rematGathers;
  o.rematLayers = rematLayers;
  o.pipelineStages = pipelineStages;
  o.pipelineMicroBatches = pipelineMicroBatches;
  o.pipelineSchedule = pipelineSchedule;
  // A memory budget's estimate is of the partitioner's order: starting
  // collectives earlier keeps buffers alive longer, so with a budget the
  // schedule runs only when asked for (--schedule).
  o.schedule =
      schedule && (memoryBudget == 0 || schedule.getNumOccurrences() > 0);
  // Reports (the comm report, the sharding view) go to stdout, unless
  // stdout carries the --emit output.
  std::string reportOutput =
      emit != Emit::Exe && outputFile.empty() ? "/dev/stderr" : "-";
  if (commReport.getNumOccurrences()) {
    o.commReport =
        commReport == "json" ? CommReportFormat::Json : CommReportFormat::Text;
    o.commReportOutput = reportOutput;
  }
  if (showSharding.getNumOccurrences()) {
    o.showSharding = true;
    for (const std::string &v : showSharding)
      if (!v.empty())
        o.showShardingValues.push_back(v);
    o.showShardingOutput = reportOutput;
  }
  o.fuse = fuse;
  o.planLayers = planLayers;
  o.fuseEpilogues = fuseEpilogues;
  o.outlineLayers = outlineLayers;
  o.callLoops = callLoops;
}

/// weftc's checks of option values, before any input is read.
bool checkOptions() {
  if (!checkTrainingOptions())
    return false;
  if (memoryBudget < 0) {
    llvm::errs() << "weftc: error: --memory-budget must be >= 0, got "
                 << memoryBudget << "\n";
    return false;
  }
  if (targetBackend != "cpu" && targetBackend != "cuda") {
    llvm::errs() << "weftc: error: --backend must be cpu or cuda, got '"
                 << targetBackend << "'\n";
    return false;
  }
  if (combineBytes < 0) {
    llvm::errs() << "weftc: error: --combine-bytes must be >= 0, got "
                 << combineBytes << "\n";
    return false;
  }
  if (commReport.getNumOccurrences() && !commReport.empty() &&
      commReport != "json") {
    llvm::errs() << "weftc: error: --comm-report takes no value or 'json', "
                    "got '"
                 << commReport << "'\n";
    return false;
  }
  return true;
}

int run(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  if (!checkOptions())
    return 1;
  // One timing report for every stage, the pipeline's passes nested in it:
  // -mlir-timing (and its -mlir-timing-display options), or -v.
  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  if (verbose)
    tm.setEnabled(true);
  TimingScope timing = tm.getRootScope();

  // Parse and verify, recording SSA names for the inputs and outputs.
  OwningOpRef<ModuleOp> module;
  {
    TimingScope s = timing.nest("parse + verify");
    AsmParserState state;
    Block block;
    // Verified below. --unsharded drops the shardings and --mesh re-sizes
    // the mesh before the shardings are checked against it (the
    // pipeline's verifier checks after weft-resize-mesh / weft-unsharded),
    // so a layout that does not fit the declared mesh is no error here.
    ParserConfig config(&context, /*verifyAfterParse=*/false);
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
  }

  // The training passes keep a view global (a local view is an error
  // there), so the input's view decides the pipeline's.
  bool local = mlir::weft::isLocalView(*module);
  if (meshSizes.getNumOccurrences()) {
    if (local) {
      llvm::errs() << "weftc: error: --mesh needs a global-view program (the "
                      "local shapes of this one are fixed)\n";
      return 1;
    }
    // weft-resize-mesh checks it too; here with weftc's own message. The
    // training passes keep the module's meshes.
    std::string error;
    if (failed(mlir::weft::parseMeshSizes(*module, meshSizes, error))) {
      llvm::errs() << "weftc: error: --mesh " << meshSizes << ": " << error
                   << "\n";
      return 1;
    }
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
  }

  // With its locations, so weft-opt reports (and the comm report prints)
  // the source's lines.
  if (emit == Emit::Input)
    return failed(emitTo([&](raw_ostream &os) {
      module->print(os, OpPrintingFlags().enableDebugInfo());
    }));

  // The compile pipeline, in one PassManager.
  PassManager pm(&context, ModuleOp::getOperationName());
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  pm.enableTiming(timing);
  mlir::weft::WeftPipelineOptions options;
  setPipelineOptions(options, local);
  // Only a program with repeated layer calls gets weft-plan-layers: the
  // others keep the plain pipeline.
  options.planLayers =
      options.planLayers && mlir::weft::hasRepeatedLayerCalls(*module);
  // Stages the calls carry (weft.stage) unless --pipeline-stages says
  // otherwise (=0: the calls as written).
  if (!pipelineStages.getNumOccurrences())
    options.pipelineStages = mlir::weft::annotatedPipelineStages(*module);
  if (pipelineMicroBatches.getNumOccurrences() && options.pipelineStages == 0) {
    llvm::errs() << "weftc: error: --pipeline-micro-batches="
                 << pipelineMicroBatches
                 << " needs --pipeline-stages or layer calls with "
                    "weft.stage\n";
    return 1;
  }
  if (pipelineSchedule.getNumOccurrences() && options.pipelineStages == 0) {
    llvm::errs() << "weftc: error: --pipeline-schedule=" << pipelineSchedule
                 << " needs --pipeline-stages or layer calls with "
                    "weft.stage\n";
    return 1;
  }
  mlir::weft::buildWeftPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;
  if (emit == Emit::Global || emit == Emit::Local || emit == Emit::EmitC)
    return failed(emitTo([&](raw_ostream &os) { module->print(os); }));

  std::string cpp;
  {
    TimingScope s = timing.nest("translate to C++");
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
    TimingScope s = timing.nest("C++ compile + link");
    built =
        weftc::compileProgram(cppFile.str().str(), cpp, exe, cxx, cxxFlags,
                              weftc::compileCacheDir(compileCache), verbose);
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
  weft::registerWeftPipeline();
  // MLIR's own instrumentation over the whole pipeline (hidden from --help,
  // listed by --help-hidden): -mlir-timing, -mlir-print-ir-after-all,
  // --mlir-pass-pipeline-crash-reproducer, -mlir-disable-threading, ...
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerMLIRContextCLOptions();
  registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions({&weftcCat, &trainCat});
  cl::ParseCommandLineOptions(
      argc, argv,
      "weftc: compile an annotated Weft program into an SPMD executable\n\n"
      "  weftc prog.mlir -o prog                  # then: mpirun -np N ./prog "
      "--random-inputs 1 --profile\n"
      "  weftc prog.mlir --emit=local             # the per-rank program\n"
      "  weftc prog.mlir --unsharded -o ref       # the one-device reference\n"
      "  weftc prog.mlir --mesh model=2 -o prog2  # the same program on 2 "
      "ranks\n"
      "\nStages: parse + verify -> the weft-pipeline passes (weft-opt "
      "--weft-pipeline; print them with -mlir-timing or "
      "-mlir-print-ir-after-all; docs/weftc.md) -> C++ -> executable. "
      "A local-view input skips propagation and partitioning. "
      "Run the executable with --help for its options.\n");

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

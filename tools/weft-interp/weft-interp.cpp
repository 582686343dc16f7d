//===- weft-interp.cpp - the reference interpreter of weft programs -------===//
//
// Evaluates the global view of a weft program, the local view on every rank
// of its mesh, or both on the same inputs and compares them: the oracle of
// the partitioner, with neither MPI nor BLAS. See docs/interpreter.md.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/IdBound.h"
#include "weft/Dialect/Weft/IR/WeftDialect.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Interpreter/Compare.h"
#include "weft/Interpreter/Evaluator.h"
#include "weft/Interpreter/GradientCheck.h"
#include "weft/Interpreter/Npy.h"
#include "weft/Interpreter/Random.h"
#include "weft/Interpreter/Signature.h"
#include "weft/Interpreter/Simulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <new>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;
namespace cl = llvm::cl;

static cl::OptionCategory category("weft-interp options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<program.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    funcName("func",
             cl::desc("Function to evaluate (default: the only func.func of "
                      "the module)"),
             cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string> compareFile(
    "compare",
    cl::desc("Evaluate this local-view (partitioned) program on every rank "
             "and compare its results with the global program's"),
    cl::value_desc("local.mlir"), cl::cat(category));
static cl::opt<std::string>
    localFuncName("local-func",
                  cl::desc("Function of the --compare file (default: the "
                           "only func.func of that module)"),
                  cl::value_desc("name"), cl::cat(category));
static cl::opt<bool> allFuncs(
    "all-funcs",
    cl::desc("With --compare: compare every function of the global module "
             "with the local function of the same name"),
    cl::cat(category));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the random inputs (default 0)"),
                              cl::init(0), cl::cat(category));
static cl::list<std::string>
    inputs("input",
           cl::desc("Take global argument N from a .npy file instead of "
                    "random values (N: the argument index, or argN); "
                    "repeatable"),
           cl::value_desc("N=file.npy"), cl::cat(category));
static cl::opt<std::string> outputDir(
    "output-dir",
    cl::desc("Write the inputs (argN.npy) and results (resultN.npy; with "
             "--compare also local_resultN.npy, assembled) to this directory"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool>
    printValues("print-values",
                cl::desc("Print every element of every result (row-major)"),
                cl::cat(category));
static cl::opt<bool> printRanks(
    "print-ranks",
    cl::desc("Print every element of every rank's local results, before "
             "they are assembled (local view)"),
    cl::cat(category));
static cl::opt<bool> checkGradientsOpt(
    "check-gradients",
    cl::desc("For a function built by --weft-autodiff (result #0 the loss, "
             "results marked weft.grad_of): compare every gradient element "
             "with a central finite difference of the loss (rtol default "
             "1e-6 of the largest |gradient|); exit status 1 on a mismatch"),
    cl::cat(category));
static cl::opt<bool> roundHalfResults(
    "round-half-results",
    cl::desc("Round every op's f16/bf16 result to its type where it is "
             "stored, as the runtime does (default: only weft.convert, "
             "constants and random inputs round; docs/precision.md)"),
    cl::cat(category));
static cl::opt<double> gradientStep(
    "gradient-step",
    cl::desc("--check-gradients' finite-difference step h, relative: h = "
             "step * max(1, |x|) (default 1e-5; a program that rounds to "
             "bf16 needs a step well above bf16's 2^-8)"),
    cl::init(1e-5), cl::cat(category));
static cl::opt<double>
    rtolOpt("rtol",
            cl::desc("Relative tolerance of --compare, a fraction of the "
                     "largest |value| of the reference tensor (default 1e-9)"),
            cl::init(1e-9), cl::cat(category));
static cl::opt<double>
    atolOpt("atol", cl::desc("Absolute tolerance of --compare (default 1e-10)"),
            cl::init(1e-10), cl::cat(category));

static cl::opt<int64_t> maxRanks(
    "max-ranks",
    cl::desc("Most ranks a local view may run on (default 4096): every rank "
             "holds its copy of every value in this process"),
    cl::init(SimulationLimits().maxRanks), cl::cat(category));
static cl::opt<int64_t> maxElements(
    "max-elements",
    cl::desc("Most elements of one value over all the ranks that hold it, "
             "and of a global tensor (default 2^28 = 268435456)"),
    cl::init(SimulationLimits().maxElements), cl::cat(category));
static cl::opt<int64_t> maxWork(
    "max-work",
    cl::desc("Most loop iterations of one op over its ranks, the product of "
             "its letters' sizes (default 2^33 = 8589934592)"),
    cl::init(SimulationLimits().maxWork), cl::cat(category));

static const char *overview =
    R"(weft-interp: the reference interpreter of weft programs

Evaluates weft programs in double precision with plain loops: the oracle of
the partitioner, needing neither MPI nor BLAS.

  weft-interp global.mlir [--seed N] [--input N=x.npy]... [--print-values]
      Evaluates the global view on inputs drawn from a counter-based
      generator keyed by (seed, argument index, element index): floats
      uniform in [-1, 1), i32 ids uniform in [0, V) where V is the row count
      of the table a weft.embed looks them up in ([0, 16) if none). Prints
      each result's type and checksum (sum, sum of squares).

  weft-interp local.mlir [...]
      A function whose arguments and results carry `weft.global_type`
      attributes is a local view: its global inputs are split into per-rank
      blocks, every rank of the mesh runs it in lockstep, and its results
      are assembled into global tensors before printing.

  weft-interp global.mlir --compare local.mlir [--rtol R] [--atol A]
      Evaluates both on the same inputs and prints one verdict per result
      (max abs error, and max rel error: relative to the largest |value| of
      the global result). An element fails when |local - global| > atol +
      rtol * max |global|. Exit status 1 on any mismatch.

Errors (malformed IR, missing files, a local function without
`weft.global_type`, shapes that disagree, ids out of range, a mesh or a
tensor beyond --max-ranks / --max-elements) are diagnostics with exit
status 1.
)";

static SimulationLimits limits() {
  return SimulationLimits{maxRanks, maxElements, maxWork};
}

/// Prints `msg` as a tool error and returns 1 (the exit status).
static int toolError(const Twine &msg) {
  llvm::errs() << "weft-interp: error: " << msg << "\n";
  return 1;
}

/// Parses `path` as the main file of `sourceMgr`, which must hold no file
/// yet (diagnostics of other files' locations load them by name).
static OwningOpRef<ModuleOp> parseFile(StringRef path, MLIRContext &context,
                                       llvm::SourceMgr &sourceMgr) {
  assert(sourceMgr.getNumBuffers() == 0 && "one file per source manager");
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buffer) {
    toolError("cannot open input file '" + path +
              "': " + buffer.getError().message());
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

/// The function called `name`, or the only function of `module`.
static func::FuncOp selectFunction(ModuleOp module, StringRef name,
                                   StringRef option) {
  FailureOr<func::FuncOp> func = mlir::weft::selectFunction(
      module, name, "weft-interp", ("--" + option + "=NAME").str());
  return succeeded(func) ? *func : func::FuncOp();
}

/// The global inputs: random, or read from --input files.
static FailureOr<Values> makeInputs(func::FuncOp func,
                                    ArrayRef<RankedTensorType> types) {
  std::map<unsigned, std::string> files;
  for (const std::string &spec : inputs) {
    auto [key, path] = StringRef(spec).split('=');
    unsigned index;
    StringRef digits = key;
    digits.consume_front("arg");
    if (path.empty() || digits.getAsInteger(10, index)) {
      toolError("--input expects N=file.npy or argN=file.npy, got '" + spec +
                "'");
      return failure();
    }
    if (index >= types.size()) {
      toolError("--input " + key + ": the function has " + Twine(types.size()) +
                " argument(s)");
      return failure();
    }
    if (!files.emplace(index, path.str()).second) {
      toolError("--input gives argument #" + Twine(index) + " twice");
      return failure();
    }
  }
  Values values;
  for (auto [i, type] : llvm::enumerate(types)) {
    auto it = files.find(i);
    if (it == files.end()) {
      values.push_back(randomTensor(type, seed, i, getIdBound(func, i)));
      continue;
    }
    std::string error;
    FailureOr<Tensor> t = readNpy(it->second, error);
    if (failed(t)) {
      toolError(error);
      return failure();
    }
    if (t->getShape() != type.getShape()) {
      toolError("--input " + Twine(i) + ": '" + it->second + "' has shape " +
                shapeToString(t->getShape()) + " but argument #" + Twine(i) +
                " has shape " + shapeToString(type.getShape()));
      return failure();
    }
    values.push_back(std::move(*t));
  }
  return values;
}

/// Writes `t` to <output-dir>/<name>.npy if --output-dir is given.
static LogicalResult maybeWrite(StringRef name, const Tensor &t,
                                RankedTensorType type) {
  if (outputDir.empty())
    return success();
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir)) {
    toolError("cannot create '" + outputDir + "': " + ec.message());
    return failure();
  }
  SmallString<128> path(outputDir);
  llvm::sys::path::append(path, name + ".npy");
  std::string error;
  if (failed(writeNpy(path, t, type.getElementType().isInteger(), error))) {
    toolError(error);
    return failure();
  }
  return success();
}

static void printResult(unsigned i, const Tensor &t, RankedTensorType type) {
  double sum = 0, sumsq = 0;
  for (double v : t.getData()) {
    sum += v;
    sumsq += v * v;
  }
  llvm::outs() << "result #" << i << ": " << withoutSharding(type) << " sum "
               << llvm::format("%.12g", sum) << " sumsq "
               << llvm::format("%.12g", sumsq) << "\n";
  if (!printValues)
    return;
  llvm::outs() << "  values:";
  for (double v : t.getData())
    llvm::outs() << " " << llvm::format("%.12g", v);
  llvm::outs() << "\n";
}

/// Splits `globals` into per-rank blocks, runs the local function on every
/// rank and assembles its results. Replicas that disagree are reported in
/// `mismatches`.
static FailureOr<Values>
runLocal(func::FuncOp func, const LocalSignature &sig, ArrayRef<Tensor> globals,
         SmallVectorImpl<ReplicaMismatch> &mismatches) {
  int64_t numRanks = sig.mesh.getNumDevices();
  std::vector<Values> args(numRanks);
  // Padded arguments (weft.logical_shape) get zero pads, as the runtime
  // loads them.
  SmallVector<Tensor> padded;
  for (auto [t, type] : llvm::zip(globals, sig.argTypes)) {
    if (t.getShape() == type.getShape()) {
      padded.push_back(t);
      continue;
    }
    Tensor p(type.getShape(), 0.0);
    p.insert(t, SmallVector<int64_t>(type.getRank(), 0));
    padded.push_back(std::move(p));
  }
  for (int64_t r = 0; r < numRanks; ++r)
    for (auto [t, layout] : llvm::zip(padded, sig.argLayouts))
      args[r].push_back(splitForRank(t, layout, sig.mesh, r));
  FailureOr<std::vector<Values>> results =
      evaluateLocal(func, sig.meshOp, args);
  if (failed(results))
    return failure();
  if (printRanks)
    for (int64_t r = 0; r < numRanks; ++r)
      for (auto [i, t] : llvm::enumerate((*results)[r])) {
        llvm::outs() << "rank " << r << " result #" << i << ": "
                     << shapeToString(t.getShape()) << ":";
        for (double v : t.getData())
          llvm::outs() << " " << llvm::format("%.12g", v);
        llvm::outs() << "\n";
      }
  Values assembled;
  for (auto [i, type] : llvm::enumerate(sig.resultTypes)) {
    SmallVector<Tensor> blocks;
    for (int64_t r = 0; r < numRanks; ++r)
      blocks.push_back((*results)[r][i]);
    ReplicaMismatch mismatch;
    Tensor whole = assemble(blocks, type.getShape(), sig.resultLayouts[i],
                            sig.mesh, rtolOpt, atolOpt, mismatch);
    // A padded result: its pads are dropped, as the runtime writes it.
    ArrayRef<int64_t> logical = sig.resultLogical[i].getShape();
    if (logical != type.getShape())
      whole = whole.extract(SmallVector<int64_t>(logical.size(), 0), logical);
    assembled.push_back(std::move(whole));
    mismatches.push_back(mismatch);
  }
  return assembled;
}

/// One line about ranks that hold different copies of a replicated element.
static void printReplicaMismatch(const ReplicaMismatch &m,
                                 ArrayRef<int64_t> shape) {
  llvm::outs() << "replicas disagree: ranks " << m.rankA << " and " << m.rankB
               << " hold " << llvm::format("%.17g", m.valueA) << " and "
               << llvm::format("%.17g", m.valueB) << " at "
               << indexToString(m.index, shape) << " (" << m.count
               << " element(s) beyond atol "
               << llvm::format("%g", atolOpt.getValue()) << " + rtol "
               << llvm::format("%g", rtolOpt.getValue()) << " * max |value| "
               << llvm::format("%g", m.scale) << ")";
}

/// Evaluates one program: the global view, or the local view when the
/// function carries `weft.global_type` attributes.
static int runSingle(func::FuncOp func) {
  SmallVector<RankedTensorType> argTypes, resultTypes;
  std::optional<LocalSignature> sig;
  if (hasGlobalTypes(func)) {
    FailureOr<LocalSignature> s = getLocalSignature(func);
    if (failed(s))
      return 1;
    sig = std::move(*s);
    argTypes = sig->argLogical;
    resultTypes = sig->resultLogical;
  } else {
    for (Type t : func.getArgumentTypes()) {
      auto ranked = dyn_cast<RankedTensorType>(t);
      if (!ranked || !ranked.hasStaticShape())
        return toolError("function @" + func.getSymName() +
                         " takes a non-tensor or dynamic argument");
      argTypes.push_back(ranked);
    }
    for (Type t : func.getResultTypes()) {
      auto ranked = dyn_cast<RankedTensorType>(t);
      if (!ranked || !ranked.hasStaticShape())
        return toolError("function @" + func.getSymName() +
                         " returns a non-tensor or dynamic result");
      resultTypes.push_back(ranked);
    }
  }
  if (failed(checkSimulable(func, sig.has_value(), sig ? sig->meshOp : MeshOp(),
                            limits())))
    return 1;
  FailureOr<Values> args = makeInputs(func, argTypes);
  if (failed(args))
    return 1;
  for (auto [i, t] : llvm::enumerate(*args))
    if (failed(maybeWrite("arg" + std::to_string(i), t, argTypes[i])))
      return 1;
  if (checkGradientsOpt) {
    if (sig)
      return toolError("--check-gradients runs on the global view (before "
                       "partitioning)");
    GradientCheckOptions options;
    if (!(gradientStep > 0) || !std::isfinite(gradientStep))
      return toolError("--gradient-step must be a positive number");
    options.step = gradientStep;
    if (rtolOpt.getNumOccurrences())
      options.rtol = rtolOpt;
    if (atolOpt.getNumOccurrences())
      options.atol = atolOpt;
    unsigned mismatches = 0;
    if (failed(checkGradients(func, *args, options, llvm::outs(), mismatches)))
      return 1;
    return mismatches == 0 ? 0 : 1;
  }

  SmallVector<ReplicaMismatch> mismatches;
  FailureOr<Values> results = sig ? runLocal(func, *sig, *args, mismatches)
                                  : evaluateGlobal(func, *args);
  if (failed(results))
    return 1;
  if (sig)
    llvm::outs() << "local view of @" << func.getSymName() << " on "
                 << sig->mesh.getNumDevices()
                 << " rank(s); results assembled\n";
  int status = 0;
  for (auto [i, t] : llvm::enumerate(*results)) {
    printResult(i, t, resultTypes[i]);
    if (!mismatches.empty() && mismatches[i].count > 0) {
      llvm::outs() << "result #" << i << ": ";
      printReplicaMismatch(mismatches[i], t.getShape());
      llvm::outs() << "\n";
      status = 1;
    }
    if (failed(maybeWrite("result" + std::to_string(i), t, resultTypes[i])))
      return 1;
  }
  return status;
}

/// Evaluates the global and the local program on the same inputs and
/// compares their results.
static int runCompare(func::FuncOp global, func::FuncOp local) {
  FailureOr<LocalSignature> sig = getLocalSignature(local);
  if (failed(sig))
    return 1;
  auto mismatchError = [&](const Twine &msg) {
    local.emitError() << msg;
    return 1;
  };
  if (global.getNumArguments() != local.getNumArguments())
    return mismatchError(
        "the local function takes " + Twine(local.getNumArguments()) +
        " argument(s) but the global function @" + global.getSymName() +
        " takes " + Twine(global.getNumArguments()));
  if (global.getNumResults() != local.getNumResults())
    return mismatchError(
        "the local function returns " + Twine(local.getNumResults()) +
        " result(s) but the global function @" + global.getSymName() +
        " returns " + Twine(global.getNumResults()));
  auto checkTypes = [&](TypeRange globalTypes,
                        ArrayRef<RankedTensorType> declared,
                        StringRef what) -> LogicalResult {
    for (auto [i, pair] : llvm::enumerate(llvm::zip(globalTypes, declared))) {
      auto [g, d] = pair;
      auto ranked = dyn_cast<RankedTensorType>(g);
      if (!ranked || withoutSharding(ranked) != withoutSharding(d)) {
        mismatchError("the weft.global_type of " + what + " #" + Twine(i) +
                      " disagrees with the global function");
        local.emitRemark() << "global function: " << g
                           << ", weft.global_type: " << d;
        return failure();
      }
    }
    return success();
  };
  if (failed(
          checkTypes(global.getArgumentTypes(), sig->argLogical, "argument")) ||
      failed(checkTypes(global.getResultTypes(), sig->resultLogical, "result")))
    return 1;

  if (failed(checkSimulable(global, /*local=*/false, MeshOp(), limits())) ||
      failed(checkSimulable(local, /*local=*/true, sig->meshOp, limits())))
    return 1;
  FailureOr<Values> args = makeInputs(global, sig->argLogical);
  if (failed(args))
    return 1;
  for (auto [i, t] : llvm::enumerate(*args))
    if (failed(maybeWrite("arg" + std::to_string(i), t, sig->argLogical[i])))
      return 1;
  FailureOr<Values> expected = evaluateGlobal(global, *args);
  if (failed(expected))
    return 1;
  SmallVector<ReplicaMismatch> replicas;
  FailureOr<Values> actual = runLocal(local, *sig, *args, replicas);
  if (failed(actual))
    return 1;

  unsigned matching = 0;
  for (unsigned i = 0; i < expected->size(); ++i) {
    const Tensor &e = (*expected)[i], &a = (*actual)[i];
    RankedTensorType type = sig->resultLogical[i];
    if (failed(maybeWrite("result" + std::to_string(i), e, type)) ||
        failed(maybeWrite("local_result" + std::to_string(i), a, type)))
      return 1;
    Comparison c = compare(a, e, rtolOpt, atolOpt);
    bool ok = c.failures == 0 && replicas[i].count == 0;
    matching += ok;
    llvm::outs() << "result #" << i << ": " << (ok ? "match" : "MISMATCH")
                 << " " << withoutSharding(type) << " on "
                 << sig->mesh.getNumDevices() << " rank(s): max abs error "
                 << llvm::format("%.3g", c.maxAbsError) << ", max rel error "
                 << llvm::format("%.3g", c.maxRelError);
    if (c.failures > 0)
      llvm::outs() << "; " << c.failures << " of " << e.getNumElements()
                   << " element(s) beyond atol "
                   << llvm::format("%g", atolOpt.getValue()) << " + rtol "
                   << llvm::format("%g", rtolOpt.getValue())
                   << " * max |global| " << llvm::format("%g", c.scale)
                   << ", worst at " << indexToString(c.worstIndex, e.getShape())
                   << ": local " << llvm::format("%.17g", c.worstActual)
                   << ", global " << llvm::format("%.17g", c.worstExpected);
    if (replicas[i].count > 0) {
      llvm::outs() << "; ";
      printReplicaMismatch(replicas[i], e.getShape());
    }
    llvm::outs() << "\n";
  }
  llvm::outs() << "compare: " << matching << " of " << expected->size()
               << " result(s) match\n";
  return matching == expected->size() ? 0 : 1;
}

/// Runs `evaluate`, turning a failed allocation into an error: a value
/// larger than the memory left (with --max-elements raised past it) is
/// reported with its size, exit status 1, instead of an abort.
static int reportingOutOfMemory(llvm::function_ref<int()> evaluate) {
  try {
    return evaluate();
  } catch (const AllocationFailure &e) {
    return toolError(Twine(e.what()) + "; --max-elements is " +
                     Twine(int64_t(maxElements)) +
                     ": lower it, or free memory");
  } catch (const std::bad_alloc &) {
    return toolError("out of memory; --max-elements is " +
                     Twine(int64_t(maxElements)) +
                     ": lower it, or free memory");
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // InitLLVM makes a failed operator new abort ("LLVM ERROR: out of
  // memory"); the default one throws std::bad_alloc, which the evaluation
  // reports as an error (reportingOutOfMemory).
  std::set_new_handler(nullptr);
  mlir::weft::registerDebugOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, overview);
  setRoundHalfResults(roundHalfResults);
  if (maxRanks < 1 || maxElements < 1 || maxWork < 1)
    return toolError("--max-ranks, --max-elements and --max-work must be >= "
                     "1");
  // An infinite or NaN tolerance would make every comparison pass.
  for (auto [name, value] :
       {std::pair<const char *, double>("rtol", rtolOpt), {"atol", atolOpt}})
    if (!std::isfinite(value) || value < 0) {
      std::string text;
      llvm::raw_string_ostream(text) << llvm::format("%g", value);
      return toolError("--" + Twine(name) +
                       " must be a finite number >= 0, got " + text);
    }

  DialectRegistry registry;
  registry.insert<WeftDialect, func::FuncDialect, arith::ArithDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseFile(inputFile, context, sourceMgr);
  if (!module)
    return 1;
  // Layer calls are evaluated flat, as weftc compiles them (docs/calls.md).
  {
    PassManager pm(&context, ModuleOp::getOperationName());
    pm.addPass(createWeftInlineCalls());
    if (failed(pm.run(*module)))
      return 1;
  }
  if (allFuncs && compareFile.empty())
    return toolError("--all-funcs needs --compare");
  if (allFuncs && module->getOps<func::FuncOp>().empty())
    return toolError("'" + inputFile + "' has no func.func to compare");
  func::FuncOp func = allFuncs ? *module->getOps<func::FuncOp>().begin()
                               : selectFunction(*module, funcName, "func");
  if (!func)
    return 1;
  if (compareFile.empty())
    return reportingOutOfMemory([&] { return runSingle(func); });

  if (hasGlobalTypes(func))
    return toolError("'" + inputFile +
                     "' is a local-view program (it has weft.global_type "
                     "attributes); the first file of --compare is the "
                     "global view");
  llvm::SourceMgr localSourceMgr;
  OwningOpRef<ModuleOp> localModule =
      parseFile(compareFile, context, localSourceMgr);
  if (!localModule)
    return 1;
  if (allFuncs) {
    unsigned total = 0, failures = 0;
    SymbolTable localTable(*localModule);
    for (auto global : module->getOps<func::FuncOp>()) {
      ++total;
      auto local = localTable.lookup<func::FuncOp>(global.getSymName());
      if (!local) {
        global.emitError() << "no function @" << global.getSymName() << " in '"
                           << compareFile << "'";
        ++failures;
        continue;
      }
      if (reportingOutOfMemory([&] { return runCompare(global, local); }) != 0)
        ++failures;
    }
    llvm::outs() << "compare-all: " << total - failures << " of " << total
                 << " function(s) match\n";
    return failures == 0 ? 0 : 1;
  }
  func::FuncOp local =
      selectFunction(*localModule, localFuncName, "local-func");
  if (!local)
    return 1;
  return reportingOutOfMemory([&] { return runCompare(func, local); });
}

//===- Harness.cpp - main() of compiled Weft programs ---------------------===//
//
// Every rank parses the same command line, so argument errors are reported
// by every rank without communication. Errors that may hit only some ranks
// (a file one rank cannot read, a backend that fails on one node) are
// agreed on with an MPI_Allreduce of a status flag before the step, so every
// rank exits non-zero together. An error inside the step (where ranks may
// be waiting in a collective) ends the job with MPI_Abort, as does a
// collective that outlives --comm-timeout (Communicator.h).
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "weft/rt/BackendRegistry.h"
#include "weft/rt/Checkpoint.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiComm.h"
#include "weft/rt/MpiCommunicator.h"
#include "weft/rt/Npy.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/Program.h"
#include "weft/rt/RankStatus.h"
#include "weft/rt/Rng.h"
#include "weft/rt/Trace.h"

#include "TraceOutput.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace weft::rt {

bool Harness::agreeOn(bool ok, const std::string &message) const {
  // Under the watchdog once the backend exists: a rank stalled in a save
  // must not hang the others here.
  auto allreduce = [&](int *in, int *out, MPI_Op op) {
    if (be_)
      watchedWorldAllreduce(be_->communicator(), in, out, 1, MPI_INT, op);
    else
      MPI_Allreduce(in, out, 1, MPI_INT, op, MPI_COMM_WORLD);
  };
  int mine = ok ? size_ : rank_, first = size_;
  int failedHere = ok ? 0 : 1, failed = 0;
  allreduce(&mine, &first, MPI_MIN);
  if (first == size_)
    return true;
  allreduce(&failedHere, &failed, MPI_SUM);
  // The lowest failing rank's message, to rank 0.
  std::string text = message;
  if (first != 0) {
    if (rank_ == first) {
      int len = static_cast<int>(text.size());
      MPI_Send(&len, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
      MPI_Send(text.data(), len, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    } else if (rank_ == 0) {
      int len = 0;
      MPI_Recv(&len, 1, MPI_INT, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      text.assign(static_cast<std::size_t>(len), '\0');
      MPI_Recv(text.data(), len, MPI_CHAR, first, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
  }
  if (rank_ == 0) {
    std::string line = "weft: error: ";
    if (size_ > 1)
      line += "rank " + std::to_string(first) + ": ";
    line += text;
    if (failed > 1)
      line += " (" + std::to_string(failed - 1) + " other rank(s) failed too)";
    line += "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  return false;
}

void checkProgramTensors(const ProgramInfo &info) {
  auto checkOne = [](const ProgramTensor &t, const char *what) {
    if (t.logicalShape.empty())
      return;
    check(t.logicalShape.size() == t.globalShape.size(), what, " '", t.name,
          "': logical shape ", shapeToString(t.logicalShape), " has rank ",
          t.logicalShape.size(), " but its global shape ",
          shapeToString(t.globalShape), " has rank ", t.globalShape.size());
    for (std::size_t d = 0; d < t.globalShape.size(); ++d)
      check(t.logicalShape[d] >= 0 && t.logicalShape[d] <= t.globalShape[d],
            what, " '", t.name, "': logical shape ",
            shapeToString(t.logicalShape),
            " does not fit its padded global "
            "shape ",
            shapeToString(t.globalShape), " (dim ", d, ")");
  };
  for (const ProgramTensor &t : info.inputs)
    checkOne(t, "input");
  for (const ProgramTensor &t : info.outputs)
    checkOne(t, "output");
}

Tensor Harness::loadInput(std::size_t i) {
  const ProgramTensor &t = info_.inputs[i];
  // The local block of the padded global shape; the file and the random
  // draw are of the logical shape, and pads are zero.
  Shape block = localShape(mesh_, t.layout, t.globalShape);
  auto offsets = blockOffsets(mesh_, t.layout, t.globalShape, rank_);
  Tensor host = hostTensor(t.dtype, block);
  std::string file = inputFile(t.name);
  if (!file.empty()) {
    try {
      readNpyBlockClipped(file, t.dtype, logicalShapeOf(t), offsets, block,
                          host.data);
    } catch (const Error &e) {
      fail("input '", t.name, "' (", describeShape(t), ") from ", file, ": ",
           e.what());
    }
  } else if (opts_.randomInputs) {
    fillRandomBlockClipped(opts_.seed, tensorId(t.name), t.dtype,
                           logicalShapeOf(t), offsets, block, host.data,
                           t.intBound);
  } else {
    fail("input '", t.name, "' has no value: pass --input ", t.name,
         "=FILE.npy or --random-inputs SEED");
  }
  return be_->upload(host);
}

std::string Harness::inputFile(const std::string &name) const {
  std::string file;
  for (const auto &[n, path] : opts_.inputs)
    if (n == name)
      file = path; // the last --input of a name wins
  return file;
}

void Harness::checkOutputDir(const std::string &dir, const char *option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    check(fs::is_directory(dir, ec), option, " '", dir,
          "' exists and is not a directory");
    checkSys(::access(dir.c_str(), W_OK | X_OK), option, " '", dir,
             "' is not writable: ");
    return;
  }
  // Created when the run writes it; its nearest existing parent must allow
  // that now.
  fs::path parent = fs::absolute(dir, ec).parent_path();
  while (!parent.empty() && !fs::exists(parent, ec) &&
         parent != parent.root_path())
    parent = parent.parent_path();
  check(fs::is_directory(parent, ec), option, " '", dir,
        "' cannot be created: '", parent.string(), "' is not a directory");
  checkSys(::access(parent.c_str(), W_OK | X_OK), option, " '", dir,
           "' cannot be created in '", parent.string(), "': ");
}

void Harness::checkTraceFile(const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  check(!fs::is_directory(path, ec), "--trace '", path, "' is a directory");
  fs::path parent = fs::absolute(path, ec).parent_path();
  check(fs::is_directory(parent, ec), "--trace '", path, "': directory '",
        parent.string(), "' does not exist");
  checkSys(::access(parent.c_str(), W_OK | X_OK), "--trace '", path,
           "': directory '", parent.string(), "' is not writable: ");
}

void Harness::checkOutputsSpareInputs(
    const std::vector<std::string> &names) const {
  namespace fs = std::filesystem;
  if (opts_.outputDir.empty())
    return;
  for (const std::string &name : names) {
    fs::path out = fs::path(opts_.outputDir) / (name + ".npy");
    std::error_code ec;
    if (!fs::exists(out, ec))
      continue;
    for (const auto &[in, file] : opts_.inputs)
      check(!fs::equivalent(out, file, ec), "--output-dir '", opts_.outputDir,
            "' would replace '", out.string(), "', which --input ", in, "=",
            file, " reads; write the outputs to another directory");
  }
}

Tensor Harness::reducePartial(const ProgramTensor &t, Tensor local) {
  if (t.partialAxes.empty())
    return local;
  Tensor reduced = be_->empty(local.dtype, local.shape);
  be_->allReduce(local, reduced, t.partialAxes, t.partialKind);
  return reduced;
}

void Harness::writeOutputs() {
  be_->setProfiler(nullptr);
  // Every rank takes part in each gather; rank 0 collects failures.
  std::string firstError;
  if (rank_ == 0 && !opts_.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts_.outputDir, ec);
    if (!std::filesystem::is_directory(opts_.outputDir))
      firstError = "cannot create output directory '" + opts_.outputDir + "'" +
                   (ec ? ": " + ec.message() : std::string());
  }
  for (std::size_t i = 0; i < info_.outputs.size(); ++i) {
    const ProgramTensor &t = info_.outputs[i];
    Tensor local = ctx_->outputs()[i];
    check(local.data != nullptr || local.numElements() == 0,
          "the step did not produce output '", t.name, "'");
    local = reducePartial(t, local);
    Tensor global = be_->gatherToRoot(local, t.layout, t.globalShape);
    if (rank_ != 0)
      continue;
    // Pads never reach a file: the padded global value cropped to the
    // logical shape.
    global = cropHostTensor(global, logicalShapeOf(t));
    std::ostringstream line;
    line << "output " << t.name << ": " << dtypeName(t.dtype)
         << shapeToString(global.shape);
    if (!opts_.outputDir.empty() && firstError.empty()) {
      std::string path = opts_.outputDir + "/" + t.name + ".npy";
      try {
        writeNpy(path, global.dtype, global.shape, global.data);
        line << " -> " << path;
      } catch (const Error &e) {
        if (firstError.empty())
          firstError = e.what();
      }
    }
    std::cout << line.str() << "\n";
  }
  std::cout.flush();
  if (!firstError.empty())
    fail(firstError);
}

// The allocator's high-water mark over everything the run held (inputs,
// intermediates, collective buffers), max and min over ranks.
bool Harness::publishTrace(const Trace &trace) {
  std::string err =
      writeTraceFile(be_->communicator(), trace, rank_, size_, opts_.trace);
  if (!agreeOn(err.empty(), err))
    return false;
  if (rank_ == 0)
    std::cout << "trace -> " << opts_.trace << "\n" << std::flush;
  return true;
}

void Harness::reportMemory(const char *what) const {
  if (!opts_.memoryReport)
    return;
  BufferPool::Stats st = be_->memoryStats();
  unsigned long long mine[2] = {st.peakRequestedBytes, st.peakLiveBytes};
  unsigned long long mx[2], mn[2];
  MPI_Reduce(mine, mx, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, mn, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
  if (rank_ == 0)
    std::cout << "weft memory: peak live bytes per device: max " << mx[0]
              << ", min " << mn[0] << " over " << size_
              << " rank(s) (tensor bytes; in pool size classes: max " << mx[1]
              << ")" << what << std::endl;
}

int Harness::run(int argc, char **argv) {
  // 1. The command line and the mesh: the same on every rank, so every rank
  //    reports the same error and no communication is needed.
  try {
    opts_ = parseHarnessOptions(info_, argc, argv);
  } catch (const Error &e) {
    error(e.what());
    return 1;
  }
  if (opts_.help) {
    if (rank_ == 0)
      std::cout << harnessUsage(info_, argv[0]);
    return 0;
  }
  try {
    checkProgramTensors(info_);
  } catch (const Error &e) {
    error("program '" + info_.name + "': " + e.what());
    return 1;
  }
  mesh_ = Mesh(info_.mesh);
  if (mesh_.numDevices() != size_) {
    error("program '" + info_.name + "' is compiled for mesh " + mesh_.str() +
          " of " + std::to_string(mesh_.numDevices()) +
          " device(s), but was started on " + std::to_string(size_) +
          " rank(s); run it with mpirun -np " +
          std::to_string(mesh_.numDevices()));
    return 1;
  }

  // 2. Backend, inputs and the output directory: failures may differ
  //    between ranks, so they are agreed on before anything communicates.
  bool ok = true;
  std::string message;
  std::vector<Tensor> inputs;
  bool training = isTrainingProgram(info_);
  std::string banner;
  try {
    be_ = createBackend(opts_.backend, mesh_, rank_);
    double timeout = opts_.commTimeout >= 0
                         ? opts_.commTimeout
                         : commTimeoutFromEnv(kDefaultCommTimeout);
    be_->setCommTimeout(timeout);
    // Read on every rank, so a bad setting it reads ($WEFT_CPU_GEMM) is
    // an error every rank agrees on.
    banner = be_->startBanner();
  } catch (const std::exception &e) {
    message = e.what();
    ok = false;
  }
  if (!agreeOn(ok, message))
    return 1;
  // Which GEMM library and kernel ISA run (CpuGemmInfo.h): one line.
  // One write with its newline: std::cerr writes each << at once, and
  // mpirun forwards each write as it comes, so a newline written apart
  // could land after the step lines the rank prints next ("...AVX-512step
  // 1 loss", seen in a CI run of training/fsdp-mlp.test).
  if (rank_ == 0 && !banner.empty())
    std::cerr << (banner + "\n") << std::flush;
  // --resume: rank 0 decides whether there is a checkpoint to resume from.
  if (training && opts_.resume) {
    int has = 0;
    if (rank_ == 0)
      has = !listCheckpoints(opts_.saveDir).empty();
    MPI_Bcast(&has, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (has)
      opts_.loadDir = opts_.saveDir;
  }
  // Dynamic loss scaling starts at --loss-scale (a checkpoint may hold
  // where an earlier run left it).
  for (const ProgramTensor &t : info_.inputs)
    if (t.role == TensorRole::LossScale)
      lossScale_ = opts_.lossScaleInit;
  // The checkpoint first: its step is the run's first, and a torn or
  // damaged one is refused before any input is read.
  if (training && !opts_.loadDir.empty()) {
    try {
      openCheckpoint();
    } catch (const std::exception &e) {
      message = e.what();
      ok = false;
    }
    if (!agreeOn(ok, message))
      return 1;
  }
  try {
    for (std::size_t i = 0; i < info_.inputs.size(); ++i)
      inputs.push_back(training ? loadTrainingInput(i) : loadInput(i));
  } catch (const std::exception &e) {
    message = e.what();
    ok = false;
  }
  if (!agreeOn(ok, message))
    return 1;
  // Every rank is here: agree whether any has a collective timeout (none:
  // the blocking collectives may use MPI's blocking calls, Communicator.h),
  // and open the status board the watchdog reports from (RankStatus.h).
  rankstatus::open();
  rankstatus::startWatchdog(be_->communicator().timeout());
  be_->communicator().agreeOnTimeout();
  // --init: every rank loaded its other inputs, so the broadcasts of the
  // drawn parameters meet on every rank (an error there ends the job).
  if (training) {
    try {
      initParameters(inputs);
    } catch (const std::exception &e) {
      error(e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  // The output directories are checked now and created when written: a
  // failed run leaves no empty directory behind.
  try {
    if (rank_ == 0) {
      if (!opts_.outputDir.empty())
        checkOutputDir(opts_.outputDir, "--output-dir");
      if (!opts_.saveDir.empty())
        checkOutputDir(opts_.saveDir, "--save");
      if (!opts_.trace.empty())
        checkTraceFile(opts_.trace);
      std::vector<std::string> written;
      if (training) {
        for (const ProgramTensor &t : info_.inputs)
          if (t.role == TensorRole::Param)
            written.push_back(t.name);
      } else {
        for (const ProgramTensor &t : info_.outputs)
          written.push_back(t.name);
      }
      checkOutputsSpareInputs(written);
    }
  } catch (const std::exception &e) {
    message = e.what();
    ok = false;
  }
  if (!agreeOn(ok, message))
    return 1;
  if (isTrainingProgram(info_))
    return runTraining(std::move(inputs));
  ctx_ = std::make_unique<StepContext>(*be_, std::move(inputs),
                                       info_.outputs.size());

  // 3. The steps. Ranks may be inside a collective when one fails, so an
  //    error here aborts the whole job.
  Profiler prof;
  std::unique_ptr<Trace> trace;
  std::vector<double> times;
  try {
    for (int i = 0; i < opts_.warmup; ++i) {
      info_.step(*ctx_);
      ctx_->finishAllPending();
    }
    if (!opts_.trace.empty()) {
      // The time origin of every rank: right after a barrier.
      watchedWorldBarrier(be_->communicator());
      trace = std::make_unique<Trace>(wallSeconds());
      prof.setTrace(trace.get());
    }
    if (opts_.profile || trace)
      be_->setProfiler(&prof);
    std::size_t liveAtStart = be_->memoryStats().liveRequestedBytes;
    for (int i = 0; i < opts_.iters; ++i) {
      watchedWorldBarrier(be_->communicator());
      double t0 = wallSeconds();
      if (trace)
        trace->setStep(i + 1);
      info_.step(*ctx_);
      ctx_->finishAllPending();
      be_->synchronize();
      if (trace)
        trace->add("step " + std::to_string(i + 1), "step", t0, wallSeconds());
      watchedWorldBarrier(be_->communicator());
      times.push_back(wallSeconds() - t0);
    }
    be_->setProfiler(nullptr);
    // The high-water mark of the whole run (the warmup and the loading of
    // the inputs included): what --memory-report prints for a forward
    // program.
    if (trace)
      trace->setMemory(
          static_cast<double>(liveAtStart),
          static_cast<double>(be_->memoryStats().peakRequestedBytes));
  } catch (const std::exception &e) {
    error(std::string("in the step: ") + e.what() + "; aborting");
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }

  if (trace && !publishTrace(*trace))
    return 1;

  // 4. Outputs, gathered to rank 0.
  ok = true;
  try {
    writeOutputs();
  } catch (const std::exception &e) {
    message = e.what();
    ok = false;
  }
  if (!agreeOn(ok, message))
    return 1;

  reportMemory("");

  // The step time: with --profile after the per-op table (the profiler
  // synchronizes around every op, so it includes that), and without it
  // whenever more than one step was timed (the plain step time).
  if ((opts_.profile || opts_.iters > 1) && rank_ == 0) {
    std::sort(times.begin(), times.end());
    if (opts_.profile) {
      std::ostringstream title;
      title << "weft profile: " << info_.name << " on " << size_
            << " rank(s), backend " << be_->name() << ", rank 0, "
            << opts_.iters << " iteration(s)";
      prof.print(std::cout, title.str(), opts_.iters);
    }
    char line[160];
    std::snprintf(line, sizeof(line),
                  "step time: median %.3f ms, min %.3f ms, max %.3f ms over "
                  "%d iteration(s) (%d warmup)\n",
                  times[times.size() / 2] * 1e3, times.front() * 1e3,
                  times.back() * 1e3, opts_.iters, opts_.warmup);
    std::cout << line << std::flush;
  }
  return 0;
}

int runProgram(const ProgramInfo &info, int argc, char **argv) {
  try {
    MpiSession mpi(&argc, &argv);
    return Harness(info, mpi.rank(), mpi.size()).run(argc, argv);
  } catch (const std::exception &e) {
    std::cerr << "weft: error: " << e.what() << std::endl;
    return 1;
  }
}

} // namespace weft::rt

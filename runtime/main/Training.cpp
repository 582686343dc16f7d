//===- Training.cpp - The harness of a training step ----------------------===//
//
// A program compiled with weftc --train (--weft-optimizer) takes its
// parameters, their optimizer state, the step count, the learning rate and
// a batch, and returns the loss, the new parameters and the new state, each
// marked as the update of one input (ProgramTensor::role, ::updates). This
// file runs --steps such steps in one process: the updated tensors are fed
// back as the next step's inputs (donated, StepContext::donate, so the
// buffers are reused instead of doubled), a batch input whose .npy has a
// leading step dimension S gives step t its batch (t-1) mod S (micro-batch
// k of K: batch ((t-1)K + k) mod S), and rank 0
// prints one line per step. A checkpoint (Checkpoint.h) is a directory of
// one global .npy per parameter and state tensor plus step.npy and a
// manifest, published whole by one rename, so a run may resume on any
// number of ranks and never from a torn checkpoint. docs/training.md.
//
//===----------------------------------------------------------------------===//

#include "GraphedStep.h"
#include "Harness.h"

#include "weft/rt/Checkpoint.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiComm.h"
#include "weft/rt/MpiCommunicator.h"
#include "weft/rt/Npy.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/RankStatus.h"
#include "weft/rt/Rng.h"
#include "weft/rt/Trace.h"

#include "TraceOutput.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>

namespace weft::rt {

bool isTrainingProgram(const ProgramInfo &info) {
  return std::any_of(info.outputs.begin(), info.outputs.end(),
                     [](const ProgramTensor &t) { return t.updates >= 0; });
}

namespace {

/// A rank-0 host tensor holding `value` in `dtype` (f32 or f64).
Tensor hostScalar(DType dtype, double value) {
  Tensor h = hostTensor(dtype, {});
  if (dtype == DType::F64)
    *static_cast<double *>(h.data) = value;
  else if (dtype == DType::F32)
    *static_cast<float *>(h.data) = static_cast<float>(value);
  else
    fail("a step or learning-rate input must be f32 or f64, not ",
         dtypeName(dtype));
  return h;
}

double scalarValue(const Tensor &host) {
  std::optional<double> v = hostScalarValue(host);
  if (!v || (host.dtype != DType::F64 && host.dtype != DType::F32))
    fail("the loss must be f32 or f64, not ", dtypeName(host.dtype));
  return *v;
}

std::string join(const std::string &dir, const std::string &name) {
  return dir + "/" + name + ".npy";
}

} // namespace

Tensor Harness::loadTrainingInput(std::size_t i) {
  const ProgramTensor &t = info_.inputs[i];
  if (batches_.size() != info_.inputs.size())
    batches_.assign(info_.inputs.size(), {});
  if (i == 0 && !opts_.tokens.file.empty())
    openTokens(); // Binds the --token-inputs (TokenInputs.cpp).
  // Blocks of the padded global shape; files hold the logical shape
  // (checkpoints too, so they load on any number of ranks), pads are zero.
  const Shape &logical = logicalShapeOf(t);
  Shape block = localShape(mesh_, t.layout, t.globalShape);
  auto offsets = blockOffsets(mesh_, t.layout, t.globalShape, rank_);
  auto readBlock = [&](const std::string &path) {
    Tensor host = hostTensor(t.dtype, block);
    try {
      readNpyBlockClipped(path, t.dtype, logical, offsets, block, host.data);
    } catch (const Error &e) {
      fail(roleName(t.role), " '", t.name, "' (", describeShape(t), ") from ",
           path, ": ", e.what());
    }
    return be_->upload(host);
  };
  std::string file = inputFile(t.name);
  switch (t.role) {
  case TensorRole::Step:
  case TensorRole::LearningRate:
  case TensorRole::LossScale:
    check(file.empty(), "input '", t.name, "' is the ", roleName(t.role),
          ", which the harness supplies every step (see --help); it takes no "
          "--input");
    check(t.globalShape.empty(), "the ", roleName(t.role), " input '", t.name,
          "' must be rank 0");
    return be_->upload(hostScalar(t.dtype, 0));
  case TensorRole::State:
    check(file.empty(), "input '", t.name,
          "' is optimizer state: it starts at zero, or comes from a "
          "checkpoint with --load DIR; it takes no --input");
    if (!loadedDir_.empty())
      return readBlock(join(loadedDir_, t.name));
    return be_->zeros(t.dtype, block);
  case TensorRole::Param:
    if (!opts_.loadDir.empty()) {
      // --resume reads the --input files only on a fresh start.
      check(file.empty() || opts_.resume, "parameter '", t.name,
            "' is given by both --input and --load");
      return readBlock(join(loadedDir_, t.name));
    }
    // --init: drawn and broadcast once every rank loaded the rest
    // (initParameters); a file given by --input wins over the default.
    if (file.empty() && opts_.init.ruleFor(t.name))
      return Tensor();
    return loadInput(i);
  case TensorRole::Data:
  case TensorRole::FiniteGrads: // an output's role only
    break;
  }
  if (batches_[i].tokenShift >= 0) {
    check(file.empty(), "input '", t.name, "' is fed from --tokens ",
          opts_.tokens.file, "; it takes no --input");
    return be_->zeros(t.dtype, block); // Read per step.
  }
  batches_[i].file = file;
  if (file.empty())
    return loadInput(i); // Drawn: redrawn for every step in setStepInputs.
  NpyHeader header;
  try {
    header = readNpyHeader(file);
  } catch (const Error &e) {
    fail("input '", t.name, "' (", describeShape(t), ") from ", file, ": ",
         e.what());
  }
  // The dtype now, not at the first step that reads a batch.
  check(header.dtype == npyFileDType(t.dtype), "input '", t.name, "' (",
        describeShape(t), ") from ", file, ": the file holds ",
        dtypeName(header.dtype), ", not ", dtypeName(t.dtype));
  if (header.shape == logical)
    return loadInput(i); // One batch for every step.
  Shape tail(header.shape.begin() + (header.shape.empty() ? 0 : 1),
             header.shape.end());
  check(header.shape.size() == logical.size() + 1 && tail == logical &&
            header.shape[0] >= 1,
        "input '", t.name, "' (", describeShape(t), ") from ", file,
        ": the file's shape ", shapeToString(header.shape),
        " is neither the input's shape nor [S, ...] batches of it");
  batches_[i].count = header.shape[0];
  return be_->zeros(t.dtype, block); // Read per step.
}

double Harness::learningRate(int64_t t) const {
  double base = opts_.lr >= 0 ? opts_.lr : info_.defaultLr;
  int64_t warmup = opts_.warmupSteps;
  if (warmup > 0 && t <= warmup)
    return base * static_cast<double>(t) / static_cast<double>(warmup);
  if (opts_.lrSchedule == "cosine") {
    // From `base` after the warmup down to 0 at this run's last step.
    int64_t last = startStep_ + opts_.steps;
    double span = static_cast<double>(std::max<int64_t>(1, last - warmup));
    double progress =
        std::clamp(static_cast<double>(t - warmup) / span, 0.0, 1.0);
    return base * 0.5 * (1 + std::cos(M_PI * progress));
  }
  return base;
}

void Harness::setStepInputs(int64_t t) {
  for (std::size_t i = 0; i < info_.inputs.size(); ++i) {
    const ProgramTensor &in = info_.inputs[i];
    if (in.role == TensorRole::Step)
      ctx_->setInput(i,
                     be_->upload(hostScalar(in.dtype, static_cast<double>(t))));
    else if (in.role == TensorRole::LearningRate)
      ctx_->setInput(i, be_->upload(hostScalar(in.dtype, learningRate(t))));
    else if (in.role == TensorRole::LossScale)
      ctx_->setInput(i, be_->upload(hostScalar(in.dtype, lossScale_)));
    if (in.role != TensorRole::Data)
      continue;
    Shape block = localShape(mesh_, in.layout, in.globalShape);
    auto offsets = blockOffsets(mesh_, in.layout, in.globalShape, rank_);
    // Micro-batch k of step t is batch (t-1)*K + k of the data.
    int64_t batch = (t - 1) * info_.microBatches + in.microBatch;
    const BatchSource &source = batches_[i];
    if (source.tokenShift >= 0) {
      // A window of the token file per row (TokenData.h).
      Tensor host = hostTensor(in.dtype, block);
      tokens_->fillBlock(opts_.tokens.seed, batch, source.tokenShift,
                         logicalShapeOf(in), offsets, block,
                         static_cast<int32_t *>(host.data));
      if (opts_.tokens.printWindows && source.tokenShift == 0)
        printWindows(t, batch, i);
      ctx_->setInput(i, be_->upload(host));
    } else if (int64_t count = source.count) {
      // Batch `batch` mod S of the file's leading step dimension (of the
      // logical shape; pads are zero).
      Shape fileShape = logicalShapeOf(in), fileBlock = block;
      fileShape.insert(fileShape.begin(), count);
      fileBlock.insert(fileBlock.begin(), 1);
      offsets.insert(offsets.begin(), batch % count);
      Tensor host = hostTensor(in.dtype, block);
      try {
        readNpyBlockClipped(source.file, in.dtype, fileShape, offsets,
                            fileBlock, host.data);
      } catch (const Error &e) {
        fail("batch ", batch % count, " of input '", in.name, "' from ",
             source.file, ": ", e.what());
      }
      ctx_->setInput(i, be_->upload(host));
    } else if (source.file.empty() && opts_.randomInputs) {
      // A fresh draw per step from the counter RNG.
      Tensor host = hostTensor(in.dtype, block);
      fillRandomBlockClipped(
          opts_.seed, tensorId(in.name + "#" + std::to_string(batch + 1)),
          in.dtype, logicalShapeOf(in), offsets, block, host.data, in.intBound);
      ctx_->setInput(i, be_->upload(host));
    }
  }
}

void Harness::gatherEachToRoot(
    const std::vector<std::size_t> &which, std::string *err,
    const std::function<void(const ProgramTensor &, const Tensor &)> &write) {
  for (std::size_t i : which) {
    const ProgramTensor &t = info_.inputs[i];
    Tensor global =
        be_->gatherToRoot(ctx_->inputs()[i], t.layout, t.globalShape);
    if (rank_ != 0 || !err->empty())
      continue;
    try {
      // The logical value: a checkpoint loads on any number of ranks.
      write(t, cropHostTensor(global, logicalShapeOf(t)));
    } catch (const std::exception &e) {
      *err = e.what();
    }
  }
}

std::string Harness::writeInputs(const std::string &dir,
                                 const std::vector<std::size_t> &which) {
  std::string firstError;
  if (rank_ == 0) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!std::filesystem::is_directory(dir))
      firstError = "cannot create output directory '" + dir + "'" +
                   (ec ? ": " + ec.message() : std::string());
  }
  gatherEachToRoot(
      which, &firstError, [&](const ProgramTensor &t, const Tensor &global) {
        writeNpy(join(dir, t.name), global.dtype, global.shape, global.data);
      });
  return firstError;
}

void Harness::openCheckpoint() {
  // Rank 0 resolves a root to its newest checkpoint, so every rank reads
  // the same one even if a save publishes another meanwhile.
  std::string dir, err;
  if (rank_ == 0) {
    try {
      dir = resolveCheckpoint(opts_.loadDir);
    } catch (const std::exception &e) {
      err = e.what();
    }
  }
  for (std::string *text : {&dir, &err}) {
    int len = static_cast<int>(text->size());
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    text->resize(static_cast<std::size_t>(len));
    MPI_Bcast(text->data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  if (!err.empty())
    fail(err);
  // Every rank checks sizes and headers; rank 0 reads every byte for the
  // checksums.
  CheckpointManifest m = verifyCheckpoint(dir, /*checksums=*/rank_ == 0);
  std::string where = "checkpoint '" + dir + "'";
  for (const ProgramTensor &t : info_.inputs) {
    if (t.role != TensorRole::Param && t.role != TensorRole::State)
      continue;
    const CheckpointEntry *e = m.find(t.name);
    check(e, where, " has no tensor '", t.name, "' (the program's ",
          roleName(t.role), "); it was written by another program (", m.program,
          ")");
    check(e->dtype == t.dtype && e->shape == logicalShapeOf(t), where,
          ": tensor '", t.name, "' is ", dtypeName(e->dtype),
          shapeToString(e->shape), "; the program's ", roleName(t.role), " is ",
          describeShape(t));
  }
  const CheckpointEntry *stepEntry = m.find("step");
  check(stepEntry && stepEntry->dtype == DType::I32 && stepEntry->shape.empty(),
        where, ": the manifest lists no i32 scalar 'step'");
  Tensor step = readNpy(join(dir, "step"));
  check(*static_cast<const int32_t *>(step.data) == m.step, where,
        ": step.npy holds step ", *static_cast<const int32_t *>(step.data),
        "; the manifest records ", m.step);
  startStep_ = m.step;
  loadedDir_ = dir;
  if (lossScale_ > 0) {
    // Dynamic loss scaling continues from the checkpoint's scale; one
    // written without it (an f32 or bf16 run) starts at --loss-scale.
    const CheckpointEntry *scale = m.find("loss_scale");
    const CheckpointEntry *clean = m.find("loss_scale_clean_steps");
    if (scale || clean) {
      check(scale && clean && scale->dtype == DType::F64 &&
                scale->shape.empty() && clean->dtype == DType::I32 &&
                clean->shape.empty(),
            where,
            ": the manifest needs an f64 scalar 'loss_scale' and an i32 "
            "scalar 'loss_scale_clean_steps' together");
      Tensor sv = readNpy(join(dir, "loss_scale"));
      Tensor cv = readNpy(join(dir, "loss_scale_clean_steps"));
      lossScale_ = *static_cast<const double *>(sv.data);
      lossScaleClean_ = *static_cast<const int32_t *>(cv.data);
      check(lossScale_ > 0 && std::isfinite(lossScale_) && lossScaleClean_ >= 0,
            where, ": loss_scale ", lossScale_, " and loss_scale_clean_steps ",
            lossScaleClean_, " are out of range");
    } else if (rank_ == 0) {
      std::cerr << "weft: " << where
                << " has no loss scale; dynamic loss scaling starts at "
                << lossScale_ << "\n";
    }
  }
  if (rank_ == 0 && opts_.resume)
    std::cout << "resuming from " << dir << " (step " << m.step << ")\n"
              << std::flush;
  check(startStep_ + opts_.steps <= std::numeric_limits<int32_t>::max(),
        "the step count would pass 2^31");
}

bool Harness::saveCheckpoint(int64_t step,
                             const std::vector<std::size_t> &trained) {
  std::string err;
  std::unique_ptr<CheckpointWriter> writer;
  if (rank_ == 0) {
    try {
      if (!stagingCleaned_) {
        // What an interrupted run of ours left (never published).
        removeStaleStaging(opts_.saveDir);
        stagingCleaned_ = true;
      }
      writer = std::make_unique<CheckpointWriter>(opts_.saveDir, step,
                                                  info_.name, mesh_.str());
    } catch (const std::exception &e) {
      err = e.what();
    }
  }
  // Every rank takes part in every gather, whatever failed on rank 0.
  gatherEachToRoot(trained, &err,
                   [&](const ProgramTensor &t, const Tensor &global) {
                     writer->add(t.name, roleName(t.role), global.dtype,
                                 global.shape, global.data);
                   });
  if (rank_ == 0 && err.empty()) {
    try {
      int32_t s = static_cast<int32_t>(step);
      writer->add("step", "step", DType::I32, {}, &s);
      if (lossScale_ > 0) {
        int32_t clean = static_cast<int32_t>(lossScaleClean_);
        writer->add("loss_scale", "loss scale", DType::F64, {}, &lossScale_);
        writer->add("loss_scale_clean_steps", "loss scale", DType::I32, {},
                    &clean);
      }
      savedDir_ = writer->publish(opts_.keep);
    } catch (const std::exception &e) {
      err = e.what();
    }
  }
  writer.reset(); // Unpublished: its staging directory goes.
  if (!err.empty())
    err = "checkpoint of step " + std::to_string(step) + " under '" +
          opts_.saveDir + "' not written: " + err +
          "; the checkpoints published before it are intact";
  return agreeOn(err.empty(), err);
}

std::string Harness::nonFiniteData(int64_t t) {
  std::vector<int> bad(info_.inputs.size(), 0), anyBad(bad.size(), 0);
  for (std::size_t i = 0; i < info_.inputs.size(); ++i) {
    const ProgramTensor &in = info_.inputs[i];
    if (in.role != TensorRole::Data ||
        (in.dtype != DType::F32 && in.dtype != DType::F64))
      continue;
    Tensor host = be_->download(ctx_->inputs()[i]);
    int64_t n = host.numElements();
    for (int64_t k = 0; k < n && !bad[i]; ++k) {
      double v = in.dtype == DType::F32
                     ? static_cast<const float *>(host.data)[k]
                     : static_cast<const double *>(host.data)[k];
      bad[i] = !std::isfinite(v);
    }
  }
  watchedWorldAllreduce(be_->communicator(), bad.data(), anyBad.data(),
                        static_cast<int>(bad.size()), MPI_INT, MPI_MAX);
  std::string what;
  for (std::size_t i = 0; i < info_.inputs.size(); ++i) {
    if (!anyBad[i])
      continue;
    const ProgramTensor &in = info_.inputs[i];
    // Where the values came from: "(batch B of FILE)", "(FILE)", or
    // nothing for a drawn batch.
    const BatchSource &from = batches_[i];
    int64_t batch = (t - 1) * info_.microBatches + in.microBatch;
    std::string src;
    if (from.count)
      src = " (batch " + std::to_string(batch % from.count) + " of " +
            from.file + ")";
    else if (!from.file.empty())
      src = " (" + from.file + ")";
    what += (what.empty() ? "" : ", ") + ("'" + in.name + "'") + src;
  }
  return what;
}

bool Harness::recordStep(std::unique_ptr<GraphedStep> &graph, int64_t t) {
  double r0 = wallSeconds();
  graph = std::make_unique<GraphedStep>(*be_, *ctx_, info_);
  std::string why = graph->capture();
  int ok = why.empty() ? 1 : 0, allOk = 0;
  watchedWorldAllreduce(be_->communicator(), &ok, &allOk, 1, MPI_INT, MPI_MIN);
  if (!allOk) {
    // The step runs op by op, as without the option; a rank whose
    // recording succeeded drops it too (every rank runs the same way).
    graph.reset();
    ctx_->clearOutputs();
    if (rank_ == 0)
      std::cerr << "weft: --cuda-graph: step " << t
                << " could not be recorded ("
                << (why.empty() ? std::string("on another rank") : why)
                << "); every step runs op by op" << std::endl;
    return false;
  }
  if (rank_ == 0)
    std::cerr << "weft: --cuda-graph: step " << t << " recorded as a graph of "
              << graph->nodes() << " nodes in "
              << static_cast<int64_t>((wallSeconds() - r0) * 1e3)
              << " ms; every later step replays it" << std::endl;
  return true;
}

int Harness::runTraining(std::vector<Tensor> inputs) {
  // The step count was agreed when the checkpoint was opened (run()).
  bool ok = true;
  std::string message;
  if (loadedDir_.empty() &&
      startStep_ + opts_.steps > std::numeric_limits<int32_t>::max()) {
    message = "the step count would pass 2^31";
    ok = false;
  }
  if (!agreeOn(ok, message))
    return 1;

  ctx_ = std::make_unique<StepContext>(*be_, std::move(inputs),
                                       info_.outputs.size());
  std::vector<std::size_t> params, trained;
  for (std::size_t i = 0; i < info_.inputs.size(); ++i) {
    TensorRole role = info_.inputs[i].role;
    if (role == TensorRole::Param || role == TensorRole::State) {
      trained.push_back(i);
      if (role == TensorRole::Param)
        params.push_back(i);
    }
  }
  // Dynamic loss scaling: the output that says whether the step's
  // gradients are finite. Its updated inputs are not donated: a step that
  // overflowed keeps them (docs/precision.md, why the harness skips).
  int finiteIndex = -1;
  for (std::size_t o = 0; o < info_.outputs.size(); ++o)
    if (info_.outputs[o].role == TensorRole::FiniteGrads)
      finiteIndex = static_cast<int>(o);
  bool scaling = lossScale_ > 0;
  check(scaling == (finiteIndex >= 0),
        "the program has a loss-scale input without a finite-gradients "
        "output, or the reverse (recompile it)");
  // --cuda-graph (GraphedStep.h): nothing is donated, the recorded step
  // copies its updates into the pinned inputs itself.
  bool graphs = opts_.cudaGraph;
  if (graphs) {
    std::string why;
    if (!be_->supportsGraphs())
      why = std::string("option --cuda-graph needs the cuda backend (this "
                        "run uses ") +
            be_->name() + ")";
    else if (scaling)
      why = "option --cuda-graph: not with dynamic loss scaling "
            "(f16-mixed): whether a step is skipped is decided after it "
            "ran, and a replayed step has already updated its inputs";
    if (!agreeOn(why.empty(), why))
      return 1;
  }
  for (const ProgramTensor &o : info_.outputs)
    if (o.updates >= 0 && !scaling && !graphs)
      ctx_->donate(static_cast<std::size_t>(o.updates));
  // The loss: the first rank-0 output that updates nothing.
  int lossIndex = -1;
  for (std::size_t o = 0; o < info_.outputs.size() && lossIndex < 0; ++o)
    if (info_.outputs[o].updates < 0 && info_.outputs[o].globalShape.empty() &&
        static_cast<int>(o) != finiteIndex)
      lossIndex = static_cast<int>(o);

  Profiler prof;
  std::unique_ptr<Trace> trace;
  // The step recorded after two warm-up steps (the buffer pool then holds
  // every size the step allocates, so the recording allocates nothing).
  std::unique_ptr<GraphedStep> graph;
  constexpr int64_t kGraphWarmupSteps = 2;
  std::vector<double> times;
  int64_t first = startStep_ + 1, last = startStep_ + opts_.steps;
  // --profile's table leaves out the first step (it warms the buffer
  // pool); --trace records every step.
  auto profiling = [&](int64_t t) {
    return trace || (opts_.profile && t >= first + 1);
  };
  // --memory-report measures the steps: what they hold (inputs included)
  // and allocate, not the loading of the inputs.
  be_->resetMemoryPeak();
  try {
    if (!opts_.trace.empty()) {
      // The time origin of every rank: right after a barrier.
      watchedWorldBarrier(be_->communicator());
      trace = std::make_unique<Trace>(wallSeconds());
      prof.setTrace(trace.get());
    }
    std::size_t liveAtStart = be_->memoryStats().liveRequestedBytes;
    for (int64_t t = first; t <= last; ++t) {
      rankstatus::setStep(t);
      setStepInputs(t);
      if (profiling(t))
        be_->setProfiler(&prof);
      if (trace && opts_.profile && t == first + 1)
        prof.clear(); // The table starts at the second step.
      if (graphs && t == first + kGraphWarmupSteps)
        graphs = recordStep(graph, t);
      watchedWorldBarrier(be_->communicator());
      double t0 = wallSeconds();
      if (trace)
        trace->setStep(t);
      if (graph) {
        graph->replay();
      } else {
        ctx_->clearOutputs();
        info_.step(*ctx_);
        ctx_->finishAllPending();
      }
      double loss = std::nan("");
      if (lossIndex >= 0) {
        loss = scalarValue(be_->download(reducePartial(
            info_.outputs[lossIndex], ctx_->outputs()[lossIndex])));
      }
      // One decision on every rank: the step is skipped if any rank saw
      // a gradient that is not finite.
      bool skipped = false;
      if (scaling) {
        double f = scalarValue(be_->download(reducePartial(
            info_.outputs[finiteIndex], ctx_->outputs()[finiteIndex])));
        int overflow = f == 1.0 ? 0 : 1, anyOverflow = 0;
        watchedWorldAllreduce(be_->communicator(), &overflow, &anyOverflow, 1,
                              MPI_INT, MPI_MAX);
        skipped = anyOverflow != 0;
      }
      be_->synchronize();
      double seconds = wallSeconds() - t0;
      times.push_back(seconds);
      if (trace)
        trace->add("step " + std::to_string(t), "step", t0, t0 + seconds);
      if (!skipped && !graph) // A replay copied them into its inputs.
        for (std::size_t o = 0; o < info_.outputs.size(); ++o)
          if (info_.outputs[o].updates >= 0)
            ctx_->setInput(static_cast<std::size_t>(info_.outputs[o].updates),
                           ctx_->outputs()[o]);
      double usedScale = lossScale_;
      if (skipped) {
        lossScale_ *= opts_.lossScaleBackoff;
        lossScaleClean_ = 0;
      } else if (scaling && ++lossScaleClean_ >= opts_.lossScaleInterval) {
        lossScale_ *= opts_.lossScaleGrowth;
        lossScaleClean_ = 0;
      }
      bool print = (t - first) % opts_.logEvery == 0 || t == last || skipped;
      if (rank_ == 0 && print) {
        char line[240], scale[80] = "";
        // A whole scale (a power of two, usually) in full: 4294967296.
        if (scaling)
          std::snprintf(scale, sizeof(scale),
                        usedScale == std::floor(usedScale) && usedScale < 1e15
                            ? " scale %.0f%s"
                            : " scale %.9g%s",
                        usedScale, skipped ? " skipped (overflow)" : "");
        std::snprintf(line, sizeof(line),
                      "step %lld loss %.9g lr %.6g%s time %.3f ms\n",
                      static_cast<long long>(t), loss, learningRate(t), scale,
                      seconds * 1e3);
        std::cout << line << std::flush;
      }
      // Stop together: the ranks agree on whether any loss is not finite
      // (a replicated loss is computed on every rank; they need not
      // round alike, and one rank leaving alone would hang the others).
      // (A skipped step's loss may be infinite: the forward overflowed;
      // it changed nothing, and the smaller scale goes on.)
      int bad = lossIndex >= 0 && !std::isfinite(loss) && !skipped ? 1 : 0,
          anyBad = 0;
      watchedWorldAllreduce(be_->communicator(), &bad, &anyBad, 1, MPI_INT,
                            MPI_MAX);
      if (anyBad) {
        std::string data = nonFiniteData(t);
        if (rank_ == 0)
          error("step " + std::to_string(t) + ": the loss is " +
                (std::isnan(loss)   ? "nan"
                 : std::isinf(loss) ? "infinite"
                                    : "not finite on some rank") +
                "; stopping" +
                (data.empty()
                     ? " (lower --lr, or clip the gradients with weftc "
                       "--clip-norm)"
                     : ": the step's data hold NaN or Inf values: input " +
                           data) +
                "; no checkpoint of this step is written");
        return 1;
      }
      bool save =
          !opts_.saveDir.empty() &&
          (t == last || (opts_.saveEvery > 0 && t % opts_.saveEvery == 0));
      if (save) {
        be_->setProfiler(nullptr);
        bool saved = saveCheckpoint(t, trained);
        if (profiling(t))
          be_->setProfiler(&prof);
        if (!saved)
          return 1;
        if (rank_ == 0 && t != last)
          std::cout << "checkpoint -> " << savedDir_ << "\n" << std::flush;
      }
    }
    be_->setProfiler(nullptr);
    if (trace)
      trace->setMemory(
          static_cast<double>(liveAtStart),
          static_cast<double>(be_->memoryStats().peakRequestedBytes));
  } catch (const std::exception &e) {
    error(std::string("in training: ") + e.what() + "; aborting");
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }

  // The high-water mark of the steps (before the writes below download).
  reportMemory(" over the training steps");

  if (trace && !publishTrace(*trace))
    return 1;

  // The final parameters (--output-dir); the checkpoint of the last step
  // was written in the loop. Every rank takes part in every gather.
  if (!opts_.outputDir.empty()) {
    std::string err = writeInputs(opts_.outputDir, params);
    if (!agreeOn(err.empty(), err))
      return 1;
  }

  if (rank_ == 0) {
    if (opts_.profile && opts_.steps > 1) {
      std::ostringstream title;
      title << "weft profile: " << info_.name << " on " << size_
            << " rank(s), backend " << be_->name() << ", rank 0, steps "
            << first + 1 << ".." << last;
      prof.print(std::cout, title.str(), static_cast<int>(last - first));
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    char line[200];
    std::snprintf(line, sizeof(line),
                  "trained steps %lld..%lld on %d rank(s): median step time "
                  "%.3f ms\n",
                  static_cast<long long>(first), static_cast<long long>(last),
                  size_, sorted[sorted.size() / 2] * 1e3);
    std::cout << line;
    if (!opts_.outputDir.empty())
      std::cout << "parameters -> " << opts_.outputDir << "\n";
    if (!opts_.saveDir.empty())
      std::cout << "checkpoint -> " << savedDir_ << "\n";
    std::cout << std::flush;
  }
  return 0;
}

//===--- --init (Init.h, docs/pipeline.md)
//---------------------------------===//

void Harness::initParameters(std::vector<Tensor> &inputs) {
  if (opts_.init.empty() || !opts_.loadDir.empty())
    return;
  AxisList world;
  for (int a = 0; a < static_cast<int>(mesh_.numAxes()); ++a)
    world.push_back(a);
  std::string log;
  for (std::size_t i = 0; i < info_.inputs.size(); ++i) {
    const ProgramTensor &t = info_.inputs[i];
    if (t.role != TensorRole::Param || !inputFile(t.name).empty())
      continue;
    const InitRule *rule = opts_.init.ruleFor(t.name);
    if (!rule)
      continue;
    // Rank 0 draws the logical tensor into the padded global shape (pads
    // zero); every rank receives it and keeps its block.
    const Shape &logical = logicalShapeOf(t);
    Tensor host = hostTensor(t.dtype, t.globalShape);
    if (rank_ == 0) {
      Tensor drawn = hostTensor(t.dtype, logical);
      fillInit(*rule, opts_.initSeed, t.name, t.dtype, logical, drawn.data);
      copyStridedHost(
          CopyPlan::insertBlock(
              t.globalShape, std::vector<int64_t>(logical.size(), 0), logical),
          dtypeSize(t.dtype), drawn.data, host.data);
    }
    Tensor full = be_->upload(host);
    be_->broadcast(full, full, /*root=*/0, world, "init " + t.name);
    Shape block = localShape(mesh_, t.layout, t.globalShape);
    Tensor local = be_->empty(t.dtype, block);
    be_->slice(full, blockOffsets(mesh_, t.layout, t.globalShape, rank_),
               local);
    inputs[i] = local;
    char sd[32];
    std::snprintf(sd, sizeof(sd), "%.6g", initStd(*rule, logical));
    log += (log.empty() ? "" : ", ") + t.name + " " + rule->text +
           (rule->kind == InitRule::Scaled ? std::string(" (std ") + sd + ")"
                                           : "");
  }
  if (rank_ == 0 && !log.empty())
    std::cerr << "weft: --init seed " << opts_.initSeed << ", drawn on rank 0 "
              << "and broadcast: " << log << std::endl;
}

} // namespace weft::rt

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
// prints one line per step. Checkpoints are one global .npy per parameter
// and state tensor plus step.npy, written atomically, so a run may resume
// on any number of ranks. docs/training.md.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "weft/rt/Error.h"
#include "weft/rt/MpiComm.h"
#include "weft/rt/Npy.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/Rng.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
    if (!opts_.loadDir.empty())
      return readBlock(join(opts_.loadDir, t.name));
    return be_->zeros(t.dtype, block);
  case TensorRole::Param:
    if (!opts_.loadDir.empty()) {
      check(file.empty(), "parameter '", t.name,
            "' is given by both --input and --load");
      return readBlock(join(opts_.loadDir, t.name));
    }
    return loadInput(i);
  case TensorRole::Data:
    break;
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
      ctx_->setInput(i, be_->upload(hostScalar(
                            in.dtype, static_cast<double>(t))));
    else if (in.role == TensorRole::LearningRate)
      ctx_->setInput(i, be_->upload(hostScalar(in.dtype, learningRate(t))));
    if (in.role != TensorRole::Data)
      continue;
    Shape block = localShape(mesh_, in.layout, in.globalShape);
    auto offsets = blockOffsets(mesh_, in.layout, in.globalShape, rank_);
    // Micro-batch k of step t is batch (t-1)*K + k of the data.
    int64_t batch = (t - 1) * info_.microBatches + in.microBatch;
    const BatchSource &source = batches_[i];
    if (int64_t count = source.count) {
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
          in.dtype, logicalShapeOf(in), offsets, block, host.data,
          in.intBound);
      ctx_->setInput(i, be_->upload(host));
    }
  }
}

void Harness::writeInputs(const std::string &dir,
                          const std::vector<std::size_t> &which) {
  std::string firstError;
  for (std::size_t i : which) {
    const ProgramTensor &t = info_.inputs[i];
    Tensor global =
        be_->gatherToRoot(ctx_->inputs()[i], t.layout, t.globalShape);
    if (rank_ != 0)
      continue;
    try {
      // The logical value: a checkpoint loads on any number of ranks.
      global = cropHostTensor(global, logicalShapeOf(t));
      writeNpy(join(dir, t.name), global.dtype, global.shape, global.data);
    } catch (const Error &e) {
      if (firstError.empty())
        firstError = e.what();
    }
  }
  if (!firstError.empty())
    fail(firstError);
}

int Harness::runTraining(std::vector<Tensor> inputs) {
  // The step a checkpoint resumes after, agreed before anything runs.
  bool ok = true;
  try {
    if (!opts_.loadDir.empty()) {
      std::string path = opts_.loadDir + "/step.npy";
      Tensor step;
      try {
        step = readNpy(path);
      } catch (const Error &e) {
        fail("checkpoint step count from ", path, ": ", e.what());
      }
      check(step.dtype == DType::I32 && step.shape.empty(), "checkpoint ",
            path, ": expected an i32 scalar, got ", dtypeName(step.dtype),
            shapeToString(step.shape));
      startStep_ = *static_cast<const int32_t *>(step.data);
      check(startStep_ >= 0, "checkpoint ", path, ": negative step count ",
            startStep_);
    }
    check(startStep_ + opts_.steps <= std::numeric_limits<int32_t>::max(),
          "the step count would pass 2^31");
  } catch (const std::exception &e) {
    error(e.what());
    ok = false;
  }
  if (!agree(ok, "reading the checkpoint"))
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
  for (const ProgramTensor &o : info_.outputs)
    if (o.updates >= 0)
      ctx_->donate(static_cast<std::size_t>(o.updates));
  // The loss: the first rank-0 output that updates nothing.
  int lossIndex = -1;
  for (std::size_t o = 0; o < info_.outputs.size() && lossIndex < 0; ++o)
    if (info_.outputs[o].updates < 0 && info_.outputs[o].globalShape.empty())
      lossIndex = static_cast<int>(o);

  Profiler prof;
  std::vector<double> times;
  int64_t first = startStep_ + 1, last = startStep_ + opts_.steps;
  // --memory-report measures the steps: what they hold (inputs included)
  // and allocate, not the loading of the inputs.
  be_->resetMemoryPeak();
  try {
    for (int64_t t = first; t <= last; ++t) {
      setStepInputs(t);
      if (opts_.profile && t == first + 1)
        be_->setProfiler(&prof); // The first step warms the buffer pool.
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = wallSeconds();
      ctx_->clearOutputs();
      info_.step(*ctx_);
      ctx_->finishAllPending();
      double loss = std::nan("");
      if (lossIndex >= 0) {
        loss = scalarValue(be_->download(reducePartial(
            info_.outputs[lossIndex], ctx_->outputs()[lossIndex])));
      }
      be_->synchronize();
      double seconds = wallSeconds() - t0;
      times.push_back(seconds);
      for (std::size_t o = 0; o < info_.outputs.size(); ++o)
        if (info_.outputs[o].updates >= 0)
          ctx_->setInput(static_cast<std::size_t>(info_.outputs[o].updates),
                         ctx_->outputs()[o]);
      bool print = (t - first) % opts_.logEvery == 0 || t == last;
      if (rank_ == 0 && print) {
        char line[200];
        std::snprintf(line, sizeof(line),
                      "step %lld loss %.9g lr %.6g time %.3f ms\n",
                      static_cast<long long>(t), loss, learningRate(t),
                      seconds * 1e3);
        std::cout << line << std::flush;
      }
      // Stop together: the ranks agree on whether any loss is not finite
      // (a replicated loss is computed on every rank; they need not
      // round alike, and one rank leaving alone would hang the others).
      int bad = lossIndex >= 0 && !std::isfinite(loss) ? 1 : 0, anyBad = 0;
      MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (anyBad) {
        if (rank_ == 0)
          error("step " + std::to_string(t) + ": the loss is " +
                (std::isnan(loss)   ? "nan"
                 : std::isinf(loss) ? "infinite"
                                    : "not finite on some rank") +
                "; stopping (lower --lr, or clip the gradients with "
                "weftc --clip-norm)");
        return 1;
      }
    }
    be_->setProfiler(nullptr);
  } catch (const std::exception &e) {
    error(std::string("in training: ") + e.what() + "; aborting");
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }

  // The high-water mark of the steps (before the writes below download).
  reportMemory(" over the training steps");

  // The final parameters (--output-dir) and a checkpoint (--save).
  ok = true;
  try {
    if (!opts_.outputDir.empty())
      writeInputs(opts_.outputDir, params);
    if (!opts_.saveDir.empty()) {
      writeInputs(opts_.saveDir, trained);
      if (rank_ == 0) {
        int32_t step = static_cast<int32_t>(last);
        writeNpy(opts_.saveDir + "/step.npy", DType::I32, {}, &step);
      }
    }
  } catch (const std::exception &e) {
    error(e.what());
    ok = false;
  }
  if (!agree(ok, "writing the parameters"))
    return 1;

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
      std::cout << "checkpoint -> " << opts_.saveDir << "\n";
    std::cout << std::flush;
  }
  return 0;
}

} // namespace weft::rt

//===- HarnessTests.cpp - The program harness on padded tensors -----------===//
//
// Run under mpiexec with 1, 2, 4 and 8 processes. Hand-written programs
// (what weftc would generate) over a mesh ["x" = world size] with a tensor
// of logical shape [7, 3] padded to [8, 4] (rows split over x, columns
// padded but not split; at 8 ranks the last rank's block is all padding)
// go through runProgram, the harness's entry point: inputs from a logical
// .npy or drawn at random, outputs and checkpoints cropped to the logical
// shape, gen::padFill's block offsets, gen::cumsum, gen::topK, and malformed
// logical shapes.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Backend.h"
#include "weft/rt/Error.h"
#include "weft/rt/MpiComm.h"
#include "weft/rt/Npy.h"
#include "weft/rt/Program.h"
#include "weft/rt/Rng.h"

#include "MpiTestMain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

using namespace weft::rt;

namespace {

int gRank = 0, gSize = 1;
/// $WEFT_TEST_BACKEND (cpu by default; cuda on GPU machines), passed to
/// every run as --backend.
std::string gBackend = "cpu";

const Shape kLogical{7, 3}, kPadded{8, 4};
const std::vector<int64_t> kValid{7, 3};
const std::vector<AxisList> kDimAxes{AxisList{0}, AxisList{}};

std::string dir() {
  return std::string(WEFT_TEST_TMPDIR) + "/harness-np" + std::to_string(gSize);
}
std::string path(const std::string &name) { return dir() + "/" + name; }

/// Runs `info` through the harness with `args` (after the program name).
int run(const ProgramInfo &info, std::vector<std::string> args) {
  if (std::find(args.begin(), args.end(), "--help") == args.end()) {
    args.push_back("--backend");
    args.push_back(gBackend);
  }
  args.insert(args.begin(), "weft-test-program");
  std::vector<char *> argv;
  for (auto &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = runProgram(info, static_cast<int>(args.size()), argv.data());
  MPI_Barrier(MPI_COMM_WORLD);
  return rc;
}

/// rank 0 writes, then every rank may read.
void writeShared(const std::string &p, const Shape &shape,
                 const std::vector<float> &v) {
  if (gRank == 0)
    writeNpy(p, DType::F32, shape, v.data());
  MPI_Barrier(MPI_COMM_WORLD);
}

std::vector<float> readF32(const std::string &p, const Shape &shape) {
  Tensor t = readNpy(p);
  EXPECT_EQ(t.dtype, DType::F32) << p;
  EXPECT_EQ(t.shape, shape) << p;
  if (t.dtype != DType::F32 || t.shape != shape)
    return {};
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numElements());
}

std::vector<float> values(int64_t n, float base) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = base + static_cast<float>(i);
  return v;
}

ProgramTensor tensor(const std::string &name, bool padded,
                     TensorRole role = TensorRole::Data) {
  ProgramTensor t{.name = name,
                  .dtype = DType::F32,
                  .globalShape = kPadded,
                  .layout = Layout{.dims = kDimAxes},
                  .partialAxes = {},
                  .role = role};
  if (padded)
    t.logicalShape = kLogical;
  return t;
}

// The forward program: y = padFill(x, fill 99) and raw = x, logical;
// rawPadded = x and filled = padFill(x, fill 99) with their padded shape.
void forwardStep(StepContext &ctx) {
  Tensor x = gen::input(ctx, 0);
  Tensor y = gen::padFill(ctx, x, kValid, kDimAxes, 99.0, "pad");
  gen::output(ctx, 0, y);
  gen::output(ctx, 1, x);
  gen::output(ctx, 2, x);
  gen::output(ctx, 3, y);
}

ProgramInfo forwardProgram() {
  ProgramInfo p;
  p.name = "padded_forward";
  p.source = "HarnessTests.cpp";
  p.mesh = {MeshAxis{"x", gSize}};
  p.inputs = {tensor("x", true)};
  p.outputs = {tensor("y", true), tensor("raw", true),
               tensor("rawPadded", false), tensor("filled", false)};
  p.step = forwardStep;
  return p;
}

/// Checks the forward program's outputs on rank 0 against `x`, the logical
/// input.
void checkForwardOutputs(const std::vector<float> &x) {
  if (gRank != 0)
    return;
  EXPECT_EQ(readF32(path("out/y.npy"), kLogical), x);
  EXPECT_EQ(readF32(path("out/raw.npy"), kLogical), x);
  auto rawPadded = readF32(path("out/rawPadded.npy"), kPadded);
  auto filled = readF32(path("out/filled.npy"), kPadded);
  ASSERT_EQ(rawPadded.size(), 32u);
  ASSERT_EQ(filled.size(), 32u);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      bool inside = i < 7 && j < 3;
      float want = inside ? x[i * 3 + j] : 0.0f;
      EXPECT_EQ(rawPadded[i * 4 + j], want) << i << "," << j;
      EXPECT_EQ(filled[i * 4 + j], inside ? want : 99.0f) << i << "," << j;
    }
}

TEST(Harness, PaddedInputFromALogicalFile) {
  auto x = values(21, 1);
  writeShared(path("x.npy"), kLogical, x);
  ASSERT_EQ(run(forwardProgram(),
                {"--input", "x=" + path("x.npy"), "--output-dir", path("out")}),
            0);
  checkForwardOutputs(x);
}

TEST(Harness, PaddedRandomInputDrawsTheUnpaddedValues) {
  ASSERT_EQ(run(forwardProgram(),
                {"--random-inputs", "5", "--output-dir", path("out")}),
            0);
  std::vector<float> want(21);
  fillRandomBlock(5, tensorId("x"), DType::F32, kLogical, {0, 0}, kLogical,
                  want.data());
  checkForwardOutputs(want);
}

// gen::cumsum as generated code calls it, along the unsplit (padded) dim 1:
// the zero pads at the end of each row change no logical element, so the
// cropped outputs are the cumulative sums of the logical rows.
void cumsumStep(StepContext &ctx) {
  Tensor x = gen::input(ctx, 0);
  gen::output(ctx, 0, weft::rt::gen::cumsum(ctx, x, 1, false, true, "rcs"));
  gen::output(ctx, 1, weft::rt::gen::cumsum(ctx, x, 1, true, false, "ecs"));
}

TEST(Harness, CumsumAlongAnUnsplitDim) {
  ProgramInfo p;
  p.name = "padded_cumsum";
  p.source = "HarnessTests.cpp";
  p.mesh = {MeshAxis{"x", gSize}};
  p.inputs = {tensor("x", true)};
  p.outputs = {tensor("reverse", true), tensor("exclusive", true)};
  p.step = cumsumStep;
  auto x = values(21, 1);
  writeShared(path("cx.npy"), kLogical, x);
  ASSERT_EQ(run(p, {"--input", "x=" + path("cx.npy"), "--output-dir",
                    path("cumsum")}),
            0);
  if (gRank != 0)
    return;
  std::vector<float> reverse(21), exclusive(21);
  for (int i = 0; i < 7; ++i) {
    const float *r = &x[i * 3];
    float want[2][3] = {{r[0] + r[1] + r[2], r[1] + r[2], r[2]},
                        {0, r[0], r[0] + r[1]}};
    for (int j = 0; j < 3; ++j) {
      reverse[i * 3 + j] = want[0][j];
      exclusive[i * 3 + j] = want[1][j];
    }
  }
  EXPECT_EQ(readF32(path("cumsum/reverse.npy"), kLogical), reverse);
  EXPECT_EQ(readF32(path("cumsum/exclusive.npy"), kLogical), exclusive);
}

// gen::topK in both forms as generated code calls them, along the unsplit
// (padded) dim 1, k = 2: every logical element is >= 0 and the pads (0, the
// last column) come after them in index, so the pads never enter the top 2.
// Row i is {i % 3, 2, 2}: ties go to the lower index (columns 0 and 1 where
// all three are 2). The payload p holds 100 + the element's flat index.
void topKStep(StepContext &ctx) {
  Tensor x = gen::input(ctx, 0);
  Tensor p = gen::input(ctx, 1);
  gen::output(ctx, 0, weft::rt::gen::topK(ctx, x, 1, 2, "topv"));
  gen::output(ctx, 1, weft::rt::gen::topK(ctx, x, p, 1, 2, "topi"));
}

TEST(Harness, TopKAlongAnUnsplitDim) {
  auto top = [](const std::string &name) {
    ProgramTensor t = tensor(name, true);
    t.globalShape = {8, 2};
    t.logicalShape = Shape{7, 2};
    return t;
  };
  ProgramInfo p;
  p.name = "padded_top_k";
  p.source = "HarnessTests.cpp";
  p.mesh = {MeshAxis{"x", gSize}};
  p.inputs = {tensor("x", true), tensor("p", true)};
  p.outputs = {top("values"), top("payload")};
  p.step = topKStep;
  std::vector<float> x(21), pay = values(21, 100);
  for (int i = 0; i < 7; ++i) {
    x[i * 3] = static_cast<float>(i % 3);
    x[i * 3 + 1] = x[i * 3 + 2] = 2;
  }
  writeShared(path("tx.npy"), kLogical, x);
  writeShared(path("tp.npy"), kLogical, pay);
  ASSERT_EQ(run(p, {"--input", "x=" + path("tx.npy"), "--input",
                    "p=" + path("tp.npy"), "--output-dir", path("topk")}),
            0);
  if (gRank != 0)
    return;
  std::vector<float> wantValues(14, 2), wantPayload(14);
  for (int i = 0; i < 7; ++i) {
    bool allTwo = i % 3 == 2;
    wantPayload[i * 2] = pay[i * 3 + (allTwo ? 0 : 1)];
    wantPayload[i * 2 + 1] = pay[i * 3 + (allTwo ? 1 : 2)];
  }
  EXPECT_EQ(readF32(path("topk/values.npy"), Shape({7, 2})), wantValues);
  EXPECT_EQ(readF32(path("topk/payload.npy"), Shape({7, 2})), wantPayload);
}

TEST(Harness, PaddedShapeFileIsRejectedNamingTheLogicalShape) {
  writeShared(path("x_padded.npy"), kPadded, values(32, 1));
  testing::internal::CaptureStderr();
  int rc = run(forwardProgram(), {"--input", "x=" + path("x_padded.npy")});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  // Every rank fails; rank 0 reports it once for the job (agreeOn).
  if (gRank == 0) {
    EXPECT_NE(err.find("input 'x' (f32[7, 3], padded to [8, 4])"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("wrong shape: expected [7, 3], found [8, 4]"),
              std::string::npos)
        << err;
  }
}

TEST(Harness, HelpListsTheLogicalShape) {
  testing::internal::CaptureStdout();
  int rc = run(forwardProgram(), {"--help"});
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  if (gRank == 0) {
    EXPECT_NE(out.find("  x: f32[7, 3] layout [{x}, {}] (padded to [8, 4])"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("  rawPadded: f32[8, 4] layout [{x}, {}]\n"),
              std::string::npos)
        << out;
  }
}

TEST(Harness, MalformedLogicalShapesAreErrors) {
  struct Bad {
    Shape logical;
    const char *message;
  } bads[] = {
      {{7},
       "input 'x': logical shape [7] has rank 1 but its global shape "
       "[8, 4] has rank 2"},
      {{9, 3},
       "input 'x': logical shape [9, 3] does not fit its padded "
       "global shape [8, 4] (dim 0)"},
      {{7, -1}, "does not fit its padded global shape [8, 4] (dim 1)"},
  };
  for (const Bad &b : bads) {
    ProgramInfo p = forwardProgram();
    p.inputs[0].logicalShape = b.logical;
    testing::internal::CaptureStderr();
    int rc = run(p, {"--random-inputs", "1"});
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 1);
    EXPECT_NE(err.find(b.message), std::string::npos) << err;
  }
  ProgramInfo p = forwardProgram();
  p.outputs[2].logicalShape = {1, 2, 3};
  testing::internal::CaptureStderr();
  int rc = run(p, {"--random-inputs", "1"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("output 'rawPadded': logical shape [1, 2, 3]"),
            std::string::npos)
      << err;
}

// A training step over padded tensors: the parameter w becomes the batch d
// and the state m the old w; the loss is the step count.
void trainingStep(StepContext &ctx) {
  Tensor w = gen::input(ctx, 0), d = gen::input(ctx, 2);
  gen::output(ctx, 0, gen::input(ctx, 3)); // the loss: the step
  gen::output(ctx, 1, gen::padFill(ctx, d, kValid, kDimAxes, 0.0, "w"));
  gen::output(ctx, 2, gen::padFill(ctx, w, kValid, kDimAxes, 0.0, "m"));
}

ProgramInfo trainingProgram() {
  ProgramInfo p;
  p.name = "padded_training";
  p.source = "HarnessTests.cpp";
  p.mesh = {MeshAxis{"x", gSize}};
  ProgramTensor step{.name = "step",
                     .dtype = DType::F32,
                     .globalShape = {},
                     .layout = Layout{},
                     .partialAxes = {},
                     .role = TensorRole::Step};
  p.inputs = {tensor("w", true, TensorRole::Param),
              tensor("m", true, TensorRole::State), tensor("d", true), step};
  ProgramTensor loss{.name = "loss",
                     .dtype = DType::F32,
                     .globalShape = {},
                     .layout = Layout{},
                     .partialAxes = {}};
  ProgramTensor w = tensor("w_new", true), m = tensor("m_new", true);
  w.updates = 0;
  m.updates = 1;
  p.outputs = {loss, w, m};
  p.step = trainingStep;
  p.optimizer = "sgd";
  p.defaultLr = 0.1;
  return p;
}

TEST(Harness, TrainingCheckpointsAndBatchesUseTheLogicalShape) {
  auto w0 = values(21, 100);
  std::vector<float> batches = values(63, 1000); // [3, 7, 3]
  auto batch = [&](int k) {
    return std::vector<float>(batches.begin() + 21 * k,
                              batches.begin() + 21 * (k + 1));
  };
  writeShared(path("w0.npy"), kLogical, w0);
  writeShared(path("d.npy"), {3, 7, 3}, batches);
  ASSERT_EQ(
      run(trainingProgram(), {"--input", "w=" + path("w0.npy"), "--input",
                              "d=" + path("d.npy"), "--steps", "2", "--save",
                              path("ckpt"), "--output-dir", path("params")}),
      0);
  if (gRank == 0) {
    EXPECT_EQ(readF32(path("ckpt/step-00000002/w.npy"), kLogical), batch(1));
    EXPECT_EQ(readF32(path("ckpt/step-00000002/m.npy"), kLogical), batch(0));
    EXPECT_EQ(readF32(path("params/w.npy"), kLogical), batch(1));
  }
  // Resume: step 3 reads batch 2; the checkpoint's logical w becomes m.
  ASSERT_EQ(
      run(trainingProgram(), {"--load", path("ckpt"), "--input",
                              "d=" + path("d.npy"), "--save", path("ckpt2")}),
      0);
  if (gRank == 0) {
    EXPECT_EQ(readF32(path("ckpt2/step-00000003/w.npy"), kLogical), batch(2));
    EXPECT_EQ(readF32(path("ckpt2/step-00000003/m.npy"), kLogical), batch(1));
  }
  // One batch of the logical shape for every step.
  ASSERT_EQ(
      run(trainingProgram(), {"--input", "w=" + path("w0.npy"), "--input",
                              "d=" + path("w0.npy"), "--save", path("ckpt3")}),
      0);
  if (gRank == 0) {
    EXPECT_EQ(readF32(path("ckpt3/step-00000001/w.npy"), kLogical), w0);
  }
  // Drawn batches: those of the unpadded program.
  ASSERT_EQ(run(trainingProgram(), {"--random-inputs", "3", "--steps", "2",
                                    "--save", path("ckpt4")}),
            0);
  if (gRank == 0) {
    std::vector<float> d1(21), d2(21);
    fillRandomBlock(3, tensorId("d#1"), DType::F32, kLogical, {0, 0}, kLogical,
                    d1.data());
    fillRandomBlock(3, tensorId("d#2"), DType::F32, kLogical, {0, 0}, kLogical,
                    d2.data());
    EXPECT_EQ(readF32(path("ckpt4/step-00000002/w.npy"), kLogical), d2);
    EXPECT_EQ(readF32(path("ckpt4/step-00000002/m.npy"), kLogical), d1);
  }
  // A batch file of the padded shape is neither the input's shape nor
  // batches of it.
  writeShared(path("d_padded.npy"), kPadded, values(32, 1));
  testing::internal::CaptureStderr();
  int rc = run(trainingProgram(), {"--random-inputs", "3", "--input",
                                   "d=" + path("d_padded.npy")});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  if (gRank == 0) {
    EXPECT_NE(err.find("the file's shape [8, 4] is neither the input's shape"),
              std::string::npos)
        << err;
  }
}

} // namespace

int main(int argc, char **argv) {
  MpiSession mpi(&argc, &argv);
  gRank = mpi.rank();
  gSize = mpi.size();
  ::testing::InitGoogleTest(&argc, argv);
  gBackend = weft::rt::test::testBackendName();
  return weft::rt::test::runMpiTests(gRank, gSize, [] {
    if (gRank == 0)
      std::filesystem::create_directories(dir());
    MPI_Barrier(MPI_COMM_WORLD);
  });
}

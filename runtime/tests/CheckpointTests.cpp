//===- CheckpointTests.cpp - Checkpoints as a unit ------------------------===//
//
// The writer publishes whole checkpoints only; the reader refuses a
// directory without a manifest and any file that does not match it.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Checkpoint.h"
#include "weft/rt/Error.h"
#include "weft/rt/Npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

using namespace weft::rt;
namespace fs = std::filesystem;

namespace {

std::string freshRoot(const std::string &name) {
  std::string root = std::string(WEFT_TEST_TMPDIR) + "/ckpt-" + name;
  fs::remove_all(root);
  return root;
}

/// Publishes step `step` with two tensors whose values depend on `step`.
std::string writeStep(const std::string &root, int64_t step, int keep = 0) {
  CheckpointWriter w(root, step, "prog", "[\"data\" = 2]");
  std::vector<float> a(12);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(step * 100 + static_cast<int64_t>(i));
  int32_t s = static_cast<int32_t>(step);
  w.add("w", "parameter", DType::F32, {3, 4}, a.data());
  w.add("step", "step", DType::I32, {}, &s);
  return w.publish(keep);
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

void flipByte(const std::string &path, std::size_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x40);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

} // namespace

// A bf16 tensor is checkpointed as an f32 .npy file (numpy has no bf16),
// exactly; the manifest keeps bf16, verification accepts the f32 file, and
// reading it back into bf16 gives the same bits (docs/precision.md).
TEST(Checkpoint, Bf16RoundTripsThroughAnF32File) {
  std::string root = freshRoot("bf16");
  std::vector<uint16_t> bits{0x3f80, 0x3fff, 0xc2ff, 0x0001, 0x8000, 0x7f7f};
  CheckpointWriter w(root, 3, "prog", "m");
  w.add("p", "parameter", DType::BF16, {2, 3}, bits.data());
  int32_t s = 3;
  w.add("step", "step", DType::I32, {}, &s);
  std::string dir = w.publish(0);
  CheckpointManifest m = verifyCheckpoint(dir, /*checksums=*/true);
  const CheckpointEntry *e = m.find("p");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->dtype, DType::BF16);
  EXPECT_EQ(readNpyHeader(dir + "/p.npy").dtype, DType::F32);
  std::vector<uint16_t> back(bits.size());
  readNpyBlock(dir + "/p.npy", DType::BF16, {2, 3}, {0, 0}, {2, 3},
               back.data());
  EXPECT_EQ(back, bits);
}

// An f16 tensor is checkpointed as numpy's own float16 (<f2): the file
// holds the bits, the manifest says f16, and reading it back gives the
// same bits (docs/precision.md).
TEST(Checkpoint, F16RoundTripsThroughAnF16File) {
  std::string root = freshRoot("f16");
  // 1, 1 + 2^-10, -65504 (the largest), the smallest subnormal, -0, inf.
  std::vector<uint16_t> bits{0x3c00, 0x3c01, 0xfbff, 0x0001, 0x8000, 0x7c00};
  CheckpointWriter w(root, 3, "prog", "m");
  w.add("p", "parameter", DType::F16, {2, 3}, bits.data());
  int32_t s = 3;
  w.add("step", "step", DType::I32, {}, &s);
  std::string dir = w.publish(0);
  CheckpointManifest m = verifyCheckpoint(dir, /*checksums=*/true);
  const CheckpointEntry *e = m.find("p");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->dtype, DType::F16);
  EXPECT_EQ(readNpyHeader(dir + "/p.npy").dtype, DType::F16);
  std::vector<uint16_t> back(bits.size());
  readNpyBlock(dir + "/p.npy", DType::F16, {2, 3}, {0, 0}, {2, 3}, back.data());
  EXPECT_EQ(back, bits);
}

TEST(Checkpoint, Crc32MatchesZlib) {
  // zlib.crc32(b"123456789") == 0xcbf43926, the CRC-32 check value.
  EXPECT_EQ(crc32("123456789", 9), 0xcbf43926u);
  EXPECT_EQ(crc32("", 0), 0u);
  // Continuation over a split equals the whole, across the 8-byte path.
  std::string s = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(crc32(s.data(), s.size()), 0x414fa339u);
  EXPECT_EQ(crc32(s.data() + 13, s.size() - 13, crc32(s.data(), 13)),
            0x414fa339u);
}

TEST(Checkpoint, ManifestRoundTrip) {
  CheckpointManifest m;
  m.step = 42;
  m.program = "t1 \"sae\"";
  m.mesh = "[\"data\" = 4]";
  m.tensors.push_back(
      {"W_enc", "parameter", DType::F32, {256, 2048}, 2097280, 0xdeadbeefu});
  m.tensors.push_back({"step", "step", DType::I32, {}, 132, 7});
  CheckpointManifest r = parseManifest(manifestToJson(m), "m.json");
  EXPECT_EQ(r.step, 42);
  EXPECT_EQ(r.program, m.program);
  EXPECT_EQ(r.mesh, m.mesh);
  ASSERT_EQ(r.tensors.size(), 2u);
  EXPECT_EQ(r.tensors[0].name, "W_enc");
  EXPECT_EQ(r.tensors[0].shape, (Shape{256, 2048}));
  EXPECT_EQ(r.tensors[0].bytes, 2097280u);
  EXPECT_EQ(r.tensors[0].crc, 0xdeadbeefu);
  EXPECT_EQ(r.tensors[1].dtype, DType::I32);
  EXPECT_TRUE(r.tensors[1].shape.empty());
}

TEST(Checkpoint, MalformedManifestsAreRefused) {
  EXPECT_THAT(errorOf([] { parseManifest("", "m"); }),
              testing::HasSubstr("malformed manifest"));
  EXPECT_THAT(errorOf([] { parseManifest("{\"format\": \"x\"}", "m"); }),
              testing::HasSubstr("not a weft checkpoint manifest"));
  EXPECT_THAT(errorOf([] {
                parseManifest("{\"format\": \"weft-checkpoint\", \"version\": "
                              "2, \"step\": 1}",
                              "m");
              }),
              testing::HasSubstr("version 2"));
  std::string good = "{\"format\": \"weft-checkpoint\", \"version\": 1, "
                     "\"step\": 3, \"program\": \"p\", \"mesh\": \"m\", "
                     "\"tensors\": [{\"name\": \"../x\", \"file\": "
                     "\"../x.npy\", \"role\": \"parameter\", \"dtype\": "
                     "\"f32\", \"shape\": [2], \"bytes\": 136, \"crc32\": 1}]}";
  EXPECT_THAT(errorOf([&] { parseManifest(good, "m"); }),
              testing::HasSubstr("is not a file name"));
  EXPECT_THAT(errorOf([&] { parseManifest(good + "x", "m"); }),
              testing::HasSubstr("text after"));
}

TEST(Checkpoint, PublishesWholeAndVerifies) {
  std::string root = freshRoot("publish");
  std::string dir = writeStep(root, 5);
  EXPECT_EQ(fs::path(dir).filename(), "step-00000005");
  EXPECT_EQ(resolveCheckpoint(root), dir);
  EXPECT_EQ(resolveCheckpoint(dir), dir);
  CheckpointManifest m = verifyCheckpoint(dir, /*checksums=*/true);
  EXPECT_EQ(m.step, 5);
  ASSERT_EQ(m.tensors.size(), 2u);
  // The file is a plain .npy, and its CRC is the manifest's.
  Tensor w = readNpy(dir + "/w.npy");
  EXPECT_EQ(static_cast<const float *>(w.data)[11], 511.0f);
  // No staging directory is left.
  for (const auto &e : fs::directory_iterator(root))
    EXPECT_EQ(e.path().filename().string().rfind(".step-", 0),
              std::string::npos)
        << e.path();
}

TEST(Checkpoint, NewestIsLoadedAndKeepPrunesOldest) {
  std::string root = freshRoot("keep");
  for (int64_t s : {1, 2, 3, 4})
    writeStep(root, s, /*keep=*/2);
  auto all = listCheckpoints(root);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].first, 3);
  EXPECT_EQ(all[1].first, 4);
  EXPECT_EQ(verifyCheckpoint(resolveCheckpoint(root), true).step, 4);
  // A run resumed from step 3 saving step 3 again replaces it whole, and
  // keep never removes the checkpoint just written.
  writeStep(root, 3, /*keep=*/1);
  all = listCheckpoints(root);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].first, 3);
  verifyCheckpoint(all[0].second, true);
}

TEST(Checkpoint, UnpublishedWriterLeavesNothing) {
  std::string root = freshRoot("abandon");
  writeStep(root, 1);
  {
    CheckpointWriter w(root, 2, "prog", "m");
    float x = 1;
    w.add("w", "parameter", DType::F32, {1}, &x);
    // Destroyed without publish(): an error between the files.
  }
  auto all = listCheckpoints(root);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].first, 1);
  EXPECT_EQ(
      std::distance(fs::directory_iterator(root), fs::directory_iterator()), 1);
}

TEST(Checkpoint, TornAndDamagedCheckpointsAreRefused) {
  std::string root = freshRoot("damage");
  std::string dir = writeStep(root, 7);
  std::string file = dir + "/w.npy";

  // A flipped data byte: the checksum names the file.
  flipByte(file, 140);
  EXPECT_THAT(errorOf([&] { verifyCheckpoint(dir, true); }),
              testing::AllOf(testing::HasSubstr("w.npy"),
                             testing::HasSubstr("CRC-32")));
  // The header-only check does not read the data.
  EXPECT_NO_THROW(verifyCheckpoint(dir, false));
  flipByte(file, 140);
  EXPECT_NO_THROW(verifyCheckpoint(dir, true));

  // A file of another size (a torn write, or a tensor of another step).
  fs::resize_file(file, fs::file_size(file) - 4);
  EXPECT_THAT(errorOf([&] { verifyCheckpoint(dir, false); }),
              testing::AllOf(testing::HasSubstr("w.npy"),
                             testing::HasSubstr("the manifest records")));

  // A listed file missing.
  fs::remove(file);
  EXPECT_THAT(errorOf([&] { verifyCheckpoint(dir, false); }),
              testing::HasSubstr("w.npy"));

  // No manifest: refused, whether named directly or found in a root.
  fs::remove(dir + "/" + kManifestName);
  EXPECT_THAT(errorOf([&] { verifyCheckpoint(dir, false); }),
              testing::HasSubstr("not a complete checkpoint"));

  // The old format (step.npy and no manifest) is refused by name.
  std::string old = freshRoot("old-format");
  fs::create_directories(old);
  int32_t s = 3;
  writeNpy(old + "/step.npy", DType::I32, {}, &s);
  EXPECT_THAT(errorOf([&] { resolveCheckpoint(old); }),
              testing::HasSubstr("old format"));
  EXPECT_THAT(errorOf([&] { resolveCheckpoint(old + "/nowhere"); }),
              testing::HasSubstr("does not exist"));
}

TEST(Checkpoint, StaleStagingIsRemoved) {
  std::string root = freshRoot("stale");
  writeStep(root, 1);
  fs::create_directories(root + "/.step-00000002.partial-12345");
  std::ofstream(root + "/.step-00000002.partial-12345/w.npy") << "torn";
  // A pruned checkpoint whose removal was interrupted: renamed away first,
  // so it is hidden too.
  fs::create_directories(root + "/.step-00000000.deleting-12345");
  EXPECT_EQ(listCheckpoints(root).size(), 1u);
  EXPECT_EQ(removeStaleStaging(root), 2);
  EXPECT_EQ(listCheckpoints(root).size(), 1u);
  EXPECT_FALSE(fs::exists(root + "/.step-00000002.partial-12345"));
}

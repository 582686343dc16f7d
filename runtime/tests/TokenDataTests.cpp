//===- TokenDataTests.cpp - --tokens windows and token-file checks --------===//

#include "TokenData.h"

#include "weft/rt/Error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace weft::rt;

namespace {

std::string tmp(const std::string &name) {
  return std::string(WEFT_TEST_TMPDIR) + "/" + name;
}

/// Tokens 0, 1, 2, ... (mod 251) as u16 or u32.
std::string writeTokens(const std::string &name, int64_t n, int bytes,
                        int64_t bad = -1, uint32_t badValue = 0) {
  std::string path = tmp(name);
  std::ofstream f(path, std::ios::binary);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t v = i == bad ? badValue : static_cast<uint32_t>(i % 251);
    f.write(reinterpret_cast<const char *>(&v), bytes);
  }
  return path;
}

std::string errorOf(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(TokenData, RowsOfDifferentRanksReadDifferentWindows) {
  TokenFile f(writeTokens("windows.bin", 100000, 2), 2, 64, 256);
  // Two data-parallel ranks of a [8, 64] batch: rows 0..3 and 4..7.
  for (int64_t batch = 0; batch < 5; ++batch) {
    std::set<int64_t> starts;
    for (int64_t row = 0; row < 8; ++row) {
      int64_t s = f.windowStart(7, batch, row);
      EXPECT_GE(s, 0);
      EXPECT_LE(s, f.tokens() - 65);
      starts.insert(s);
    }
    EXPECT_EQ(starts.size(), 8u) << "batch " << batch;
  }
  // Another step, another seed: other windows.
  EXPECT_NE(f.windowStart(7, 0, 0), f.windowStart(7, 1, 0));
  EXPECT_NE(f.windowStart(7, 0, 0), f.windowStart(8, 0, 0));
}

TEST(TokenData, AFreshReaderReadsWhatAContinuingOneReads) {
  std::string path = writeTokens("resume.bin", 5000, 4);
  Shape global{4, 16}, block{2, 16};
  std::vector<int64_t> offsets{2, 0};
  // An uninterrupted run reads batches 0..9; a resumed process opens the
  // file anew and reads batches 6..9.
  TokenFile run(path, 4, 16, 0);
  std::vector<std::vector<int32_t>> seen;
  for (int64_t b = 0; b < 10; ++b) {
    std::vector<int32_t> ids(32);
    run.fillBlock(3, b, 0, global, offsets, block, ids.data());
    seen.push_back(ids);
  }
  TokenFile resumed(path, 4, 16, 0);
  for (int64_t b = 6; b < 10; ++b) {
    std::vector<int32_t> ids(32);
    resumed.fillBlock(3, b, 0, global, offsets, block, ids.data());
    EXPECT_EQ(ids, seen[b]) << "batch " << b;
  }
}

TEST(TokenData, IdsAndTargetsAreTheWindowAndItsShift) {
  TokenFile f(writeTokens("shift.bin", 3000, 2), 2, 8, 251);
  // Global [3, 8], this rank's block: rows 2..3 (row 3 a pad), columns
  // 4..7.
  Shape global{3, 8}, block{2, 4};
  std::vector<int64_t> offsets{2, 4};
  std::vector<int32_t> ids(8, -1), tgt(8, -1);
  f.fillBlock(1, 4, 0, global, offsets, block, ids.data());
  f.fillBlock(1, 4, 1, global, offsets, block, tgt.data());
  int64_t s = f.windowStart(1, 4, 2);
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(ids[c], (s + 4 + c) % 251);
    EXPECT_EQ(tgt[c], (s + 5 + c) % 251);
    EXPECT_EQ(ids[4 + c], 0); // The pad row.
    EXPECT_EQ(tgt[4 + c], 0);
  }
}

TEST(TokenData, BadFilesAreErrorsNamingTheProblem) {
  std::string odd = tmp("odd.bin");
  {
    std::ofstream f(odd, std::ios::binary);
    f << "abc";
  }
  EXPECT_NE(errorOf([&] {
              TokenFile(odd, 2, 4, 256);
            }).find("has 3 bytes, not a whole number of u16 tokens"),
            std::string::npos);
  std::string shortFile = writeTokens("short.bin", 10, 2);
  EXPECT_NE(errorOf([&] {
              TokenFile(shortFile, 2, 10, 256);
            }).find("holds 10 tokens; a window of sequence 10 needs 11"),
            std::string::npos);
  std::string bad = writeTokens("bad.bin", 1000, 2, 777, 300);
  EXPECT_NE(errorOf([&] { TokenFile(bad, 2, 16, 256); })
                .find("token 777 is 300, not below the program's "
                      "vocabulary of 256"),
            std::string::npos);
  std::string big = writeTokens("big.bin", 1000, 4, 5, 70000);
  EXPECT_NE(
      errorOf([&] { TokenFile(big, 4, 16, 50257); }).find("token 5 is 70000"),
      std::string::npos);
  EXPECT_NE(errorOf([&] {
              TokenFile(tmp("missing.bin"), 2, 4, 256);
            }).find("missing.bin': No such file"),
            std::string::npos);
}

TEST(TokenData, Options) {
  TokenOptions o;
  auto v = [](const char *s) { return [s] { return std::string(s); }; };
  EXPECT_TRUE(parseTokenOption("--token-dtype", v("u32"), o));
  EXPECT_EQ(o.tokenBytes, 4);
  EXPECT_TRUE(parseTokenOption("--token-inputs", v("x,y"), o));
  EXPECT_EQ(o.idsInput, "x");
  EXPECT_EQ(o.targetsInput, "y");
  EXPECT_FALSE(parseTokenOption("--input", v("a=b"), o));
  EXPECT_NE(errorOf([&] {
              parseTokenOption("--token-dtype", v("u8"), o);
            }).find("expects u16 or u32"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              parseTokenOption("--token-inputs", v("x"), o);
            }).find("expects IDS,TARGETS"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              parseTokenOption("--token-seed", v("-1"), o);
            }).find("expects an integer >= 0"),
            std::string::npos);
}

} // namespace

TEST(TokenData, RanksScanDisjointSlicesThatCoverTheFile) {
  // A bad id at each edge of the slices of 1001 tokens over 4 parts (250,
  // 250, 250 and 251 tokens): exactly one part finds it.
  for (int64_t at : {0, 249, 250, 749, 750, 1000}) {
    std::string bad = writeTokens("slice.bin", 1001, 2, at, 300);
    int found = 0;
    for (int part = 0; part < 4; ++part) {
      std::string e = errorOf([&] { TokenFile(bad, 2, 16, 256, part, 4); });
      if (!e.empty()) {
        ++found;
        EXPECT_NE(e.find("token " + std::to_string(at) + " is 300"),
                  std::string::npos)
            << e;
        EXPECT_EQ(part, at < 250 ? 0 : at < 500 ? 1 : at < 750 ? 2 : 3);
      }
    }
    EXPECT_EQ(found, 1) << "bad id at " << at;
  }
}

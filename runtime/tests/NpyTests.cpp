//===- NpyTests.cpp - .npy round trips, blocks and malformed files --------===//

#include "weft/rt/Error.h"
#include "weft/rt/Npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

using namespace weft::rt;

namespace {

std::string tmp(const std::string &name) {
  return std::string(WEFT_TEST_TMPDIR) + "/" + name;
}

void writeRaw(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A version-1.0 file with header dict `dict` and `dataBytes` zero bytes.
std::string npyBytes(const std::string &dict, std::size_t dataBytes) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::string s = "\x93NUMPY";
  s += '\x01';
  s += '\x00';
  s += static_cast<char>(h.size() & 0xff);
  s += static_cast<char>(h.size() >> 8);
  return s + h + std::string(dataBytes, '\0');
}

/// Expects readNpyBlock on `path` to throw an Error mentioning `what`.
void expectError(const std::string &path, DType dt, const Shape &shape,
                 const std::string &what) {
  std::vector<char> buf(1 << 12);
  try {
    readNpyBlock(path, dt, shape, std::vector<int64_t>(shape.size(), 0), shape,
                 buf.data());
    ADD_FAILURE() << "no error for " << path;
  } catch (const Error &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
  }
}

TEST(Npy, RoundTripEveryDtype) {
  Shape shape{3, 4, 5};
  for (DType dt : {DType::F32, DType::F64, DType::I32, DType::F16}) {
    std::vector<char> data(numElements(shape) * dtypeSize(dt));
    for (std::size_t i = 0; i < data.size(); ++i)
      data[i] = static_cast<char>(i * 7 + 3);
    std::string path = tmp(std::string("rt_") + dtypeName(dt) + ".npy");
    writeNpy(path, dt, shape, data.data());
    NpyHeader h = readNpyHeader(path);
    EXPECT_EQ(h.dtype, dt);
    EXPECT_EQ(h.shape, shape);
    EXPECT_EQ(h.dataOffset % 64, 0);
    Tensor t = readNpy(path);
    ASSERT_EQ(t.bytes(), data.size());
    EXPECT_EQ(std::memcmp(t.data, data.data(), data.size()), 0);
  }
}

TEST(Npy, ScalarAndVectorHeaders) {
  float x = 2.5f;
  writeNpy(tmp("scalar.npy"), DType::F32, {}, &x);
  EXPECT_EQ(readNpyHeader(tmp("scalar.npy")).shape, Shape{});
  EXPECT_EQ(readNpy(tmp("scalar.npy")).ptr<float>()[0], 2.5f);
  std::vector<double> v{1, 2, 3};
  writeNpy(tmp("vec.npy"), DType::F64, {3}, v.data());
  EXPECT_EQ(readNpyHeader(tmp("vec.npy")).shape, Shape{3});
}

// A header numpy itself wrote (numpy 1.x, np.save of arange(6, dtype=f4)
// reshaped to (2, 3)), to pin compatibility beyond our own writer.
TEST(Npy, ReadsNumpyWrittenHeader) {
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string bytes = npyBytes(dict, 0);
  for (int i = 0; i < 6; ++i) {
    float f = static_cast<float>(i);
    bytes.append(reinterpret_cast<const char *>(&f), 4);
  }
  writeRaw(tmp("numpy.npy"), bytes);
  Tensor t = readNpy(tmp("numpy.npy"));
  EXPECT_EQ(t.shape, (Shape{2, 3}));
  EXPECT_EQ(t.ptr<float>()[5], 5.0f);
}

TEST(Npy, EachBlockOfEveryLayout) {
  Shape g{4, 6, 8};
  std::vector<int32_t> data(numElements(g));
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<int32_t>(i);
  std::string path = tmp("blocks.npy");
  writeNpy(path, DType::I32, g, data.data());
  // Blocks of 2x2x2 = 8 ranks, and splits of a single dim.
  std::vector<Shape> blocks{
      {2, 3, 4}, {1, 6, 8}, {4, 1, 8}, {4, 6, 2}, {4, 6, 8}};
  for (const Shape &b : blocks)
    for (int64_t i = 0; i < g[0] / b[0]; ++i)
      for (int64_t j = 0; j < g[1] / b[1]; ++j)
        for (int64_t k = 0; k < g[2] / b[2]; ++k) {
          std::vector<int64_t> off{i * b[0], j * b[1], k * b[2]};
          std::vector<int32_t> got(numElements(b), -1);
          readNpyBlock(path, DType::I32, g, off, b, got.data());
          for (int64_t x = 0; x < b[0]; ++x)
            for (int64_t y = 0; y < b[1]; ++y)
              for (int64_t z = 0; z < b[2]; ++z)
                ASSERT_EQ(got[(x * b[1] + y) * b[2] + z],
                          ((off[0] + x) * g[1] + off[1] + y) * g[2] + off[2] +
                              z);
        }
}

TEST(Npy, MalformedFiles) {
  std::string ok =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  expectError(tmp("missing.npy"), DType::F32, {2, 3}, "cannot open");

  writeRaw(tmp("ok.npy"), npyBytes(ok, 24));
  expectError(tmp("ok.npy"), DType::F64, {2, 3},
              "wrong dtype: expected f64, found f32");
  expectError(tmp("ok.npy"), DType::F32, {3, 2},
              "wrong shape: expected [3, 2], found [2, 3]");

  writeRaw(
      tmp("fortran.npy"),
      npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
               24));
  expectError(tmp("fortran.npy"), DType::F32, {2, 3}, "Fortran-order");

  writeRaw(tmp("short.npy"), npyBytes(ok, 20));
  expectError(tmp("short.npy"), DType::F32, {2, 3}, "truncated data");

  std::string full = npyBytes(ok, 24);
  writeRaw(tmp("cut_header.npy"), full.substr(0, 40));
  expectError(tmp("cut_header.npy"), DType::F32, {2, 3}, "truncated header");

  writeRaw(tmp("tiny.npy"), "\x93NUM");
  expectError(tmp("tiny.npy"), DType::F32, {2, 3}, "truncated header");

  writeRaw(tmp("magic.npy"), "PK\x03\x04 this is a zip file, not npy.....");
  expectError(tmp("magic.npy"), DType::F32, {2, 3}, "bad magic");

  writeRaw(
      tmp("dict.npy"),
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }",
               24));
  expectError(tmp("dict.npy"), DType::F32, {2, 3}, "corrupt header");

  writeRaw(tmp("nokey.npy"),
           npyBytes("{'descr': '<f4', 'shape': (2, 3), }", 24));
  expectError(tmp("nokey.npy"), DType::F32, {2, 3}, "corrupt header");

  writeRaw(tmp("unterminated.npy"), npyBytes("{'descr': '<f4", 24));
  expectError(tmp("unterminated.npy"), DType::F32, {2, 3}, "corrupt header");

  writeRaw(
      tmp("bigendian.npy"),
      npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }",
               24));
  expectError(tmp("bigendian.npy"), DType::F32, {2, 3}, "big-endian");

  writeRaw(
      tmp("complex.npy"),
      npyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }",
               48));
  expectError(tmp("complex.npy"), DType::F32, {2, 3},
              "unsupported dtype '<c8'");

  std::string v9 = npyBytes(ok, 24);
  v9[6] = 9;
  writeRaw(tmp("version.npy"), v9);
  expectError(tmp("version.npy"), DType::F32, {2, 3},
              "unsupported format version 9");
}

TEST(Npy, BlockOutsideTheArrayIsAnError) {
  std::vector<float> d(6);
  writeNpy(tmp("small.npy"), DType::F32, {2, 3}, d.data());
  std::vector<float> out(6);
  EXPECT_THROW(readNpyBlock(tmp("small.npy"), DType::F32, {2, 3}, {1, 0},
                            {2, 3}, out.data()),
               Error);
}

} // namespace

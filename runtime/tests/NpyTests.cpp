//===- NpyTests.cpp - .npy round trips, blocks and malformed files --------===//

#include "weft/rt/Error.h"
#include "weft/rt/Npy.h"
#include "weft/rt/NpyFormat.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

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

// bf16 has no numpy dtype: it is written as an f32 file, exactly, and an
// f32 file read into bf16 rounds each value (nearest, ties to even).
TEST(Npy, Bf16IsAnF32File) {
  // 1, the largest bf16 below 2 and bit patterns with every mantissa bit
  // set, a NaN and a negative subnormal, as bf16 bits.
  std::vector<uint16_t> bits{0x3f80, 0x3fff, 0xc2ff, 0x7fc1, 0x8001, 0x0000};
  std::string path = tmp("bf16.npy");
  writeNpy(path, DType::BF16, {6}, bits.data());
  NpyHeader h = readNpyHeader(path);
  EXPECT_EQ(h.dtype, DType::F32);
  Tensor f = readNpy(path);
  ASSERT_EQ(f.dtype, DType::F32);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &f.ptr<float>()[i], 4);
    EXPECT_EQ(u, static_cast<uint32_t>(bits[i]) << 16) << i;
  }
  // Round trip: bit for bit.
  std::vector<uint16_t> back(bits.size());
  readNpyBlock(path, DType::BF16, {6}, {0}, {6}, back.data());
  EXPECT_EQ(back, bits);
  // Rounding on read: 1 + 2^-8 is a tie (to 1, even), 1 + 3 * 2^-8 a tie
  // (up to 1 + 2^-6), 1 + 2^-8 + 2^-20 above the tie (up to 1 + 2^-7).
  std::vector<float> vals{1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f,
                          1.0f + 0x1p-8f + 0x1p-20f};
  writeNpy(tmp("f32.npy"), DType::F32, {3}, vals.data());
  std::vector<uint16_t> r(3);
  readNpyBlockClipped(tmp("f32.npy"), DType::BF16, {3}, {0}, {3}, r.data());
  EXPECT_EQ(r, (std::vector<uint16_t>{0x3f80, 0x3f82, 0x3f81}));
  // Any other file type is refused, naming the f32 the file must be.
  std::vector<double> d{1, 2, 3};
  writeNpy(tmp("f64.npy"), DType::F64, {3}, d.data());
  try {
    readNpyBlock(tmp("f64.npy"), DType::BF16, {3}, {0}, {3}, r.data());
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("expected f32, found f64"),
              std::string::npos)
        << e.what();
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
  expectError(tmp("fortran.npy"), DType::F32, {2, 3}, "Fortran order");

  writeRaw(tmp("short.npy"), npyBytes(ok, 20));
  expectError(tmp("short.npy"), DType::F32, {2, 3}, "truncated data");

  std::string full = npyBytes(ok, 24);
  writeRaw(tmp("cut_header.npy"), full.substr(0, 40));
  expectError(tmp("cut_header.npy"), DType::F32, {2, 3}, "truncated header");

  writeRaw(tmp("tiny.npy"), "\x93NUM");
  expectError(tmp("tiny.npy"), DType::F32, {2, 3}, "truncated header");

  writeRaw(tmp("magic.npy"), "PK\x03\x04 this is a zip file, not npy.....");
  expectError(tmp("magic.npy"), DType::F32, {2, 3},
              "bad magic: missing the \\x93NUMPY magic");

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
              "unsupported dtype <c8 (supported: <f2, <f4, <f8, <i4, <i8)");

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

// Uneven shards: the file holds the logical [5, 3, 7] array; the blocks are
// those of the padded [8, 4, 8] array split 4 x 2 x 2 (blocks [2, 2, 4]).
// Each block's part inside the file is read into place, the rest is zero;
// the blocks at rows 6..7 are all padding and read nothing.
TEST(Npy, ClippedBlocksOfAPaddedArray) {
  Shape logical{5, 3, 7}, padded{8, 4, 8}, b{2, 2, 4};
  std::vector<int32_t> data(numElements(logical));
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<int32_t>(i + 1); // no zeros in the file
  std::string path = tmp("clipped.npy");
  writeNpy(path, DType::I32, logical, data.data());
  int wholePadding = 0;
  for (int64_t i = 0; i < padded[0] / b[0]; ++i)
    for (int64_t j = 0; j < padded[1] / b[1]; ++j)
      for (int64_t k = 0; k < padded[2] / b[2]; ++k) {
        std::vector<int64_t> off{i * b[0], j * b[1], k * b[2]};
        std::vector<int32_t> got(numElements(b), -1);
        readNpyBlockClipped(path, DType::I32, logical, off, b, got.data());
        bool any = false;
        for (int64_t x = 0; x < b[0]; ++x)
          for (int64_t y = 0; y < b[1]; ++y)
            for (int64_t z = 0; z < b[2]; ++z) {
              int64_t gx = off[0] + x, gy = off[1] + y, gz = off[2] + z;
              bool inside =
                  gx < logical[0] && gy < logical[1] && gz < logical[2];
              any |= inside;
              int32_t want =
                  inside ? data[(gx * logical[1] + gy) * logical[2] + gz] : 0;
              ASSERT_EQ(got[(x * b[1] + y) * b[2] + z], want)
                  << "block at " << shapeToString(off) << " element " << x
                  << "," << y << "," << z;
            }
        wholePadding += !any;
      }
  EXPECT_EQ(wholePadding, 4); // rows 6..7: 2 x 2 blocks
  // Without padding it reads what readNpyBlock reads.
  std::vector<int32_t> a(numElements(logical)), c(numElements(logical), -1);
  readNpyBlock(path, DType::I32, logical, {0, 0, 0}, logical, a.data());
  readNpyBlockClipped(path, DType::I32, logical, {0, 0, 0}, logical, c.data());
  EXPECT_EQ(a, data);
  EXPECT_EQ(c, data);
  // The file must hold the logical shape; a block of all padding still
  // checks the header.
  std::vector<int32_t> buf(64);
  try {
    readNpyBlockClipped(path, DType::I32, padded, {6, 0, 0}, b, buf.data());
    ADD_FAILURE() << "no error for the padded shape";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "wrong shape: expected [8, 4, 8], found [5, 3, 7]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(
      readNpyBlockClipped(path, DType::F32, logical, {6, 0, 0}, b, buf.data()),
      Error); // dtype
  EXPECT_THROW(readNpyBlockClipped(tmp("missing.npy"), DType::I32, logical,
                                   {6, 0, 0}, b, buf.data()),
               Error);
  EXPECT_THROW(
      readNpyBlockClipped(path, DType::I32, logical, {0, 0}, b, buf.data()),
      Error); // rank
  EXPECT_THROW(
      readNpyBlockClipped(path, DType::I32, logical, {-1, 0, 0}, b, buf.data()),
      Error);
  EXPECT_THROW(readNpyBlockClipped(path, DType::I32, logical, {INT64_MAX, 0, 0},
                                   b, buf.data()),
               Error);
  // A leading step dimension, as a training batch file is read.
  std::vector<int32_t> steps(2 * numElements(logical));
  for (std::size_t i = 0; i < steps.size(); ++i)
    steps[i] = static_cast<int32_t>(i + 1);
  writeNpy(tmp("clipped_steps.npy"), DType::I32, {2, 5, 3, 7}, steps.data());
  std::vector<int32_t> got(numElements(b), -1);
  readNpyBlockClipped(tmp("clipped_steps.npy"), DType::I32, {2, 5, 3, 7},
                      {1, 4, 2, 4}, {1, 2, 2, 4}, got.data());
  for (int64_t y = 0; y < 2; ++y)
    for (int64_t z = 0; z < 4; ++z)
      EXPECT_EQ(got[y * 4 + z],
                y == 0 && z < 3 ? steps[105 + (4 * 3 + 2) * 7 + 4 + z] : 0);
  for (int64_t i = 8; i < 16; ++i)
    EXPECT_EQ(got[i], 0); // row 5: padding
}

// The crop of a padded global value to its logical shape.
TEST(Npy, CropHostTensor) {
  Tensor t = hostTensor(DType::F64, {3, 4});
  for (int i = 0; i < 12; ++i)
    t.ptr<double>()[i] = i;
  Tensor c = cropHostTensor(t, {2, 3});
  EXPECT_EQ(c.shape, (Shape{2, 3}));
  EXPECT_EQ(std::vector<double>(c.ptr<double>(), c.ptr<double>() + 6),
            (std::vector<double>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(cropHostTensor(t, {3, 4}).data, t.data); // nothing to crop
  EXPECT_EQ(cropHostTensor(t, {0, 4}).numElements(), 0);
  EXPECT_THROW(cropHostTensor(t, {4, 4}), Error);
  EXPECT_THROW(cropHostTensor(t, {3}), Error);
}

/// A version-2.0 or 3.0 file (4-byte header length).
std::string npyBytesV(int major, const std::string &dict,
                      std::size_t dataBytes) {
  std::string h = dict;
  while ((12 + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::string s = "\x93NUMPY";
  s += static_cast<char>(major);
  s += '\x00';
  for (int i = 0; i < 4; ++i)
    s += static_cast<char>((h.size() >> (8 * i)) & 0xff);
  return s + h + std::string(dataBytes, '\0');
}

/// True when `msg` has no byte below 0x20 or above 0x7e.
bool allPrintable(const std::string &msg) {
  for (unsigned char c : msg)
    if (c < 0x20 || c > 0x7e)
      return false;
  return true;
}

/// The malformed variants of robustness/make_bad_npy.py, for a <f4 array of
/// shape (4, 8), each with the error that both .npy readers report
/// (NpyFormat.h). Messages never carry raw control bytes.
TEST(Npy, SharedRulesRejectEveryMalformedVariant) {
  const std::string D = "'descr': '<f4', 'fortran_order': False";
  const std::string ok = "{" + D + ", 'shape': (4, 8), }";
  const std::size_t n = 4 * 8 * 4;
  std::string good = npyBytes(ok, n);
  std::size_t hdr = good.size() - n;
  struct Case {
    const char *name;
    std::string bytes;
    const char *what;
  };
  std::vector<Case> cases = {
      {"trunc_data", good.substr(0, hdr + n / 2), "truncated data"},
      {"trunc_data1", good.substr(0, good.size() - 1), "truncated data"},
      {"trunc_header", good.substr(0, hdr - 20), "truncated header"},
      {"trunc_magic", good.substr(0, 5), "truncated header"},
      {"empty", "", "truncated header"},
      {"extra_data", good + std::string(100, '\0'),
       "100 bytes of trailing data after the array"},
      {"dtype_f8",
       npyBytes("{'descr': '<f8', 'fortran_order': False, "
                "'shape': (4, 8), }",
                2 * n),
       "wrong dtype: expected f32, found f64"},
      {"dtype_be",
       npyBytes("{'descr': '>f4', 'fortran_order': False, "
                "'shape': (4, 8), }",
                n),
       "big-endian dtype >f4 is not supported"},
      {"dtype_i8",
       npyBytes("{'descr': '<i8', 'fortran_order': False, "
                "'shape': (4, 8), }",
                2 * n),
       "dtype '<i8' is not supported by the runtime"},
      {"structured",
       npyBytes("{'descr': [('a', '<f4')], 'fortran_order': False, "
                "'shape': (4, 8), }",
                n),
       "structured dtypes"},
      {"hdr_overflow",
       npyBytes("{" + D + ", 'shape': (4294967296, 4294967296), }", n),
       "element count overflows int64"},
      {"hdr_negative", npyBytes("{" + D + ", 'shape': (-4, -8), }", n),
       "non-negative integers"},
      {"hdr_nodescr",
       npyBytes("{'fortran_order': False, 'shape': (4, 8), }", n),
       "missing key 'descr'"},
      {"hdr_v9", npyBytesV(9, ok, n), "unsupported format version 9.0"},
      {"hdr_len_huge",
       std::string("\x93NUMPY\x01\x00\xff\xff", 10) + "{'descr': '<f4'",
       "truncated header (header claims 65535 bytes"},
      {"hdr_len_zero",
       std::string("\x93NUMPY\x01\x00\x00\x00", 10) + std::string(n, '\0'),
       "corrupt header: expected '{'"},
      {"hdr_descr_native",
       npyBytes("{'descr': '=f4', 'fortran_order': False, 'shape': (4, 8), }",
                n),
       "dtype =f4 leaves the byte order to the reading machine"},
      {"hdr_descr_pipe",
       npyBytes("{'descr': '|f4', 'fortran_order': False, 'shape': (4, 8), }",
                n),
       "dtype |f4 leaves the byte order"},
      {"hdr_fortran",
       npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (4, 8), }",
                n),
       "Fortran order is not supported"},
      {"hdr_garbage", npyBytes("{" + D + ", 'shape': (4, 8), }}}}", n),
       "unexpected text after the dict"},
      {"hdr_weird_types",
       npyBytes("{'descr': '<f4', 'fortran_order': 'yes', 'shape': '4x8', }",
                n),
       "fortran_order must be True or False"},
      {"hdr_dup_keys",
       npyBytes("{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, "
                "'shape': (4, 8), }",
                n),
       "duplicate key 'descr'"},
      {"hdr_extra_key",
       npyBytes("{" + D + ", 'shape': (4, 8), 'extra': 1, }", n),
       "unexpected key 'extra'"},
      {"hdr_shape_bigint",
       npyBytes("{" + D + ", 'shape': (99999999999999999999999, 8), }", n),
       "does not fit in int64"},
      {"hdr_shape_L", npyBytes("{" + D + ", 'shape': (4L, 8L), }", n),
       "expected ',' or ')' in shape"},
      {"hdr_shape_int", npyBytes("{" + D + ", 'shape': (32), }", n),
       "is not a tuple"},
      {"hdr_unterminated", npyBytes("{'descr': '<f4", n),
       "unterminated string"},
      {"hdr_nul",
       npyBytes(std::string("{'descr': '<f4\0', 'fortran_order': False, "
                            "'shape': (4, 8), }",
                            61),
                n),
       "byte 0x00 at offset 14"},
      {"hdr_ctrl",
       npyBytes("{'descr': '<f4\x1b[31m', 'fortran_order': False, "
                "'shape': (4, 8), }",
                n),
       "byte 0x1b"},
  };
  for (const Case &c : cases) {
    std::string path = tmp(std::string("bad_") + c.name + ".npy");
    writeRaw(path, c.bytes);
    std::vector<char> buf(1 << 12);
    try {
      readNpyBlock(path, DType::F32, {4, 8}, {0, 0}, {4, 8}, buf.data());
      ADD_FAILURE() << c.name << ": no error";
    } catch (const Error &e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(c.what), std::string::npos) << c.name << ": " << msg;
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_TRUE(allPrintable(msg)) << c.name << ": " << msg;
    }
  }
}

/// What numpy writes or accepts in every version and spelling is read.
TEST(Npy, SharedRulesAcceptNumpyVariants) {
  const std::size_t n = 4 * 8 * 4;
  const std::string ok =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), }";
  std::vector<std::pair<std::string, std::string>> cases = {
      {"v2", npyBytesV(2, ok, n)},
      {"v3", npyBytesV(3, ok, n)},
      {"no_spaces", npyBytes("{'shape':(4,8),'fortran_order':False,"
                             "'descr':'<f4'}",
                             n)},
      {"double_quotes", npyBytes("{\"descr\": \"<f4\", \"fortran_order\": "
                                 "False, \"shape\": (4, 8), }",
                                 n)},
  };
  for (const auto &[name, bytes] : cases) {
    std::string path = tmp("good_" + name + ".npy");
    writeRaw(path, bytes);
    std::vector<float> buf(32, 1.0f);
    EXPECT_NO_THROW(
        readNpyBlock(path, DType::F32, {4, 8}, {0, 0}, {4, 8}, buf.data()))
        << name;
    EXPECT_EQ(buf[31], 0.0f) << name;
  }
  // A (n,) vector and a () scalar.
  writeRaw(tmp("good_vec.npy"),
           npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                    "(32,), }",
                    n));
  EXPECT_EQ(readNpyHeader(tmp("good_vec.npy")).shape, Shape{32});
  writeRaw(
      tmp("good_scalar.npy"),
      npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8));
  EXPECT_EQ(readNpyHeader(tmp("good_scalar.npy")).shape, Shape{});
}

/// The shared validator on its own: the interpreter's reader calls exactly
/// this (lib/Interpreter/Npy.cpp); it knows <i8, which the runtime rejects.
TEST(Npy, SharedValidatorDirectly) {
  std::string file =
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", 16);
  npy::Preamble p;
  ASSERT_EQ(npy::parsePreamble(
                reinterpret_cast<const unsigned char *>(file.data()),
                npy::kPreambleBytes, static_cast<int64_t>(file.size()), p),
            "");
  npy::Header h;
  ASSERT_EQ(npy::parseHeader(
                std::string_view(file).substr(p.headerStart, p.headerLen), p,
                static_cast<int64_t>(file.size()), h),
            "");
  EXPECT_EQ(h.elem, npy::Elem::I64);
  EXPECT_EQ(h.numElements, 2);
  EXPECT_EQ(h.dataBytes, 16);
  EXPECT_EQ(npy::printable(std::string("a\0b\x7f\\", 5)), "a\\x00b\\x7f\\\\");
}

/// D6: outputs are written to a temporary file and renamed, so a failed
/// write leaves the previous file (or nothing) and no temporary behind.
TEST(Npy, AtomicWriteFailureLeavesTargetUntouched) {
  namespace fs = std::filesystem;
  std::string dir = tmp("atomic");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = dir + "/y.npy";
  std::vector<float> before(6, 1.0f);
  writeNpy(path, DType::F32, {2, 3}, before.data());
  // A writer that fails half way (as a full disk does).
  EXPECT_THROW(writeFileAtomically(path,
                                   [&](int fd) {
                                     ASSERT_EQ(::write(fd, "\x93NUMPY", 6), 6);
                                     fail("write failed: No space left");
                                   }),
               Error);
  Tensor t = readNpy(path);
  EXPECT_EQ(t.shape, (Shape{2, 3}));
  EXPECT_EQ(t.ptr<float>()[5], 1.0f);
  int files = 0;
  for (const auto &e : fs::directory_iterator(dir))
    files += e.path().filename() == "y.npy" ? 1 : 100;
  EXPECT_EQ(files, 1) << "a temporary file was left behind";
}

/// A real failing write: a file-size limit (RLIMIT_FSIZE, with SIGXFSZ
/// ignored so write() fails with EFBIG) stands in for a full disk.
TEST(Npy, AtomicWriteOfAFileTooLargeForTheDisk) {
  namespace fs = std::filesystem;
  std::string dir = tmp("atomic_big");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = dir + "/y.npy";
  std::vector<float> small(6, 2.0f), big(1 << 16, 3.0f);
  writeNpy(path, DType::F32, {2, 3}, small.data());
  struct rlimit old;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = old;
  lim.rlim_cur = 64 * 1024; // below the 256 KiB array
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &lim), 0);
  std::string msg;
  try {
    writeNpy(path, DType::F32, {1 << 16}, big.data());
  } catch (const Error &e) {
    msg = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_NE(msg.find("write failed"), std::string::npos) << msg;
  Tensor t = readNpy(path);
  EXPECT_EQ(t.shape, Shape({2, 3})) << "the old file was replaced";
  int entries = 0;
  for (const auto &e : fs::directory_iterator(dir))
    entries += e.path().filename() == "y.npy" ? 1 : 100;
  EXPECT_EQ(entries, 1) << "a temporary file was left behind";
}

/// A directory that cannot take new files: the error names the file, and
/// nothing is created.
TEST(Npy, AtomicWriteIntoAMissingDirectory) {
  std::vector<float> d(6);
  try {
    writeNpy(tmp("no/such/dir/y.npy"), DType::F32, {2, 3}, d.data());
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos)
        << e.what();
  }
}

} // namespace

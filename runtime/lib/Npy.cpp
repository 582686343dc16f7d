//===- Npy.cpp - Blockwise .npy input and whole-file output ---------------===//

#include "weft/rt/Npy.h"
#include "weft/rt/CopyPlan.h"
#include "weft/rt/Error.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace weft::rt {

namespace {

/// Closes a file descriptor on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

int openOrThrow(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  check(fd >= 0, "npy file '", path, "': cannot open: ", std::strerror(errno));
  return fd;
}

/// Reads exactly `n` bytes at `off`; returns the count actually read.
std::size_t preadAll(int fd, void *buf, std::size_t n, int64_t off) {
  std::size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, static_cast<char *>(buf) + done, n - done,
                        static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

const char *descrOf(DType t) {
  switch (t) {
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::I32:
    return "<i4";
  case DType::F16:
    return "<f2";
  case DType::BF16:
    break;
  }
  fail("dtype ", dtypeName(t), " has no .npy equivalent");
}

/// Minimal parser of the header dict numpy writes.
class HeaderParser {
public:
  HeaderParser(const std::string &path, const std::string &text)
      : path_(path), text_(text) {}

  NpyHeader parse() {
    skipSpace();
    expect('{');
    NpyHeader h;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    while (true) {
      skipSpace();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      std::string key = parseString();
      skipSpace();
      expect(':');
      skipSpace();
      if (key == "descr") {
        std::string d = parseString();
        h.dtype = dtypeOf(d);
        haveDescr = true;
      } else if (key == "fortran_order") {
        h.fortranOrder = parseBool();
        haveOrder = true;
      } else if (key == "shape") {
        h.shape = parseShape();
        haveShape = true;
      } else {
        bad("unexpected key '" + key + "'");
      }
      skipSpace();
      if (peek() == ',')
        ++pos_;
    }
    if (!haveDescr || !haveOrder || !haveShape)
      bad("header lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

private:
  [[noreturn]] void bad(const std::string &what) {
    fail("npy file '", path_, "': corrupt header: ", what, " in header '",
         text_, "'");
  }
  char peek() {
    if (pos_ >= text_.size())
      bad("unexpected end");
    return text_[pos_];
  }
  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  void expect(char c) {
    if (peek() != c)
      bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parseString() {
    char q = peek();
    if (q != '\'' && q != '"')
      bad("expected a quoted string");
    ++pos_;
    auto end = text_.find(q, pos_);
    if (end == std::string::npos)
      bad("unterminated string");
    std::string s = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  bool parseBool() {
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    bad("expected True or False");
  }
  Shape parseShape() {
    expect('(');
    Shape s;
    while (true) {
      skipSpace();
      if (peek() == ')') {
        ++pos_;
        return s;
      }
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        bad("expected a dimension");
      int64_t v = 0;
      while (pos_ < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        v = v * 10 + (text_[pos_++] - '0');
        if (v > (int64_t(1) << 48))
          bad("dimension too large");
      }
      s.push_back(v);
      skipSpace();
      if (peek() == ',')
        ++pos_;
      else if (peek() != ')')
        bad("expected ',' or ')' in shape");
    }
  }
  DType dtypeOf(const std::string &d) {
    for (DType t : {DType::F32, DType::F64, DType::I32, DType::F16})
      if (d == descrOf(t) || (d.size() == 3 && d[0] == '=' &&
                              d.substr(1) == std::string(descrOf(t)).substr(1)))
        return t;
    if (!d.empty() && d[0] == '>')
      fail("npy file '", path_, "': big-endian dtype '", d,
           "' is not supported (expected little-endian <f4, <f8, <i4 or <f2)");
    fail("npy file '", path_, "': unsupported dtype '", d,
         "' (expected <f4, <f8, <i4 or <f2)");
  }

  const std::string &path_;
  std::string text_;
  std::size_t pos_ = 0;
};

NpyHeader readHeaderFd(int fd, const std::string &path, int64_t fileSize) {
  unsigned char pre[12];
  std::size_t got = preadAll(fd, pre, 10, 0);
  check(got == 10, "npy file '", path, "': truncated header (file has ",
        fileSize, " bytes, a header needs at least 10)");
  check(std::memcmp(pre, "\x93NUMPY", 6) == 0, "npy file '", path,
        "': bad magic (not a .npy file)");
  int major = pre[6];
  check(major >= 1 && major <= 3, "npy file '", path,
        "': unsupported format version ", major, ".", int(pre[7]));
  int64_t headerLen, start;
  if (major == 1) {
    headerLen = pre[8] | (pre[9] << 8);
    start = 10;
  } else {
    check(preadAll(fd, pre + 10, 2, 10) == 2, "npy file '", path,
          "': truncated header");
    headerLen = int64_t(pre[8]) | (int64_t(pre[9]) << 8) |
                (int64_t(pre[10]) << 16) | (int64_t(pre[11]) << 24);
    start = 12;
  }
  check(start + headerLen <= fileSize, "npy file '", path,
        "': truncated header (header claims ", headerLen, " bytes, file has ",
        fileSize - start, " after the preamble)");
  std::string text(static_cast<std::size_t>(headerLen), '\0');
  check(preadAll(fd, text.data(), text.size(), start) == text.size(),
        "npy file '", path, "': truncated header");
  NpyHeader h = HeaderParser(path, text).parse();
  h.dataOffset = start + headerLen;
  check(!h.fortranOrder, "npy file '", path,
        "': Fortran-order arrays are not supported (save with "
        "numpy.ascontiguousarray)");
  int64_t need = h.dataOffset + numElements(h.shape) *
                                    static_cast<int64_t>(dtypeSize(h.dtype));
  check(fileSize >= need, "npy file '", path, "': truncated data (shape ",
        shapeToString(h.shape), " ", dtypeName(h.dtype), " needs ", need,
        " bytes, file has ", fileSize, ")");
  return h;
}

int64_t fileSizeOf(int fd, const std::string &path) {
  struct stat st;
  check(::fstat(fd, &st) == 0, "npy file '", path,
        "': cannot stat: ", std::strerror(errno));
  return static_cast<int64_t>(st.st_size);
}

} // namespace

NpyHeader readNpyHeader(const std::string &path) {
  Fd f{openOrThrow(path)};
  return readHeaderFd(f.fd, path, fileSizeOf(f.fd, path));
}

void readNpyBlock(const std::string &path, DType dtype,
                  const Shape &globalShape, const std::vector<int64_t> &offsets,
                  const Shape &block, void *out) {
  Fd f{openOrThrow(path)};
  NpyHeader h = readHeaderFd(f.fd, path, fileSizeOf(f.fd, path));
  check(h.dtype == dtype, "npy file '", path, "': wrong dtype: expected ",
        dtypeName(dtype), ", found ", dtypeName(h.dtype));
  check(h.shape == globalShape, "npy file '", path, "': wrong shape: expected ",
        shapeToString(globalShape), ", found ", shapeToString(h.shape));
  CopyPlan plan = CopyPlan::extractBlock(globalShape, offsets, block);
  int64_t n = numElements(block);
  if (n == 0)
    return;
  const int64_t es = static_cast<int64_t>(dtypeSize(dtype));
  int rank = static_cast<int>(plan.shape.size());
  // Contiguous runs: the innermost simplified dim when its stride is 1.
  int64_t run = 1;
  int outer = rank;
  if (rank > 0 && plan.srcStrides[rank - 1] == 1) {
    run = plan.shape[rank - 1];
    outer = rank - 1;
  }
  std::vector<int64_t> idx(outer, 0);
  int64_t src = plan.srcOffset;
  char *dst = static_cast<char *>(out);
  for (int64_t done = 0; done < n; done += run) {
    std::size_t bytes = static_cast<std::size_t>(run * es);
    check(preadAll(f.fd, dst, bytes, h.dataOffset + src * es) == bytes,
          "npy file '", path, "': truncated data while reading");
    dst += bytes;
    for (int d = outer - 1; d >= 0; --d) {
      src += plan.srcStrides[d];
      if (++idx[d] < plan.shape[d])
        break;
      src -= plan.srcStrides[d] * plan.shape[d];
      idx[d] = 0;
    }
  }
}

Tensor readNpy(const std::string &path) {
  NpyHeader h = readNpyHeader(path);
  Tensor t = hostTensor(h.dtype, h.shape);
  readNpyBlock(path, h.dtype, h.shape, std::vector<int64_t>(h.shape.size(), 0),
               h.shape, t.data);
  return t;
}

void writeNpy(const std::string &path, DType dtype, const Shape &shape,
              const void *data) {
  std::string dict = "{'descr': '" + std::string(descrOf(dtype)) +
                     "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1      ? ","
                                        : i + 1 < shape.size() ? ", "
                                                               : "");
  dict += "), }";
  std::size_t total = 10 + dict.size() + 1;
  std::size_t padded = (total + 63) / 64 * 64;
  check(padded - 10 <= 0xffff, "npy file '", path, "': header too long");
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string pre = "\x93NUMPY";
  pre += '\x01';
  pre += '\x00';
  uint16_t len = static_cast<uint16_t>(dict.size());
  pre += static_cast<char>(len & 0xff);
  pre += static_cast<char>(len >> 8);
  std::FILE *f = std::fopen(path.c_str(), "wb");
  check(f != nullptr, "npy file '", path,
        "': cannot create: ", std::strerror(errno));
  std::size_t bytes =
      static_cast<std::size_t>(numElements(shape)) * dtypeSize(dtype);
  bool ok = std::fwrite(pre.data(), 1, pre.size(), f) == pre.size() &&
            std::fwrite(dict.data(), 1, dict.size(), f) == dict.size() &&
            (bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes);
  ok = (std::fclose(f) == 0) && ok;
  check(ok, "npy file '", path, "': write failed: ", std::strerror(errno));
}

} // namespace weft::rt

//===- Npy.cpp - Blockwise .npy input and whole-file output ---------------===//

#include "weft/rt/Npy.h"
#include "weft/rt/CopyPlan.h"
#include "weft/rt/ElementOps.h"
#include "weft/rt/Error.h"
#include "weft/rt/Mesh.h"
#include "weft/rt/NpyFormat.h"

#include <algorithm>
#include <atomic>
#include <filesystem>

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
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd >= 0, "npy file '", path, "': cannot open: ", std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("npy file '", path, "': ",
         S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file",
         ", not an .npy file");
  }
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
  fail("dtype ", dtypeName(t),
       " has no .npy equivalent (a bf16 tensor is written as f32)");
}

/// The runtime's dtype of a validated header's element type.
DType dtypeOfElem(npy::Elem e, const std::string &path) {
  switch (e) {
  case npy::Elem::F16:
    return DType::F16;
  case npy::Elem::F32:
    return DType::F32;
  case npy::Elem::F64:
    return DType::F64;
  case npy::Elem::I32:
    return DType::I32;
  case npy::Elem::I64:
    break;
  }
  fail("npy file '", npy::printable(path), "': dtype '", npy::descrOf(e),
       "' is not supported by the runtime (expected <f4, <f8, <i4 or <f2)");
}

/// The preamble and header, validated by the rules shared with
/// weft-interp (NpyFormat.h), including the exact data size.
NpyHeader readHeaderFd(int fd, const std::string &path, int64_t fileSize) {
  std::string where = "npy file '" + npy::printable(path) + "': ";
  unsigned char pre[npy::kPreambleBytes];
  std::size_t want = static_cast<std::size_t>(
      std::min<int64_t>(fileSize, static_cast<int64_t>(sizeof(pre))));
  std::size_t got = preadAll(fd, pre, want, 0);
  npy::Preamble p;
  std::string err = npy::parsePreamble(pre, got, fileSize, p);
  check(err.empty(), where, err);
  std::string text(static_cast<std::size_t>(p.headerLen), '\0');
  check(preadAll(fd, text.data(), text.size(), p.headerStart) == text.size(),
        where, "truncated header");
  npy::Header h;
  err = npy::parseHeader(text, p, fileSize, h);
  check(err.empty(), where, err);
  NpyHeader out;
  out.dtype = dtypeOfElem(h.elem, path);
  out.shape = h.shape;
  out.fortranOrder = false;
  out.dataOffset = h.dataOffset;
  return out;
}

int64_t fileSizeOf(int fd, const std::string &path) {
  struct stat st;
  checkSys(::fstat(fd, &st), "npy file '", path, "': cannot stat: ");
  return static_cast<int64_t>(st.st_size);
}

} // namespace

NpyHeader readNpyHeader(const std::string &path) {
  Fd f{openOrThrow(path)};
  return readHeaderFd(f.fd, path, fileSizeOf(f.fd, path));
}

namespace {

/// Opens `path` and checks its header against `dtype` and `shape`.
NpyHeader openChecked(Fd &f, const std::string &path, DType dtype,
                      const Shape &shape) {
  f.fd = openOrThrow(path);
  NpyHeader h = readHeaderFd(f.fd, path, fileSizeOf(f.fd, path));
  check(h.dtype == dtype, "npy file '", path, "': wrong dtype: expected ",
        dtypeName(dtype), ", found ", dtypeName(h.dtype));
  check(h.shape == shape, "npy file '", path, "': wrong shape: expected ",
        shapeToString(shape), ", found ", shapeToString(h.shape));
  return h;
}

/// Reads the elements of a copy plan whose source is the file's data (in
/// elements of `es` bytes) and whose destination is `out`: one positioned
/// read per contiguous run (the innermost simplified dim, when it is
/// contiguous on both sides).
void readPlan(int fd, const std::string &path, const NpyHeader &h,
              const CopyPlan &plan, int64_t es, void *out) {
  int64_t n = plan.numElements();
  if (n == 0)
    return;
  int rank = static_cast<int>(plan.shape.size());
  int64_t run = 1;
  int outer = rank;
  if (rank > 0 && plan.srcStrides[rank - 1] == 1 &&
      plan.dstStrides[rank - 1] == 1) {
    run = plan.shape[rank - 1];
    outer = rank - 1;
  }
  std::vector<int64_t> idx(outer, 0);
  int64_t src = plan.srcOffset, dst = plan.dstOffset;
  char *base = static_cast<char *>(out);
  for (int64_t done = 0; done < n; done += run) {
    std::size_t bytes = static_cast<std::size_t>(run * es);
    check(preadAll(fd, base + dst * es, bytes, h.dataOffset + src * es) ==
              bytes,
          "npy file '", path, "': truncated data while reading");
    for (int d = outer - 1; d >= 0; --d) {
      src += plan.srcStrides[d];
      dst += plan.dstStrides[d];
      if (++idx[d] < plan.shape[d])
        break;
      src -= plan.srcStrides[d] * plan.shape[d];
      dst -= plan.dstStrides[d] * plan.shape[d];
      idx[d] = 0;
    }
  }
}

} // namespace

namespace {
/// bf16 has no numpy dtype: a bf16 tensor is read from an f32 file, each
/// value rounded to bf16 (nearest, ties to even), and written as an f32
/// file, exactly (every bf16 value is an f32 value). So numpy prepares and
/// reads bf16 data as f32, and a checkpoint round-trips bit for bit
/// (docs/precision.md).
void narrowBf16(const std::vector<float> &f, void *out) {
  auto *h = static_cast<uint16_t *>(out);
  for (std::size_t i = 0; i < f.size(); ++i)
    h[i] = ops::convertValue<ops::F32Format, ops::BF16Format>(f[i]);
}
} // namespace

void readNpyBlock(const std::string &path, DType dtype,
                  const Shape &globalShape, const std::vector<int64_t> &offsets,
                  const Shape &block, void *out) {
  if (dtype == DType::BF16) {
    std::vector<float> f(static_cast<std::size_t>(numElements(block)));
    readNpyBlock(path, DType::F32, globalShape, offsets, block, f.data());
    return narrowBf16(f, out);
  }
  Fd f;
  NpyHeader h = openChecked(f, path, dtype, globalShape);
  CopyPlan plan = CopyPlan::extractBlock(globalShape, offsets, block);
  readPlan(f.fd, path, h, plan, static_cast<int64_t>(dtypeSize(dtype)), out);
}

void readNpyBlockClipped(const std::string &path, DType dtype,
                         const Shape &fileShape,
                         const std::vector<int64_t> &offsets,
                         const Shape &block, void *out) {
  if (dtype == DType::BF16) {
    std::vector<float> f(static_cast<std::size_t>(numElements(block)));
    readNpyBlockClipped(path, DType::F32, fileShape, offsets, block, f.data());
    return narrowBf16(f, out);
  }
  Shape clip = clipBlock(fileShape, offsets, block);
  const int64_t es = static_cast<int64_t>(dtypeSize(dtype));
  int64_t n = 1, bytes = 0;
  for (int64_t d : block)
    check(!__builtin_mul_overflow(n, d, &n), "block ", shapeToString(block),
          " has more than 2^63 elements");
  check(!__builtin_mul_overflow(n, es, &bytes), "block ", shapeToString(block),
        " of ", dtypeName(dtype), " is too large");
  Fd f;
  NpyHeader h = openChecked(f, path, dtype, fileShape);
  if (clip != block && bytes > 0)
    std::memset(out, 0, static_cast<std::size_t>(bytes));
  if (numElements(clip) == 0)
    return; // All padding: nothing to read.
  CopyPlan plan;
  plan.shape = clip;
  plan.srcStrides = rowMajorStrides(fileShape);
  plan.dstStrides = rowMajorStrides(block);
  for (std::size_t d = 0; d < fileShape.size(); ++d)
    plan.srcOffset += offsets[d] * plan.srcStrides[d];
  plan.simplify();
  readPlan(f.fd, path, h, plan, es, out);
}

Tensor readNpy(const std::string &path) {
  NpyHeader h = readNpyHeader(path);
  Tensor t = hostTensor(h.dtype, h.shape);
  readNpyBlock(path, h.dtype, h.shape, std::vector<int64_t>(h.shape.size(), 0),
               h.shape, t.data);
  return t;
}

void writeFileAtomically(const std::string &path,
                         const std::function<void(int fd)> &write) {
  namespace fs = std::filesystem;
  std::string where = "npy file '" + npy::printable(path) + "': ";
  fs::path target(path);
  std::string name = target.filename().string();
  check(!name.empty(), where, "not a file name");
  // Same directory, so the rename cannot cross file systems; O_EXCL with a
  // per-process counter makes the name unique without mkstemp's 0600 mode.
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = (target.parent_path() /
           ("." + name + ".tmp." + std::to_string(::getpid()) + "." +
            std::to_string(counter++)))
              .string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  check(fd >= 0, where, "cannot create: ", std::strerror(errno));
  try {
    write(fd);
    checkSys(::fsync(fd), where, "write failed: ");
    int rc = ::close(fd);
    int err = errno;
    fd = -1;
    check(rc == 0, where, "write failed: ", std::strerror(err));
    checkSys(::rename(tmp.c_str(), path.c_str()), where, "cannot replace: ");
  } catch (...) {
    if (fd >= 0)
      ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
}

namespace {
/// Writes all of `n` bytes to `fd`; throws Error (errno's message) if not.
void writeAll(int fd, const void *data, std::size_t n,
              const std::string &path) {
  const char *p = static_cast<const char *>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    check(w > 0, "npy file '", npy::printable(path),
          "': write failed: ", w < 0 ? std::strerror(errno) : "no progress");
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}
} // namespace

std::string encodeNpyHeader(DType dtype, const Shape &shape) {
  std::string dict = "{'descr': '" + std::string(descrOf(dtype)) +
                     "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1      ? ","
                                        : i + 1 < shape.size() ? ", "
                                                               : "");
  dict += "), }";
  std::size_t total = 10 + dict.size() + 1;
  std::size_t padded = (total + 63) / 64 * 64;
  check(padded - 10 <= 0xffff, "npy header too long for shape ",
        shapeToString(shape));
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string pre = "\x93NUMPY";
  pre += '\x01';
  pre += '\x00';
  uint16_t len = static_cast<uint16_t>(dict.size());
  pre += static_cast<char>(len & 0xff);
  pre += static_cast<char>(len >> 8);
  return pre + dict;
}

std::size_t npyDataBytes(DType dtype, const Shape &shape,
                         const std::string &path) {
  int64_t n = numElements(shape);
  std::size_t bytes = 0;
  check(n >= 0 && !__builtin_mul_overflow(static_cast<std::size_t>(n),
                                          dtypeSize(dtype), &bytes),
        "npy file '", npy::printable(path), "': array too large");
  return bytes;
}

void writeAllToFd(int fd, const void *data, std::size_t n,
                  const std::string &path) {
  writeAll(fd, data, n, path);
}

void writeNpy(const std::string &path, DType dtype, const Shape &shape,
              const void *data) {
  if (dtype == DType::BF16) { // as f32, exactly (readNpyBlock)
    std::vector<float> f(static_cast<std::size_t>(numElements(shape)));
    const auto *h = static_cast<const uint16_t *>(data);
    for (std::size_t i = 0; i < f.size(); ++i)
      f[i] = static_cast<float>(ops::BF16Format::load(h[i]));
    return writeNpy(path, DType::F32, shape, f.data());
  }
  std::string header;
  try {
    header = encodeNpyHeader(dtype, shape);
  } catch (const Error &e) {
    fail("npy file '", npy::printable(path), "': ", e.what());
  }
  std::size_t bytes = npyDataBytes(dtype, shape, path);
  writeFileAtomically(path, [&](int fd) {
    writeAll(fd, header.data(), header.size(), path);
    writeAll(fd, data, bytes, path);
  });
}

} // namespace weft::rt

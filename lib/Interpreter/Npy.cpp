//===- Npy.cpp - reading and writing .npy files ---------------------------===//

#include "weft/Interpreter/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::weft::interp;

/// The value of `key` in the header dict, e.g. "'<f4'" or "(2, 3)".
static std::optional<StringRef> headerValue(StringRef header, StringRef key) {
  size_t pos = header.find(("'" + key + "'").str());
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.substr(pos + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t end = rest.find(')');
    return end == StringRef::npos ? std::nullopt
                                  : std::optional(rest.substr(0, end + 1));
  }
  size_t end = rest.find_first_of(",}");
  return rest.substr(0, end).trim();
}

static double halfToDouble(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(static_cast<double>(mant), -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(static_cast<double>(mant | 0x400),
                   static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

FailureOr<Tensor> mlir::weft::interp::readNpy(StringRef path,
                                              std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot open '" + path.str() + "': " + buffer.getError().message();
    return failure();
  }
  StringRef bytes = (*buffer)->getBuffer();
  auto fail = [&](const Twine &why) {
    error = ("'" + path + "' is not a supported .npy file: " + why).str();
    return failure();
  };
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return fail("missing the \\x93NUMPY magic");
  uint8_t major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<uint8_t>(bytes[8]) |
                (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = (headerLen << 8) | static_cast<uint8_t>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return fail("unknown format version " + Twine(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return fail("truncated header");
  StringRef header = bytes.substr(headerStart, headerLen);
  std::optional<StringRef> descr = headerValue(header, "descr");
  std::optional<StringRef> order = headerValue(header, "fortran_order");
  std::optional<StringRef> shapeText = headerValue(header, "shape");
  if (!descr || !order || !shapeText)
    return fail("the header lacks descr, fortran_order or shape");
  if (*order != "False")
    return fail("Fortran order is not supported (save a C-order array)");
  StringRef dtype = descr->trim("'\"");
  size_t width;
  if (dtype == "<f2")
    width = 2;
  else if (dtype == "<f4" || dtype == "<i4")
    width = 4;
  else if (dtype == "<f8" || dtype == "<i8")
    width = 8;
  else
    return fail("dtype " + dtype + " (supported: <f2, <f4, <f8, <i4, <i8)");
  SmallVector<int64_t> shape;
  SmallVector<StringRef> dims;
  shapeText->trim("()").split(dims, ',', -1, /*KeepEmpty=*/false);
  for (StringRef d : dims) {
    d = d.trim();
    if (d.empty())
      continue;
    int64_t size;
    if (d.getAsInteger(10, size) || size < 0)
      return fail("bad shape " + *shapeText);
    shape.push_back(size);
  }
  Tensor t(shape);
  StringRef data = bytes.substr(headerStart + headerLen);
  if (data.size() != static_cast<size_t>(t.getNumElements()) * width)
    return fail("expected " + Twine(t.getNumElements() * width) +
                " data bytes for shape (" + *shapeText + "), found " +
                Twine(data.size()));
  const char *p = data.data();
  for (int64_t i = 0; i < t.getNumElements(); ++i, p += width) {
    if (dtype == "<f2") {
      uint16_t h;
      std::memcpy(&h, p, 2);
      t[i] = halfToDouble(h);
    } else if (dtype == "<f4") {
      float f;
      std::memcpy(&f, p, 4);
      t[i] = f;
    } else if (dtype == "<f8") {
      std::memcpy(&t[i], p, 8);
    } else if (dtype == "<i4") {
      int32_t v;
      std::memcpy(&v, p, 4);
      t[i] = v;
    } else {
      int64_t v;
      std::memcpy(&v, p, 8);
      t[i] = static_cast<double>(v);
    }
  }
  return t;
}

LogicalResult mlir::weft::interp::writeNpy(StringRef path, const Tensor &tensor,
                                           bool asInt32, std::string &error) {
  std::string shape = "(";
  for (int64_t d : tensor.getShape())
    shape += std::to_string(d) + ", ";
  if (tensor.getRank() > 1)
    shape.erase(shape.size() - 2); // "(2, 3, " -> "(2, 3"
  else if (tensor.getRank() == 1)
    shape.erase(shape.size() - 1); // "(4, " -> "(4,"
  shape += ")";
  std::string header = "{'descr': '" + std::string(asInt32 ? "<i4" : "<f8") +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that magic + length + header + '\n' is a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  os << "\x93NUMPY" << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>((header.size() >> 8) & 0xff);
  os << header;
  for (double v : tensor.getData()) {
    if (asInt32) {
      int32_t i = static_cast<int32_t>(v);
      os.write(reinterpret_cast<const char *>(&i), 4);
    } else {
      os.write(reinterpret_cast<const char *>(&v), 8);
    }
  }
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + path.str() + "': " + os.error().message();
    os.clear_error();
    return failure();
  }
  return success();
}

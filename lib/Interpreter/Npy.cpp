//===- Npy.cpp - reading and writing .npy files ---------------------------===//

#include "weft/Interpreter/Npy.h"

// The .npy rules shared with the runtime (weft_rt_plan, through WeftIR).
#include "weft/rt/NpyFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::weft::interp;
namespace npy = ::weft::rt::npy;

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

/// Reads `path` by the shared rules; `elem` is the file's element type.
static FailureOr<Tensor> readValidated(StringRef path, std::string &error,
                                       npy::Elem &elem) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot open '" + path.str() + "': " + buffer.getError().message();
    return failure();
  }
  StringRef bytes = (*buffer)->getBuffer();
  auto fail = [&](const std::string &why) {
    // Built in a local: GCC 12 warns (-Wrestrict, a false positive) when
    // a literal is assigned to or concatenated into `error` here.
    std::string msg = npy::printable(path);
    msg.insert(msg.begin(), '\'');
    msg += "' is not a supported .npy file: ";
    msg += why;
    error = std::move(msg);
    return failure();
  };
  // The runtime's rules (NpyFormat.h): both readers accept the same files.
  int64_t fileSize = static_cast<int64_t>(bytes.size());
  npy::Preamble pre;
  std::string why = npy::parsePreamble(
      reinterpret_cast<const unsigned char *>(bytes.data()),
      std::min(bytes.size(), npy::kPreambleBytes), fileSize, pre);
  if (!why.empty())
    return fail(why);
  npy::Header h;
  why = npy::parseHeader(std::string_view(bytes.data() + pre.headerStart,
                                          static_cast<size_t>(pre.headerLen)),
                         pre, fileSize, h);
  if (!why.empty())
    return fail(why);
  Tensor t(SmallVector<int64_t>(h.shape.begin(), h.shape.end()));
  const char *p = bytes.data() + h.dataOffset;
  size_t width = static_cast<size_t>(npy::elemSize(h.elem));
  for (int64_t i = 0; i < t.getNumElements(); ++i, p += width) {
    switch (h.elem) {
    case npy::Elem::F16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      t[i] = halfToDouble(v);
      break;
    }
    case npy::Elem::F32: {
      float v;
      std::memcpy(&v, p, 4);
      t[i] = v;
      break;
    }
    case npy::Elem::F64:
      std::memcpy(&t[i], p, 8);
      break;
    case npy::Elem::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      t[i] = v;
      break;
    }
    case npy::Elem::I64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      t[i] = static_cast<double>(v);
      break;
    }
    }
  }
  elem = h.elem;
  return t;
}

FailureOr<Tensor> mlir::weft::interp::readNpy(StringRef path,
                                              std::string &error) {
  npy::Elem elem;
  return readValidated(path, error, elem);
}

FailureOr<Tensor> mlir::weft::interp::readNpy(StringRef path, Type elementType,
                                              std::string &error) {
  // Each element type reads exactly one descr, as in the runtime.
  std::optional<npy::Elem> want;
  if (elementType.isF16())
    want = npy::Elem::F16;
  else if (elementType.isF32())
    want = npy::Elem::F32;
  else if (elementType.isF64())
    want = npy::Elem::F64;
  else if (elementType.isInteger(32))
    want = npy::Elem::I32;
  else if (elementType.isInteger(64))
    want = npy::Elem::I64;
  std::string typeName;
  llvm::raw_string_ostream os(typeName);
  os << elementType;
  if (!want) {
    error = "cannot read a .npy file for element type " + typeName;
    return failure();
  }
  npy::Elem elem;
  FailureOr<Tensor> t = readValidated(path, error, elem);
  if (failed(t))
    return failure();
  if (elem != *want) {
    std::string msg = npy::printable(path);
    msg.insert(msg.begin(), '\'');
    msg += std::string("': wrong dtype: expected ") + npy::elemName(*want) +
           " (" + npy::descrOf(*want) + "), found " + npy::elemName(elem) +
           " (" + npy::descrOf(elem) + ")";
    error = std::move(msg);
    return failure();
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

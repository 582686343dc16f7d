//===- NpyFormat.h - The .npy format rules both readers share ---*- C++ -*-===//
//
// One validator of .npy preambles and header dicts for the runtime's
// reader (runtime/lib/Npy.cpp) and weft-interp's (lib/Interpreter/Npy.cpp),
// so both accept and reject exactly the same files. It lives in
// weft_rt_plan (standard library only), which the compiler's libraries
// link.
//
// The rules (docs/runtime.md, ".npy files"): what numpy.save writes, read
// strictly.
//  - magic \x93NUMPY, version 1.0, 2.0 or 3.0; the header fits the file;
//  - the header is printable ASCII (spaces and '\n' allowed): a Python dict
//    literal with exactly the keys 'descr', 'fortran_order' and 'shape',
//    each once, quoted with ' or " (numpy's own reader, ast.literal_eval,
//    takes both), entries separated by commas, a trailing comma allowed,
//    nothing but whitespace after the '}';
//  - descr is one of '<f2' '<f4' '<f8' '<i4' '<i8': little-endian and
//    explicit. '>' (big-endian) and '=' / '|' (byte order left to the
//    reading machine) are rejected, as are structured dtypes;
//  - fortran_order is False (True is an unsupported layout);
//  - shape is a tuple of non-negative decimal integers: (), (n,) or
//    (n, m, ...); element and byte counts must fit in int64;
//  - the data is exactly elements * itemsize bytes: shorter is truncated,
//    longer (trailing data) is an error too.
// Error messages never contain raw control bytes: header text is quoted
// through printable().
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_NPYFORMAT_H
#define WEFT_RT_NPYFORMAT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft::rt::npy {

enum class Elem : int { F16, F32, F64, I32, I64 };

inline const char *descrOf(Elem e) {
  switch (e) {
  case Elem::F16:
    return "<f2";
  case Elem::F32:
    return "<f4";
  case Elem::F64:
    return "<f8";
  case Elem::I32:
    return "<i4";
  case Elem::I64:
    return "<i8";
  }
  return "?";
}

inline int64_t elemSize(Elem e) {
  switch (e) {
  case Elem::F16:
    return 2;
  case Elem::F32:
  case Elem::I32:
    return 4;
  case Elem::F64:
  case Elem::I64:
    return 8;
  }
  return 0;
}

/// "f16", "f32", "f64", "i32", "i64" (the names of Weft's dtypes).
inline const char *elemName(Elem e) {
  switch (e) {
  case Elem::F16:
    return "f16";
  case Elem::F32:
    return "f32";
  case Elem::F64:
    return "f64";
  case Elem::I32:
    return "i32";
  case Elem::I64:
    return "i64";
  }
  return "?";
}

/// `s` for a message: printable ASCII as is, every other byte as \xNN, at
/// most `max` bytes of `s` shown (then "...").
std::string printable(std::string_view s, std::size_t max = 200);

/// Bytes at the start of a file that parsePreamble looks at (at most).
inline constexpr std::size_t kPreambleBytes = 12;

struct Preamble {
  int major = 1;
  int64_t headerStart = 10; ///< offset of the header dict
  int64_t headerLen = 0;    ///< its length in bytes
};

/// Validates the first `n` bytes (`n` = min(kPreambleBytes, fileSize)) of a
/// file of `fileSize` bytes. Returns an error message, or "" and `out`.
std::string parsePreamble(const unsigned char *p, std::size_t n,
                          int64_t fileSize, Preamble &out);

struct Header {
  Elem elem = Elem::F32;
  std::vector<int64_t> shape;
  int64_t numElements = 1;
  int64_t dataOffset = 0; ///< bytes from the file start to the first element
  int64_t dataBytes = 0;  ///< numElements * elemSize(elem)
};

/// Parses the header dict `text` (the bytes after the preamble `pre`) and
/// checks the data size against `fileSize`. Returns an error message, or ""
/// and `out`.
std::string parseHeader(std::string_view text, const Preamble &pre,
                        int64_t fileSize, Header &out);

} // namespace weft::rt::npy

#endif // WEFT_RT_NPYFORMAT_H

//===- NpyFormat.cpp - The .npy format rules both readers share -----------===//

#include "weft/rt/NpyFormat.h"

#include <cstring>

namespace weft::rt::npy {

/// `s` for a message: printable ASCII as is, every other byte as \xNN, at
/// most `max` bytes of `s` shown (then "...").
std::string printable(std::string_view s, std::size_t max) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > max)
    out += "...";
  return out;
}

/// Validates the first `n` bytes (`n` = min(kPreambleBytes, fileSize)) of a
/// file of `fileSize` bytes. Returns an error message, or "" and `out`.
std::string parsePreamble(const unsigned char *p, std::size_t n,
                          int64_t fileSize, Preamble &out) {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  std::size_t m = n < 6 ? n : 6;
  if (std::memcmp(p, magic, m) != 0)
    return "bad magic: missing the \\x93NUMPY magic (not a .npy file)";
  if (n < 10)
    return "truncated header (file has " + std::to_string(fileSize) +
           " bytes, a header needs at least 10)";
  int major = p[6], minor = p[7];
  if (major < 1 || major > 3 || minor != 0)
    return "unsupported format version " + std::to_string(major) + "." +
           std::to_string(minor) + " (expected 1.0, 2.0 or 3.0)";
  int64_t len, start;
  if (major == 1) {
    len = int64_t(p[8]) | (int64_t(p[9]) << 8);
    start = 10;
  } else {
    if (n < 12)
      return "truncated header (file has " + std::to_string(fileSize) +
             " bytes, a version 2/3 header needs at least 12)";
    len = int64_t(p[8]) | (int64_t(p[9]) << 8) | (int64_t(p[10]) << 16) |
          (int64_t(p[11]) << 24);
    start = 12;
  }
  if (len > fileSize - start)
    return "truncated header (header claims " + std::to_string(len) +
           " bytes, file has " + std::to_string(fileSize - start) +
           " after the preamble)";
  out.major = major;
  out.headerStart = start;
  out.headerLen = len;
  return {};
}

namespace {

class DictParser {
public:
  explicit DictParser(std::string_view text) : t_(text) {}

  /// Returns an error message or "".
  std::string parse(Header &h) {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(t_[i]);
      if ((c < 0x20 || c >= 0x7f) && c != '\n')
        return bad("byte " + hexByte(c) + " at offset " + std::to_string(i));
    }
    space();
    if (!eat('{'))
      return bad("expected '{'");
    bool haveDescr = false, haveOrder = false, haveShape = false;
    bool fortran = false;
    std::string err;
    while (true) {
      space();
      if (eat('}'))
        break;
      std::string key;
      if (!quoted(key))
        return bad(err_);
      space();
      if (!eat(':'))
        return bad("expected ':' after key '" + printable(key) + "'");
      space();
      if (key == "descr") {
        if (haveDescr)
          return bad("duplicate key 'descr'");
        haveDescr = true;
        if (!(err = descr(h)).empty())
          return err;
      } else if (key == "fortran_order") {
        if (haveOrder)
          return bad("duplicate key 'fortran_order'");
        haveOrder = true;
        if (t_.substr(pos_, 4) == "True") {
          fortran = true;
          pos_ += 4;
        } else if (t_.substr(pos_, 5) == "False") {
          pos_ += 5;
        } else {
          return bad("fortran_order must be True or False");
        }
      } else if (key == "shape") {
        if (haveShape)
          return bad("duplicate key 'shape'");
        haveShape = true;
        if (!(err = shape(h)).empty())
          return err;
      } else {
        return bad("unexpected key '" + printable(key) + "'");
      }
      space();
      if (eat(','))
        continue;
      if (peek() != '}')
        return bad("expected ',' or '}' after the value of '" + key + "'");
    }
    space();
    if (pos_ != t_.size())
      return bad("unexpected text after the dict");
    if (!haveDescr || !haveOrder || !haveShape)
      return bad(std::string("missing key '") +
                 (!haveDescr   ? "descr"
                  : !haveOrder ? "fortran_order"
                               : "shape") +
                 "'");
    if (!typeError_.empty())
      return typeError_;
    if (fortran)
      return "Fortran order is not supported (save a C-order array, e.g. "
             "with numpy.ascontiguousarray)";
    return {};
  }

private:
  std::string bad(const std::string &what) const {
    return "corrupt header: " + what + " in header '" + printable(t_) + "'";
  }
  static std::string hexByte(unsigned char c) {
    static const char hex[] = "0123456789abcdef";
    return std::string("0x") + hex[c >> 4] + hex[c & 15];
  }
  char peek() const { return pos_ < t_.size() ? t_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }
  void space() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\n'))
      ++pos_;
  }
  bool quoted(std::string &out) {
    char q = peek();
    if (q != '\'' && q != '"') {
      err_ = "expected a quoted string";
      return false;
    }
    std::size_t end = t_.find(q, pos_ + 1);
    if (end == std::string_view::npos) {
      err_ = "unterminated string";
      return false;
    }
    out = std::string(t_.substr(pos_ + 1, end - pos_ - 1));
    if (out.find('\\') != std::string::npos) {
      err_ = "escapes in strings are not supported";
      return false;
    }
    pos_ = end + 1;
    return true;
  }
  /// Records a dtype the format allows but Weft does not read as
  /// typeError_ (reported after the dict is known to be well formed).
  std::string descr(Header &h) {
    if (peek() == '[')
      return bad("structured dtypes (a list as 'descr') are not supported");
    std::string d;
    if (!quoted(d))
      return bad(err_);
    const char *supported = "(supported: <f2, <f4, <f8, <i4, <i8)";
    for (Elem e : {Elem::F16, Elem::F32, Elem::F64, Elem::I32, Elem::I64})
      if (d == descrOf(e)) {
        h.elem = e;
        return {};
      }
    // A supported kind and size, with another byte-order character.
    bool knownRest = false;
    for (Elem e : {Elem::F16, Elem::F32, Elem::F64, Elem::I32, Elem::I64})
      knownRest |= d.size() == 3 && d.compare(1, 2, descrOf(e) + 1) == 0;
    std::string pd = printable(d);
    if (knownRest && d[0] == '>')
      typeError_ = "big-endian dtype " + pd + " is not supported " + supported;
    else if (knownRest && (d[0] == '=' || d[0] == '|'))
      typeError_ = "dtype " + pd +
                   " leaves the byte order to the reading machine; write it "
                   "as little-endian " +
                   supported;
    else
      typeError_ = "unsupported dtype " + pd + " " + supported;
    return {};
  }
  std::string shape(Header &h) {
    if (!eat('('))
      return bad("shape must be a tuple of integers");
    h.shape.clear();
    bool comma = true; // a (1-tuple) needs its trailing comma
    while (true) {
      space();
      if (eat(')'))
        break;
      if (!comma)
        return bad("expected ',' or ')' in shape");
      char c = peek();
      if (c < '0' || c > '9')
        return bad("shape must be a tuple of non-negative integers");
      if (c == '0' && pos_ + 1 < t_.size() && t_[pos_ + 1] >= '0' &&
          t_[pos_ + 1] <= '9')
        return bad("leading zero in a shape dimension");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        int digit = t_[pos_++] - '0';
        if (v > (INT64_MAX - digit) / 10)
          return bad("shape dimension does not fit in int64");
        v = v * 10 + digit;
      }
      h.shape.push_back(v);
      space();
      comma = eat(',');
    }
    if (h.shape.size() == 1 && !comma)
      return bad("shape (n) is not a tuple; numpy writes (n,)");
    return {};
  }

  std::string_view t_;
  std::size_t pos_ = 0;
  std::string err_, typeError_;
};

} // namespace

/// Parses the header dict `text` (the bytes after the preamble `pre`) and
/// checks the data size against `fileSize`. Returns an error message, or ""
/// and `out`.
std::string parseHeader(std::string_view text, const Preamble &pre,
                        int64_t fileSize, Header &out) {
  Header h;
  std::string err = DictParser(text).parse(h);
  if (!err.empty())
    return err;
  int64_t n = 1;
  for (int64_t d : h.shape)
    if (__builtin_mul_overflow(n, d, &n))
      return "shape is too large (the element count overflows int64)";
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, elemSize(h.elem), &bytes))
    return "shape is too large (the byte count overflows int64)";
  h.numElements = n;
  h.dataBytes = bytes;
  h.dataOffset = pre.headerStart + pre.headerLen;
  std::string desc = std::string(elemName(h.elem)) + "[";
  for (std::size_t i = 0; i < h.shape.size(); ++i)
    desc += (i ? ", " : "") + std::to_string(h.shape[i]);
  desc += "]";
  int64_t have = fileSize - h.dataOffset;
  if (have < bytes)
    return "truncated data (shape " + desc + " needs " + std::to_string(bytes) +
           " data bytes, file has " + std::to_string(have) + ")";
  if (have > bytes)
    return std::to_string(have - bytes) +
           " bytes of trailing data after the array (shape " + desc +
           " needs " + std::to_string(bytes) + " data bytes, file has " +
           std::to_string(have) + ")";
  out = std::move(h);
  return {};
}

} // namespace weft::rt::npy

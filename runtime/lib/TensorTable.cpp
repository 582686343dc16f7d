//===- TensorTable.cpp - Inputs and outputs as one compact text -----------===//
//
// encodeTensorTable and decodeTensorTable (TensorTable.h has the format).
//
//===----------------------------------------------------------------------===//

#include "weft/rt/TensorTable.h"

#include "weft/rt/Error.h"

#include <cctype>
#include <cstdint>
#include <optional>

namespace weft::rt {

bool sameProgramTensor(const ProgramTensor &a, const ProgramTensor &b) {
  return a.name == b.name && a.dtype == b.dtype &&
         a.globalShape == b.globalShape && a.layout.dims == b.layout.dims &&
         a.partialAxes == b.partialAxes && a.partialKind == b.partialKind &&
         a.intBound == b.intBound && a.role == b.role &&
         a.updates == b.updates && a.microBatch == b.microBatch &&
         a.logicalShape == b.logicalShape;
}

namespace {

//===--- Writing ----------------------------------------------------------===//

/// A name written bare: non-empty, no white space, braces, quotes or
/// backslashes, printable ASCII, not a keyword of the table.
bool isBareName(const std::string &name) {
  if (name.empty() || name == "repeat" || name == "end")
    return false;
  for (unsigned char c : name)
    if (c <= ' ' || c >= 0x7f || c == '{' || c == '}' || c == '"' || c == '\\')
      return false;
  return true;
}

std::string quoteName(const std::string &name) {
  std::string s = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\')
      s += '\\';
    if (c == '\n') {
      s += "\\n";
      continue;
    }
    s += c;
  }
  return s + "\"";
}

template <typename T>
std::string list(const std::vector<T> &v, char open, char close) {
  std::string s(1, open);
  for (size_t i = 0; i < v.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(v[i]);
  }
  return s + close;
}

std::string layoutText(const Layout &layout) {
  std::string s = "[";
  for (size_t d = 0; d < layout.dims.size(); ++d) {
    if (d)
      s += ',';
    s += list(layout.dims[d], '{', '}');
  }
  return s + "]";
}

/// `t` but its name and updates, which the caller writes.
std::string restText(const ProgramTensor &t) {
  std::string s = std::string(" ") + dtypeName(t.dtype) + " " +
                  list(t.globalShape, '[', ']') + " " + layoutText(t.layout);
  if (!t.partialAxes.empty())
    s += " partial=" + list(t.partialAxes, '{', '}');
  if (t.partialKind != ReduceKind::Sum)
    s += std::string(" kind=") + reduceKindName(t.partialKind);
  if (t.intBound != 1)
    s += " bound=" + std::to_string(t.intBound);
  if (t.role != TensorRole::Data)
    s += " role=" + std::to_string(static_cast<int>(t.role));
  if (t.microBatch != 0)
    s += " micro=" + std::to_string(t.microBatch);
  if (!t.logicalShape.empty())
    s += " logical=" + list(t.logicalShape, '[', ']');
  return s;
}

/// One row of a repeated run: the name as prefix + counter + suffix (or a
/// constant name), updates as first + i * stride, the other fields equal.
struct RowPattern {
  const ProgramTensor *base = nullptr;
  bool counted = false;
  std::string prefix, suffix;
  int64_t first = 0, stride = 0;
  int64_t updatesFirst = -1, updatesStride = 0;

  std::string name(int64_t i) const {
    return counted ? prefix + std::to_string(first + i * stride) + suffix
                   : base->name;
  }

  bool fits(const ProgramTensor &t, int64_t i) const {
    if (t.updates != updatesFirst + i * updatesStride)
      return false;
    ProgramTensor expected = *base;
    expected.name = name(i);
    expected.updates = static_cast<int>(t.updates);
    return sameProgramTensor(expected, t);
  }

  std::string text() const {
    std::string s = counted ? prefix + "{" + std::to_string(first) + "," +
                                  std::to_string(stride) + "}" + suffix
                            : base->name;
    s += restText(*base);
    if (updatesStride != 0)
      s += " updates={" + std::to_string(updatesFirst) + "," +
           std::to_string(updatesStride) + "}";
    else if (updatesFirst != -1)
      s += " updates=" + std::to_string(updatesFirst);
    return s;
  }
};

std::optional<int64_t> parseCounter(const std::string &digits) {
  if (digits.empty() || digits.size() > 15 ||
      (digits.size() > 1 && digits[0] == '0'))
    return std::nullopt;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
  return std::stoll(digits);
}

/// The pattern that writes `a` as repetition 0 and `b` as repetition 1.
std::optional<RowPattern> patternOf(const ProgramTensor &a,
                                    const ProgramTensor &b) {
  if (!isBareName(a.name) || !isBareName(b.name))
    return std::nullopt;
  RowPattern p;
  p.base = &a;
  p.updatesFirst = a.updates;
  p.updatesStride = int64_t(b.updates) - a.updates;
  if (a.name != b.name) {
    const std::string &x = a.name, &y = b.name;
    size_t cp = 0;
    while (cp < x.size() && cp < y.size() && x[cp] == y[cp])
      ++cp;
    while (cp > 0 && std::isdigit(static_cast<unsigned char>(x[cp - 1])))
      --cp;
    size_t cs = 0;
    while (cs < x.size() - cp && cs < y.size() - cp &&
           x[x.size() - 1 - cs] == y[y.size() - 1 - cs])
      ++cs;
    while (cs > 0 && std::isdigit(static_cast<unsigned char>(x[x.size() - cs])))
      --cs;
    auto n0 = parseCounter(x.substr(cp, x.size() - cp - cs));
    auto n1 = parseCounter(y.substr(cp, y.size() - cp - cs));
    if (!n0 || !n1)
      return std::nullopt;
    p.counted = true;
    p.prefix = x.substr(0, cp);
    p.suffix = x.substr(x.size() - cs);
    p.first = *n0;
    p.stride = *n1 - *n0;
  }
  if (!p.fits(a, 0) || !p.fits(b, 1))
    return std::nullopt;
  return p;
}

void writeRow(std::string &out, const ProgramTensor &t) {
  out += isBareName(t.name) ? t.name : quoteName(t.name);
  out += restText(t);
  if (t.updates != -1)
    out += " updates=" + std::to_string(t.updates);
  out += '\n';
}

//===--- Reading ----------------------------------------------------------===//

class Reader {
public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::vector<ProgramTensor> read() {
    std::vector<ProgramTensor> out;
    while (nextLine()) {
      if (line_.rfind("repeat ", 0) == 0) {
        int64_t n = number(line_.substr(7));
        std::vector<std::string_view> rows;
        while (true) {
          if (!nextLine())
            error("'repeat' without 'end'");
          if (line_ == "end")
            break;
          rows.push_back(line_);
        }
        if (n < 1 || rows.empty())
          error("empty repeat");
        for (int64_t i = 0; i < n; ++i)
          for (std::string_view row : rows)
            out.push_back(parseRow(row, i));
        continue;
      }
      out.push_back(parseRow(line_, 0));
    }
    return out;
  }

private:
  bool nextLine() {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos)
        end = text_.size();
      line_ = text_.substr(pos_, end - pos_);
      pos_ = end + 1;
      ++lineNo_;
      if (!line_.empty())
        return true;
    }
    return false;
  }

  [[noreturn]] void error(const std::string &what) {
    fail("tensor table line ", lineNo_, ": ", what, " in '", line_, "'");
  }

  int64_t number(std::string_view s) {
    bool neg = !s.empty() && s[0] == '-';
    if (neg)
      s.remove_prefix(1);
    if (s.empty() || s.size() > 18)
      error("bad number '" + std::string(s) + "'");
    int64_t v = 0;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        error("bad number '" + std::string(s) + "'");
      v = v * 10 + (c - '0');
    }
    return neg ? -v : v;
  }

  /// `{FIRST,STRIDE}` at repetition i, or a plain number.
  int64_t counter(std::string_view s, int64_t i) {
    if (s.empty() || s[0] != '{')
      return number(s);
    size_t comma = s.find(',');
    if (s.back() != '}' || comma == std::string_view::npos)
      error("bad counter '" + std::string(s) + "'");
    return number(s.substr(1, comma - 1)) +
           i * number(s.substr(comma + 1, s.size() - comma - 2));
  }

  template <typename T>
  std::vector<T> numbers(std::string_view s, char open, char close) {
    if (s.size() < 2 || s.front() != open || s.back() != close)
      error("expected " + std::string(1, open) + "..." + std::string(1, close) +
            ", got '" + std::string(s) + "'");
    s = s.substr(1, s.size() - 2);
    std::vector<T> v;
    while (!s.empty()) {
      size_t comma = s.find(',');
      v.push_back(static_cast<T>(number(s.substr(0, comma))));
      if (comma == std::string_view::npos)
        break;
      s.remove_prefix(comma + 1);
    }
    return v;
  }

  Layout layout(std::string_view s) {
    if (s.size() < 2 || s.front() != '[' || s.back() != ']')
      error("bad layout '" + std::string(s) + "'");
    s = s.substr(1, s.size() - 2);
    Layout l;
    while (!s.empty()) {
      size_t close = s.find('}');
      if (close == std::string_view::npos)
        error("bad layout");
      l.dims.push_back(numbers<int>(s.substr(0, close + 1), '{', '}'));
      s.remove_prefix(close + 1);
      if (!s.empty()) {
        if (s[0] != ',')
          error("bad layout");
        s.remove_prefix(1);
      }
    }
    return l;
  }

  std::string name(std::string_view &s, int64_t i) {
    std::string n;
    if (!s.empty() && s[0] == '"') {
      size_t k = 1;
      for (; k < s.size() && s[k] != '"'; ++k) {
        if (s[k] == '\\' && k + 1 < s.size()) {
          ++k;
          n += s[k] == 'n' ? '\n' : s[k];
        } else {
          n += s[k];
        }
      }
      if (k >= s.size())
        error("unterminated name");
      s.remove_prefix(k + 1);
      return n;
    }
    size_t end = s.find(' ');
    std::string_view word = s.substr(0, end);
    s.remove_prefix(end == std::string_view::npos ? s.size() : end);
    size_t open = word.find('{');
    if (open == std::string_view::npos)
      return std::string(word);
    size_t close = word.find('}', open);
    if (close == std::string_view::npos)
      error("bad name counter");
    return std::string(word.substr(0, open)) +
           std::to_string(counter(word.substr(open, close - open + 1), i)) +
           std::string(word.substr(close + 1));
  }

  ProgramTensor parseRow(std::string_view row, int64_t i) {
    ProgramTensor t;
    t.name = name(row, i);
    std::vector<std::string_view> words;
    while (!row.empty()) {
      if (row[0] != ' ')
        error("expected a space");
      row.remove_prefix(1);
      size_t end = row.find(' ');
      words.push_back(row.substr(0, end));
      row.remove_prefix(end == std::string_view::npos ? row.size() : end);
    }
    if (words.size() < 3)
      error("expected NAME DTYPE SHAPE LAYOUT");
    try {
      t.dtype = parseDType(std::string(words[0]));
      t.partialKind = ReduceKind::Sum;
    } catch (const Error &e) {
      error(e.what());
    }
    t.globalShape = numbers<int64_t>(words[1], '[', ']');
    t.layout = layout(words[2]);
    for (size_t w = 3; w < words.size(); ++w) {
      std::string_view f = words[w];
      size_t eq = f.find('=');
      if (eq == std::string_view::npos)
        error("expected FIELD=VALUE");
      std::string_view key = f.substr(0, eq), value = f.substr(eq + 1);
      if (key == "partial") {
        t.partialAxes = numbers<int>(value, '{', '}');
      } else if (key == "kind") {
        try {
          t.partialKind = parseReduceKind(std::string(value));
        } catch (const Error &e) {
          error(e.what());
        }
      } else if (key == "bound") {
        t.intBound = number(value);
      } else if (key == "role") {
        int64_t role = number(value);
        if (role < 0 || role > static_cast<int64_t>(TensorRole::FiniteGrads))
          error("unknown role " + std::to_string(role));
        t.role = static_cast<TensorRole>(role);
      } else if (key == "updates") {
        t.updates = static_cast<int>(counter(value, i));
      } else if (key == "micro") {
        t.microBatch = static_cast<int>(number(value));
      } else if (key == "logical") {
        t.logicalShape = numbers<int64_t>(value, '[', ']');
      } else {
        error("unknown field '" + std::string(key) + "'");
      }
    }
    return t;
  }

  std::string_view text_, line_;
  size_t pos_ = 0;
  int lineNo_ = 0;
};

} // namespace

std::string encodeTensorTable(const std::vector<ProgramTensor> &tensors) {
  constexpr size_t kMaxBlock = 64;
  std::string out;
  size_t n = tensors.size(), p = 0;
  while (p < n) {
    // The longest repeated run from p: K rows, N >= 2 times.
    size_t bestK = 0, bestN = 0;
    std::vector<RowPattern> best;
    for (size_t k = 1; k <= kMaxBlock && p + 2 * k <= n; ++k) {
      std::vector<RowPattern> rows;
      for (size_t j = 0; j < k; ++j) {
        auto row = patternOf(tensors[p + j], tensors[p + k + j]);
        if (!row)
          break;
        rows.push_back(*row);
      }
      if (rows.size() != k)
        continue;
      size_t reps = 2;
      while (p + (reps + 1) * k <= n) {
        bool fits = true;
        for (size_t j = 0; j < k && fits; ++j)
          fits = rows[j].fits(tensors[p + reps * k + j],
                              static_cast<int64_t>(reps));
        if (!fits)
          break;
        ++reps;
      }
      if (reps * k > bestN * bestK) {
        bestK = k;
        bestN = reps;
        best = std::move(rows);
      }
    }
    if (bestK == 0) {
      writeRow(out, tensors[p++]);
      continue;
    }
    out += "repeat " + std::to_string(bestN) + "\n";
    for (const RowPattern &row : best)
      out += row.text() + "\n";
    out += "end\n";
    p += bestN * bestK;
  }
  return out;
}

std::vector<ProgramTensor> decodeTensorTable(std::string_view table) {
  return Reader(table).read();
}

} // namespace weft::rt

//===- Checkpoint.cpp - Checkpoints written and published as a unit -------===//
//
// Checkpoint.h states the guarantee. The manifest is JSON (Python's json
// module reads it); the parser below reads the subset the writer writes
// (objects, arrays, strings, integers) and refuses anything else.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Checkpoint.h"

#include "weft/rt/Error.h"
#include "weft/rt/Npy.h"
#include "weft/rt/NpyFormat.h"
#include "weft/rt/Trace.h" // jsonString

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace weft::rt {

namespace fs = std::filesystem;

//===--- CRC-32 -----------------------------------------------------------===//

namespace {
/// Slicing-by-8 tables of the reflected polynomial 0xEDB88320.
struct Crc32Tables {
  uint32_t t[8][256];
  Crc32Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s)
        t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
};
const Crc32Tables &crcTables() {
  static const Crc32Tables tables;
  return tables;
}
} // namespace

uint32_t crc32(const void *data, std::size_t n, uint32_t crc) {
  const auto &t = crcTables().t;
  const unsigned char *p = static_cast<const unsigned char *>(data);
  uint32_t c = ~crc;
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;
    c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
        t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
        t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--)
    c = t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

//===--- The manifest as JSON ---------------------------------------------===//

const CheckpointEntry *CheckpointManifest::find(const std::string &name) const {
  for (const CheckpointEntry &e : tensors)
    if (e.name == name)
      return &e;
  return nullptr;
}

namespace {

/// A JSON value of the subset the manifest uses.
struct Json {
  enum Kind { Null, Int, String, Array, Object } kind = Null;
  int64_t i = 0;
  std::string s;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  const Json *get(const std::string &key) const {
    for (const auto &[k, v] : fields)
      if (k == key)
        return &v;
    return nullptr;
  }
};

class JsonParser {
public:
  JsonParser(const std::string &text, const std::string &where)
      : text_(text), where_(where) {}

  Json parseDocument() {
    Json v = parseValue(0);
    skipSpace();
    if (pos_ != text_.size())
      error("text after the manifest's object");
    return v;
  }

private:
  [[noreturn]] void error(const std::string &what) const {
    fail(where_, ": malformed manifest at byte ", pos_, ": ", what);
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c))
      error(std::string("expected '") + c + "'");
  }
  std::string parseString() {
    expect('"');
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size())
        break;
      char e = text_[pos_++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (pos_ + 4 > text_.size())
          error("truncated \\u escape");
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
          char h = text_[pos_++];
          v = v * 16 + (std::isdigit(static_cast<unsigned char>(h))
                            ? h - '0'
                            : (std::tolower(h) - 'a' + 10));
        }
        if (v > 0x7f)
          error("non-ASCII \\u escape");
        out += static_cast<char>(v);
        break;
      }
      default:
        error("unknown escape");
      }
    }
    if (pos_ >= text_.size())
      error("unterminated string");
    ++pos_;
    return out;
  }
  Json parseValue(int depth) {
    if (depth > 8)
      error("nested too deeply");
    skipSpace();
    if (pos_ >= text_.size())
      error("unexpected end");
    Json v;
    char c = text_[pos_];
    if (c == '{') {
      v.kind = Json::Object;
      ++pos_;
      if (eat('}'))
        return v;
      do {
        skipSpace();
        std::string key = parseString();
        expect(':');
        v.fields.emplace_back(key, parseValue(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      v.kind = Json::Array;
      ++pos_;
      if (eat(']'))
        return v;
      do
        v.items.push_back(parseValue(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::String;
      v.s = parseString();
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      v.kind = Json::Int;
      std::size_t start = pos_;
      if (c == '-')
        ++pos_;
      while (pos_ < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[pos_])))
        ++pos_;
      std::string digits = text_.substr(start, pos_ - start);
      if (digits == "-" || digits.size() > 19)
        error("not an integer in range");
      v.i = std::stoll(digits);
    } else if (text_.compare(pos_, 4, "null") == 0) {
      pos_ += 4;
    } else {
      error("unexpected character");
    }
    return v;
  }

  const std::string &text_;
  std::string where_;
  std::size_t pos_ = 0;
};

} // namespace

std::string manifestToJson(const CheckpointManifest &m) {
  std::ostringstream os;
  os << "{\n  \"format\": \"weft-checkpoint\",\n  \"version\": 1,\n"
     << "  \"step\": " << m.step << ",\n"
     << "  \"program\": " << jsonString(m.program) << ",\n"
     << "  \"mesh\": " << jsonString(m.mesh) << ",\n"
     << "  \"tensors\": [";
  for (std::size_t k = 0; k < m.tensors.size(); ++k) {
    const CheckpointEntry &e = m.tensors[k];
    os << (k ? ",\n" : "\n") << "    {\"name\": " << jsonString(e.name)
       << ", \"file\": " << jsonString(e.name + ".npy")
       << ", \"role\": " << jsonString(e.role) << ", \"dtype\": \""
       << dtypeName(e.dtype) << "\", \"shape\": [";
    for (std::size_t d = 0; d < e.shape.size(); ++d)
      os << (d ? ", " : "") << e.shape[d];
    os << "], \"bytes\": " << e.bytes << ", \"crc32\": " << e.crc << "}";
  }
  os << "\n  ]\n}\n";
  return os.str();
}

CheckpointManifest parseManifest(const std::string &text,
                                 const std::string &where) {
  Json doc = JsonParser(text, where).parseDocument();
  auto field = [&](const Json &obj, const char *key, Json::Kind kind,
                   const std::string &ctx) -> const Json & {
    const Json *v = obj.get(key);
    check(v && v->kind == kind, where, ": manifest", ctx, " has no ",
          kind == Json::Int      ? "integer"
          : kind == Json::String ? "string"
                                 : "list",
          " field '", key, "'");
    return *v;
  };
  check(doc.kind == Json::Object, where, ": the manifest is not an object");
  check(field(doc, "format", Json::String, "").s == "weft-checkpoint", where,
        ": not a weft checkpoint manifest");
  int64_t version = field(doc, "version", Json::Int, "").i;
  check(version == 1, where, ": manifest version ", version,
        " is not one this build reads (1)");
  CheckpointManifest m;
  m.step = field(doc, "step", Json::Int, "").i;
  check(m.step >= 0, where, ": negative step ", m.step);
  m.program = field(doc, "program", Json::String, "").s;
  m.mesh = field(doc, "mesh", Json::String, "").s;
  for (const Json &t : field(doc, "tensors", Json::Array, "").items) {
    check(t.kind == Json::Object, where, ": a tensor entry is not an object");
    CheckpointEntry e;
    e.name = field(t, "name", Json::String, "'s tensor").s;
    std::string ctx = "'s tensor '" + e.name + "'";
    check(!e.name.empty() && e.name.find('/') == std::string::npos &&
              e.name[0] != '.',
          where, ": manifest", ctx, " is not a file name");
    check(field(t, "file", Json::String, ctx).s == e.name + ".npy", where,
          ": manifest", ctx, ": file is not '", e.name, ".npy'");
    e.role = field(t, "role", Json::String, ctx).s;
    try {
      e.dtype = parseDType(field(t, "dtype", Json::String, ctx).s);
    } catch (const Error &err) {
      fail(where, ": manifest", ctx, ": ", err.what());
    }
    for (const Json &d : field(t, "shape", Json::Array, ctx).items) {
      check(d.kind == Json::Int && d.i >= 0, where, ": manifest", ctx,
            ": a dimension is not a non-negative integer");
      e.shape.push_back(d.i);
    }
    int64_t bytes = field(t, "bytes", Json::Int, ctx).i;
    int64_t crc = field(t, "crc32", Json::Int, ctx).i;
    check(bytes >= 0 && crc >= 0 && crc <= 0xffffffffLL, where, ": manifest",
          ctx, ": bytes or crc32 out of range");
    e.bytes = static_cast<uint64_t>(bytes);
    e.crc = static_cast<uint32_t>(crc);
    check(!m.find(e.name), where, ": manifest lists '", e.name, "' twice");
    m.tensors.push_back(std::move(e));
  }
  return m;
}

//===--- Directories ------------------------------------------------------===//

std::string checkpointDirName(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "step-%08lld", static_cast<long long>(step));
  return buf;
}

namespace {

/// The step of a directory named step-N (N decimal digits), or -1.
int64_t stepOfDirName(const std::string &name) {
  if (name.rfind("step-", 0) != 0 || name.size() == 5 || name.size() > 5 + 18)
    return -1;
  int64_t step = 0;
  for (std::size_t k = 5; k < name.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(name[k])))
      return -1;
    step = step * 10 + (name[k] - '0');
  }
  return step;
}

std::string readWholeFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  check(f.good(), "cannot open '", npy::printable(path),
        "': ", std::strerror(errno));
  std::ostringstream os;
  os << f.rdbuf();
  check(!f.bad(), "cannot read '", npy::printable(path), "'");
  return os.str();
}

/// fsync of a directory, so the names in it (a rename) are durable.
void syncDirectory(const std::string &dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  check(fd >= 0, "cannot open directory '", npy::printable(dir),
        "': ", std::strerror(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  check(rc == 0 || err == EINVAL, "cannot sync directory '",
        npy::printable(dir), "': ", std::strerror(err));
}

/// Creates `path` with `bytes`, fsync'ed. Not atomic: only for the staging
/// directory, which nobody reads before it is published.
void writeSynced(const std::string &path,
                 const std::vector<std::pair<const void *, std::size_t>> &parts,
                 uint32_t *crc) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  check(fd >= 0, "cannot create '", npy::printable(path),
        "': ", std::strerror(errno));
  try {
    uint32_t c = 0;
    for (const auto &[data, n] : parts) {
      writeAllToFd(fd, data, n, path);
      c = crc32(data, n, c);
    }
    checkSys(::fsync(fd), "'", npy::printable(path), "': write failed: ");
    if (crc)
      *crc = c;
  } catch (...) {
    ::close(fd);
    throw;
  }
  checkSys(::close(fd), "'", npy::printable(path), "': write failed: ");
}

/// Atomically exchanges two paths (renameat2 RENAME_EXCHANGE). False when
/// the file system or kernel cannot.
bool exchangePaths(const std::string &a, const std::string &b) {
#if defined(SYS_renameat2)
  constexpr unsigned kRenameExchange = 2; // RENAME_EXCHANGE
  return ::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(),
                   kRenameExchange) == 0;
#else
  (void)a;
  (void)b;
  return false;
#endif
}

/// Removes a published checkpoint: renamed to a hidden name first (one
/// step), so an interrupted removal never leaves a partial step-N.
void retire(const std::string &dir) {
  fs::path p(dir);
  std::string hidden =
      (p.parent_path() / (std::string(".") + p.filename().string() +
                          ".deleting-" + std::to_string(::getpid())))
          .string();
  std::error_code ec;
  if (::rename(dir.c_str(), hidden.c_str()) == 0)
    fs::remove_all(hidden, ec);
}

} // namespace

std::vector<std::pair<int64_t, std::string>>
listCheckpoints(const std::string &root) {
  std::vector<std::pair<int64_t, std::string>> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return out;
  for (const fs::directory_entry &d : fs::directory_iterator(root, ec)) {
    int64_t step = stepOfDirName(d.path().filename().string());
    if (step >= 0 && d.is_directory(ec))
      out.emplace_back(step, d.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string resolveCheckpoint(const std::string &path) {
  std::error_code ec;
  std::string shown = npy::printable(path);
  check(fs::exists(path, ec), "checkpoint '", shown, "' does not exist");
  check(fs::is_directory(path, ec), "checkpoint '", shown,
        "' is not a directory");
  if (fs::exists(fs::path(path) / kManifestName, ec))
    return path;
  auto published = listCheckpoints(path);
  if (!published.empty())
    return published.back().second;
  check(!fs::exists(fs::path(path) / "step.npy", ec), "checkpoint '", shown,
        "' has no ", kManifestName,
        ": it is a checkpoint of the old format (one file per tensor, no "
        "manifest), which cannot be told from a torn one; it is not loaded");
  fail("checkpoint '", shown, "' has no ", kManifestName,
       " and no step-N checkpoint directories: it is not a complete "
       "checkpoint (an interrupted save is never published)");
}

CheckpointManifest verifyCheckpoint(const std::string &dir, bool checksums) {
  std::string manifestPath = (fs::path(dir) / kManifestName).string();
  std::string text;
  try {
    text = readWholeFile(manifestPath);
  } catch (const Error &e) {
    fail("checkpoint '", npy::printable(dir), "': no readable ", kManifestName,
         " (", e.what(), "); it is not a complete checkpoint");
  }
  CheckpointManifest m = parseManifest(text, npy::printable(manifestPath));
  for (const CheckpointEntry &e : m.tensors) {
    std::string file = (fs::path(dir) / (e.name + ".npy")).string();
    std::string shown = npy::printable(file);
    std::error_code ec;
    uintmax_t size = fs::file_size(file, ec);
    check(!ec, "checkpoint file '", shown,
          "' (listed in the manifest): ", ec.message());
    check(size == e.bytes, "checkpoint file '", shown, "' has ", size,
          " bytes; the manifest records ", e.bytes,
          " (a torn or replaced file)");
    NpyHeader h = readNpyHeader(file);
    check(h.dtype == npyFileDType(e.dtype) && h.shape == e.shape &&
              !h.fortranOrder,
          "checkpoint file '", shown, "' holds ", dtypeName(h.dtype),
          shapeToString(h.shape), "; the manifest records ", dtypeName(e.dtype),
          shapeToString(e.shape));
    if (!checksums)
      continue;
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    check(fd >= 0, "checkpoint file '", shown,
          "': cannot open: ", std::strerror(errno));
    std::vector<char> buf(1 << 20);
    uint32_t crc = 0;
    uint64_t total = 0;
    for (;;) {
      ssize_t r = ::read(fd, buf.data(), buf.size());
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      crc = crc32(buf.data(), static_cast<std::size_t>(r), crc);
      total += static_cast<uint64_t>(r);
    }
    ::close(fd);
    check(total == e.bytes, "checkpoint file '", shown, "': read ", total,
          " of ", e.bytes, " bytes");
    if (crc != e.crc) {
      char got[16], want[16];
      std::snprintf(got, sizeof(got), "%08x", crc);
      std::snprintf(want, sizeof(want), "%08x", e.crc);
      fail("checkpoint file '", shown, "' has CRC-32 ", got,
           "; the manifest records ", want, " (the file is damaged)");
    }
  }
  return m;
}

//===--- The writer -------------------------------------------------------===//

CheckpointWriter::CheckpointWriter(std::string root, int64_t step,
                                   std::string program, std::string mesh)
    : root_(std::move(root)) {
  manifest_.step = step;
  manifest_.program = std::move(program);
  manifest_.mesh = std::move(mesh);
  std::error_code ec;
  fs::create_directories(root_, ec);
  check(fs::is_directory(root_), "cannot create checkpoint directory '",
        npy::printable(root_), "'", ec ? ": " + ec.message() : std::string());
  std::string base = std::string(".") + checkpointDirName(step) + ".partial-" +
                     std::to_string(::getpid());
  for (int attempt = 0;; ++attempt) {
    staging_ = (fs::path(root_) /
                (attempt ? base + "." + std::to_string(attempt) : base))
                   .string();
    if (::mkdir(staging_.c_str(), 0777) == 0)
      break;
    check(errno == EEXIST && attempt < 100, "cannot create '",
          npy::printable(staging_), "': ", std::strerror(errno));
  }
}

CheckpointWriter::~CheckpointWriter() {
  if (published_ || staging_.empty())
    return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

void CheckpointWriter::add(const std::string &name, const std::string &role,
                           DType dtype, const Shape &shape, const void *data) {
  check(!published_, "checkpoint already published");
  std::string path = (fs::path(staging_) / (name + ".npy")).string();
  // bf16 goes to an f32 file, exactly (npyFileDType); the manifest keeps
  // the tensor's dtype.
  std::vector<float> widened;
  if (dtype == DType::BF16) {
    widened.resize(static_cast<std::size_t>(numElements(shape)));
    const auto *h = static_cast<const uint16_t *>(data);
    for (std::size_t i = 0; i < widened.size(); ++i)
      widened[i] = bfloat16ToFloat(h[i]);
    data = widened.data();
  }
  const DType fileType = npyFileDType(dtype);
  std::string header = encodeNpyHeader(fileType, shape);
  std::size_t bytes = npyDataBytes(fileType, shape, path);
  CheckpointEntry e;
  e.name = name;
  e.role = role;
  e.dtype = dtype;
  e.shape = shape;
  e.bytes = header.size() + bytes;
  writeSynced(path, {{header.data(), header.size()}, {data, bytes}}, &e.crc);
  manifest_.tensors.push_back(std::move(e));
}

std::string CheckpointWriter::publish(int keep) {
  check(!published_, "checkpoint already published");
  std::string text = manifestToJson(manifest_);
  writeSynced((fs::path(staging_) / kManifestName).string(),
              {{text.data(), text.size()}}, nullptr);
  syncDirectory(staging_);
  std::string target =
      (fs::path(root_) / checkpointDirName(manifest_.step)).string();
  std::error_code ec;
  if (::rename(staging_.c_str(), target.c_str()) != 0) {
    int err = errno;
    // A checkpoint of the same step is there (a run resumed from an earlier
    // step): swap the two in one step, then remove the old one.
    check((err == ENOTEMPTY || err == EEXIST) && fs::is_directory(target, ec),
          "cannot publish checkpoint '", npy::printable(target),
          "': ", std::strerror(err));
    if (!exchangePaths(staging_, target)) {
      // No atomic exchange here: move the old one aside first. A crash in
      // between leaves the older steps and the staging directory.
      std::string aside = staging_ + ".old";
      checkSys(::rename(target.c_str(), aside.c_str()),
               "cannot replace checkpoint '", npy::printable(target), "': ");
      checkSys(::rename(staging_.c_str(), target.c_str()),
               "cannot publish checkpoint '", npy::printable(target), "': ");
      staging_ = aside;
    }
    published_ = true;
    fs::remove_all(staging_, ec); // Now the replaced checkpoint.
  }
  published_ = true;
  syncDirectory(root_);
  if (keep > 0) {
    auto all = listCheckpoints(root_);
    // The oldest first; never the one just published (a run resumed from
    // an earlier step may save below the newest).
    std::size_t excess =
        all.size() > static_cast<std::size_t>(keep) ? all.size() - keep : 0;
    for (std::size_t k = 0; k < all.size() && excess > 0; ++k)
      if (all[k].second != target) {
        retire(all[k].second);
        --excess;
      }
  }
  return target;
}

int removeStaleStaging(const std::string &root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return 0;
  std::vector<fs::path> stale;
  for (const fs::directory_entry &d : fs::directory_iterator(root, ec)) {
    std::string name = d.path().filename().string();
    if (name.rfind(".step-", 0) == 0 &&
        (name.find(".partial-") != std::string::npos ||
         name.find(".deleting-") != std::string::npos))
      stale.push_back(d.path());
  }
  for (const fs::path &p : stale)
    fs::remove_all(p, ec);
  return static_cast<int>(stale.size());
}

} // namespace weft::rt

//===- TokenData.cpp - Training windows from a token file -----------------===//

#include "TokenData.h"

#include "weft/rt/Error.h"
#include "weft/rt/Rng.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace weft::rt {

bool parseTokenOption(const std::string &name,
                      const std::function<std::string()> &value,
                      TokenOptions &o) {
  if (name == "--tokens") {
    o.file = value();
    check(!o.file.empty(), "option --tokens expects a file");
  } else if (name == "--token-dtype") {
    std::string v = value();
    check(v == "u16" || v == "u32",
          "option --token-dtype expects u16 or u32, got '", v, "'");
    o.tokenBytes = v == "u16" ? 2 : 4;
  } else if (name == "--token-inputs") {
    std::string v = value();
    auto comma = v.find(',');
    check(comma != std::string::npos && comma > 0 && comma + 1 < v.size() &&
              v.find(',', comma + 1) == std::string::npos,
          "option --token-inputs expects IDS,TARGETS (two input names), got '",
          v, "'");
    o.idsInput = v.substr(0, comma);
    o.targetsInput = v.substr(comma + 1);
    check(o.idsInput != o.targetsInput, "option --token-inputs names input '",
          o.idsInput, "' twice");
  } else if (name == "--token-seed") {
    std::string v = value();
    char *end = nullptr;
    errno = 0;
    unsigned long long s = std::strtoull(v.c_str(), &end, 10);
    check(!v.empty() && v[0] != '-' && *end == '\0' && errno == 0,
          "option --token-seed expects an integer >= 0, got '", v, "'");
    o.seed = s;
  } else if (name == "--print-windows") {
    o.printWindows = true;
  } else {
    return false;
  }
  return true;
}

namespace {
/// Reads `bytes` at `offset` or throws.
void readAt(int fd, const std::string &path, void *out, std::size_t bytes,
            int64_t offset) {
  auto *p = static_cast<char *>(out);
  while (bytes > 0) {
    ssize_t n = ::pread(fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    check(n > 0, "token file '", path, "': read failed at byte ", offset, ": ",
          n < 0 ? std::strerror(errno) : "unexpected end of file");
    p += n;
    offset += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

int64_t tokenAt(const char *p, int tokenBytes) {
  if (tokenBytes == 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
} // namespace

TokenFile::TokenFile(const std::string &path, int tokenBytes, int64_t seq,
                     int64_t vocab, int part, int parts)
    : path_(path), tokenBytes_(tokenBytes), seq_(seq) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd_ >= 0, "token file '", path, "': ", std::strerror(errno));
  struct stat st;
  check(::fstat(fd_, &st) == 0, "token file '", path,
        "': ", std::strerror(errno));
  int64_t bytes = st.st_size;
  const char *type = tokenBytes == 2 ? "u16" : "u32";
  check(bytes % tokenBytes == 0, "token file '", path, "' has ", bytes,
        " bytes, not a whole number of ", type, " tokens (", tokenBytes,
        " bytes each; is --token-dtype right?)");
  count_ = bytes / tokenBytes;
  check(count_ >= seq + 1, "token file '", path, "' holds ", count_,
        " tokens; a window of sequence ", seq, " needs ", seq + 1,
        " (the ids and the targets shifted by one)");
  if (vocab <= 1)
    return;
  // Every id of this rank's slice below the vocabulary: one pass, in
  // chunks (token boundaries: slices of whole tokens).
  check(parts >= 1 && part >= 0 && part < parts, "token file '", path,
        "': scan part ", part, " of ", parts);
  int64_t begin = count_ * part / parts * tokenBytes;
  int64_t end = count_ * (part + 1) / parts * tokenBytes;
  std::vector<char> buf(std::size_t(1) << 20);
  for (int64_t at = begin; at < end;) {
    std::size_t n = static_cast<std::size_t>(
        std::min<int64_t>(static_cast<int64_t>(buf.size()), end - at));
    readAt(fd_, path, buf.data(), n, at);
    for (std::size_t k = 0; k < n; k += static_cast<std::size_t>(tokenBytes)) {
      int64_t id = tokenAt(buf.data() + k, tokenBytes);
      check(id < vocab, "token file '", path, "': token ",
            (at + static_cast<int64_t>(k)) / tokenBytes, " is ", id,
            ", not below the program's vocabulary of ", vocab,
            " (the rows of the table the ids index)");
    }
    at += static_cast<int64_t>(n);
  }
}

TokenFile::~TokenFile() {
  if (fd_ >= 0)
    ::close(fd_);
}

int64_t TokenFile::windowStart(uint64_t seed, int64_t batch,
                               int64_t row) const {
  return randomInt(seed, tensorId("weft.tokens#" + std::to_string(batch)),
                   static_cast<uint64_t>(row), count_ - seq_);
}

void TokenFile::fillBlock(uint64_t seed, int64_t batch, int shift,
                          const Shape &global,
                          const std::vector<int64_t> &offsets,
                          const Shape &block, int32_t *out) const {
  check(global.size() == 2 && block.size() == 2 && offsets.size() == 2,
        "token windows feed [batch, sequence] inputs");
  int64_t rows = block[0], cols = block[1];
  std::fill(out, out + rows * cols, 0);
  std::vector<char> buf(static_cast<std::size_t>(cols * tokenBytes_));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t row = offsets[0] + r;
    if (row >= global[0])
      break;
    int64_t c0 = offsets[1];
    int64_t n = std::min(cols, global[1] - c0);
    if (n <= 0)
      continue;
    int64_t first = windowStart(seed, batch, row) + shift + c0;
    readAt(fd_, path_, buf.data(), static_cast<std::size_t>(n * tokenBytes_),
           first * tokenBytes_);
    for (int64_t c = 0; c < n; ++c)
      out[r * cols + c] = static_cast<int32_t>(
          tokenAt(buf.data() + c * tokenBytes_, tokenBytes_));
  }
}

} // namespace weft::rt

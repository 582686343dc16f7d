//===- Error.h - Runtime error type -----------------------------*- C++ -*-===//
//
// Every runtime failure (bad spec, bad shape, bad file, failed MPI/CUDA call)
// is reported as a weft::rt::Error carrying a readable message.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_ERROR_H
#define WEFT_RT_ERROR_H

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace weft::rt {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &msg) : std::runtime_error(msg) {}
};

namespace detail {
inline void appendAll(std::ostringstream &) {}
template <typename T, typename... Rest>
void appendAll(std::ostringstream &os, T &&first, Rest &&...rest) {
  os << std::forward<T>(first);
  appendAll(os, std::forward<Rest>(rest)...);
}
} // namespace detail

/// Builds a message from streamable pieces and throws it as an Error.
template <typename... Args> [[noreturn]] void fail(Args &&...args) {
  std::ostringstream os;
  detail::appendAll(os, std::forward<Args>(args)...);
  throw Error(os.str());
}

/// Throws an Error built from `args` when `cond` is false.
template <typename... Args> void check(bool cond, Args &&...args) {
  if (!cond)
    fail(std::forward<Args>(args)...);
}

/// For a system call that returns 0 on success (fsync, rename, close):
/// fails with `args` followed by errno's message. errno is read here, after
/// the call (an argument list's evaluation order is unspecified, so
/// `check(::f() == 0, ..., std::strerror(errno))` may read it before).
template <typename... Args> void checkSys(int rc, Args &&...args) {
  if (rc == 0)
    return;
  int err = errno;
  fail(std::forward<Args>(args)..., std::strerror(err));
}

} // namespace weft::rt

#endif // WEFT_RT_ERROR_H

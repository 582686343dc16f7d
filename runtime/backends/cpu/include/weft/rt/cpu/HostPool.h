//===- HostPool.h - Caching allocator for host buffers ----------*- C++ -*-===//
//
// The CPU backend's buffers come from here. A step allocates the same sizes
// every iteration, so released buffers are kept on per-size-class free lists
// and handed out again: steady-state steps neither call malloc/free for
// tensor data nor fault pages in (glibc would otherwise trim the heap or
// munmap large blocks after each step). Buffers are 64-byte aligned and
// uninitialized. Cached memory is returned to the system when the owning
// backend closes the pool (its destructor), on `trim()`, and before
// reporting an allocation failure.
//
// Size classes: multiples of 64 bytes up to 1 KiB, then 4 classes per power
// of two (at most 25% rounding waste, typically 12%), so buffers of nearby
// sizes share a class.
//
// Not thread safe: the runtime is single-threaded per process (OpenBLAS
// threads never allocate tensors), like the Backend that owns the pool.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_HOSTPOOL_H
#define WEFT_RT_CPU_HOSTPOOL_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace weft::rt {

class HostPool : public std::enable_shared_from_this<HostPool> {
public:
  struct Stats {
    int64_t systemAllocs = 0;    // buffers obtained from the system
    int64_t reuses = 0;          // allocations served from a free list
    std::size_t cachedBytes = 0; // bytes on the free lists now
    std::size_t liveBytes = 0;   // bytes handed out and not yet released
  };

  HostPool() = default;
  ~HostPool();
  HostPool(const HostPool &) = delete;
  HostPool &operator=(const HostPool &) = delete;

  /// A 64-byte aligned buffer of at least `bytes` (at least 64) bytes, owned
  /// by the returned pointer: dropping the last reference returns it to the
  /// pool (or to the system once the pool is closed). The pool must be held
  /// by a shared_ptr.
  std::shared_ptr<void> allocate(std::size_t bytes);

  /// Frees every cached buffer.
  void trim();
  /// trim(), and from now on released buffers go back to the system.
  void close();

  Stats stats() const { return stats_; }

  /// The class (allocation size) serving a request of `bytes`.
  static std::size_t classSize(std::size_t bytes);

private:
  void release(void *p, std::size_t size);

  std::unordered_map<std::size_t, std::vector<void *>> free_;
  Stats stats_;
  bool closed_ = false;
};

} // namespace weft::rt

#endif // WEFT_RT_CPU_HOSTPOOL_H

//===- BufferPool.h - Caching allocator for backend buffers -----*- C++ -*-===//
//
// Every backend's tensor buffers come from here: the CPU backend's from the
// host (aligned_alloc), the CUDA backend's from the device (cudaMalloc),
// through the Source a backend gives the pool. A step allocates the same sizes
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
// Device buffers: a buffer released while queued work still uses it is
// handed out again only to work queued after it on the same stream (the
// CUDA backend queues all compute on one stream, and the Communicator
// orders its stream into it before a wait returns), so reuse is ordered.
// cudaFree is called only on trim/close, not per op: it synchronizes the
// device.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_BUFFERPOOL_H
#define WEFT_RT_BUFFERPOOL_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace weft::rt {

class BufferPool : public std::enable_shared_from_this<BufferPool> {
public:
  /// Where buffers come from: `allocate` returns null on failure.
  struct Source {
    const char *memory; // "host", "device": for messages
    void *(*allocate)(std::size_t bytes);
    void (*release)(void *p);
  };
  /// 64-byte aligned host memory (aligned_alloc / free).
  static Source hostSource();

  struct Stats {
    int64_t systemAllocs = 0;      // buffers obtained from the system
    int64_t reuses = 0;            // allocations served from a free list
    std::size_t cachedBytes = 0;   // bytes on the free lists now
    std::size_t liveBytes = 0;     // bytes handed out and not yet released
    std::size_t peakLiveBytes = 0; // the high-water mark of liveBytes
    /// The same in the bytes asked for (before rounding to a size class):
    /// what the compiler's memory estimate counts.
    std::size_t liveRequestedBytes = 0;
    std::size_t peakRequestedBytes = 0;
  };

  explicit BufferPool(Source source = hostSource()) : source_(source) {}
  ~BufferPool();
  BufferPool(const BufferPool &) = delete;
  BufferPool &operator=(const BufferPool &) = delete;

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
  /// Restarts the high-water marks from what is live now (a training run
  /// measures its steps, not the loading of its inputs).
  void resetPeak() {
    stats_.peakLiveBytes = stats_.liveBytes;
    stats_.peakRequestedBytes = stats_.liveRequestedBytes;
  }

  /// The class (allocation size) serving a request of `bytes`.
  static std::size_t classSize(std::size_t bytes);

private:
  void release(void *p, std::size_t size, std::size_t requested);

  Source source_;
  std::unordered_map<std::size_t, std::vector<void *>> free_;
  Stats stats_;
  bool closed_ = false;
};

} // namespace weft::rt

#endif // WEFT_RT_BUFFERPOOL_H

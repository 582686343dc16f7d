//===- BufferPool.cpp - Caching allocator for backend buffers
//--------------===//

#include "weft/rt/BufferPool.h"
#include "weft/rt/Error.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

namespace weft::rt {

BufferPool::Source BufferPool::hostSource() {
  return {"host",
          [](std::size_t bytes) { return std::aligned_alloc(64, bytes); },
          [](void *p) { std::free(p); }};
}

std::size_t BufferPool::classSize(std::size_t bytes) {
  if (bytes <= 1024)
    return bytes <= 64 ? 64 : (bytes + 63) / 64 * 64;
  // 2^p < bytes <= 2^(p+1), p >= 10: round up to a multiple of 2^(p-2).
  int p = std::bit_width(bytes - 1) - 1;
  std::size_t step = std::size_t(1) << (p - 2);
  return (bytes + step - 1) / step * step;
}

BufferPool::~BufferPool() { trim(); }

std::shared_ptr<void> BufferPool::allocate(std::size_t bytes) {
  std::size_t size = classSize(bytes);
  void *p = nullptr;
  auto it = free_.find(size);
  if (it != free_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    stats_.cachedBytes -= size;
    ++stats_.reuses;
  } else {
    p = source_.allocate(size);
    if (p == nullptr && stats_.cachedBytes > 0) {
      trim(); // give the cache back and try once more
      p = source_.allocate(size);
    }
    check(p != nullptr, "out of ", source_.memory, " memory allocating ", bytes,
          " bytes");
    ++stats_.systemAllocs;
  }
  stats_.liveBytes += size;
  stats_.peakLiveBytes = std::max(stats_.peakLiveBytes, stats_.liveBytes);
  stats_.liveRequestedBytes += bytes;
  stats_.peakRequestedBytes =
      std::max(stats_.peakRequestedBytes, stats_.liveRequestedBytes);
  return std::shared_ptr<void>(
      p, [pool = shared_from_this(), size, bytes](void *q) {
        pool->release(q, size, bytes);
      });
}

void BufferPool::release(void *p, std::size_t size, std::size_t requested) {
  stats_.liveBytes -= size;
  stats_.liveRequestedBytes -= requested;
  if (closed_) {
    source_.release(p);
    return;
  }
  free_[size].push_back(p);
  stats_.cachedBytes += size;
}

void BufferPool::trim() {
  for (auto &[size, list] : free_)
    for (void *p : list)
      source_.release(p);
  free_.clear();
  stats_.cachedBytes = 0;
}

void BufferPool::close() {
  trim();
  closed_ = true;
}

} // namespace weft::rt

//===- HostPool.cpp - Caching allocator for host buffers ------------------===//

#include "weft/rt/cpu/HostPool.h"
#include "weft/rt/Error.h"

#include <bit>
#include <cstdlib>

namespace weft::rt {

std::size_t HostPool::classSize(std::size_t bytes) {
  if (bytes <= 1024)
    return bytes <= 64 ? 64 : (bytes + 63) / 64 * 64;
  // 2^p < bytes <= 2^(p+1), p >= 10: round up to a multiple of 2^(p-2).
  int p = std::bit_width(bytes - 1) - 1;
  std::size_t step = std::size_t(1) << (p - 2);
  return (bytes + step - 1) / step * step;
}

HostPool::~HostPool() { trim(); }

std::shared_ptr<void> HostPool::allocate(std::size_t bytes) {
  std::size_t size = classSize(bytes);
  void *p = nullptr;
  auto it = free_.find(size);
  if (it != free_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    stats_.cachedBytes -= size;
    ++stats_.reuses;
  } else {
    p = std::aligned_alloc(64, size);
    if (p == nullptr && stats_.cachedBytes > 0) {
      trim(); // give the cache back and try once more
      p = std::aligned_alloc(64, size);
    }
    check(p != nullptr, "out of host memory allocating ", bytes, " bytes");
    ++stats_.systemAllocs;
  }
  stats_.liveBytes += size;
  return std::shared_ptr<void>(p, [pool = shared_from_this(), size](void *q) {
    pool->release(q, size);
  });
}

void HostPool::release(void *p, std::size_t size) {
  stats_.liveBytes -= size;
  if (closed_) {
    std::free(p);
    return;
  }
  free_[size].push_back(p);
  stats_.cachedBytes += size;
}

void HostPool::trim() {
  for (auto &[size, list] : free_)
    for (void *p : list)
      std::free(p);
  free_.clear();
  stats_.cachedBytes = 0;
}

void HostPool::close() {
  trim();
  closed_ = true;
}

} // namespace weft::rt

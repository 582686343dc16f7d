//===- CpuHalf.h - f16/bf16 buffers widened to f32 on the CPU ---*- C++ -*-===//
//
// The CPU backend stores f16 and bf16 tensors in 2 bytes an element and
// computes on them in f32: a kernel of a half dtype widens its operands to
// f32 scratch buffers (exact), runs the f32 kernel, and rounds the f32
// result once to the storage type (nearest, ties to even) on store. So an
// element's math is the f32 kernel's, bit for bit, and the only rounding
// to the half type is where the program stores one (docs/precision.md).
// Private to the CPU backend.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_CPUHALF_H
#define WEFT_RT_CPU_CPUHALF_H

#include "weft/rt/DType.h"
#include "weft/rt/ElementOps.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace weft::rt::cpu {

inline bool isHalf(DType t) { return t == DType::F16 || t == DType::BF16; }

/// n elements of half dtype `t` at `src`, exactly, as f32 into `dst`.
inline void widenToF32(DType t, const void *src, float *dst, int64_t n) {
  const auto *h = static_cast<const uint16_t *>(src);
  if (t == DType::BF16) {
    for (int64_t i = 0; i < n; ++i) {
      uint32_t u = static_cast<uint32_t>(h[i]) << 16;
      std::memcpy(&dst[i], &u, sizeof u);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    dst[i] = halfToFloat(h[i]);
}

/// n f32 values rounded to half dtype `t` (nearest, ties to even).
inline void narrowFromF32(DType t, const float *src, void *dst, int64_t n) {
  auto *h = static_cast<uint16_t *>(dst);
  if (t == DType::BF16) {
    for (int64_t i = 0; i < n; ++i)
      h[i] = ops::convertValue<ops::F32Format, ops::BF16Format>(src[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    h[i] = floatToHalf(src[i]);
}

/// n f32 values rounded in place to the values of half dtype T (each
/// exactly representable afterwards): a fused op's steps, each of which
/// the unfused program would store in T.
template <DType T> void quantizeF32(float *x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    narrowFromF32(T, &x[i], &h, 1);
    widenToF32(T, &h, &x[i], 1);
  }
}

/// quantizeF32 for dtype `t` (f16 or bf16).
inline void (*quantizerFor(DType t))(float *, int64_t) {
  return t == DType::BF16 ? &quantizeF32<DType::BF16>
                          : &quantizeF32<DType::F16>;
}

/// An f32 copy of a half buffer (empty when `src` is null).
inline std::vector<float> widened(DType t, const void *src, int64_t n) {
  std::vector<float> v;
  if (!src)
    return v;
  v.resize(static_cast<std::size_t>(n));
  widenToF32(t, src, v.data(), n);
  return v;
}

} // namespace weft::rt::cpu

#endif // WEFT_RT_CPU_CPUHALF_H

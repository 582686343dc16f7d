//===- Philox.h - Counter-based random numbers for host and device -*- C++
//-*-===//
//
// weft.random's arithmetic, the single definition the CPU loops, the CUDA
// kernels and the interpreter all use: Philox4x32-10 (Salmon, Moraes, Dror,
// Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC'11; the Random123
// reference) and the maps from its four output words to a uniform or a
// normal value. A value depends on the seed and the element's global index
// only, so every rank of every mesh draws the same number for an element.
// runtime/tests/ElementTests.cpp checks the Random123 known-answer vectors;
// test/numpy/weft_numpy.py is an independent numpy implementation.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_PHILOX_H
#define WEFT_RT_PHILOX_H

#include "weft/rt/ElementOps.h"

#include <cstdint>

namespace weft::rt::ops {

struct Philox4 {
  uint32_t w[4];
};

/// Philox4x32 with 10 rounds: counter `c`, key (k0, k1).
WEFT_HD inline Philox4 philox4x32_10(Philox4 c, uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint64_t p0 = uint64_t(0xD2511F53u) * c.w[0];
    uint64_t p1 = uint64_t(0xCD9E8D57u) * c.w[2];
    Philox4 n = {{uint32_t(p1 >> 32) ^ c.w[1] ^ k0, uint32_t(p1),
                  uint32_t(p0 >> 32) ^ c.w[3] ^ k1, uint32_t(p0)}};
    c = n;
  }
  return c;
}

/// The key of weft.random's optional `offset` operand (a training step):
/// `seed + offset * 2^32` (mod 2^64), its value added to the key's high
/// word. `offset` must be an integer in [0, 2^32): checked by
/// randomOffsetValid before the call.
WEFT_HD inline uint64_t randomSeedWithOffset(uint64_t seed, uint32_t offset) {
  return seed + (uint64_t(offset) << 32);
}

/// Whether `t`, an offset operand's value, is an integer in [0, 2^32).
inline bool randomOffsetValid(double t) {
  return t >= 0 && t < 4294967296.0 &&
         t == static_cast<double>(static_cast<uint64_t>(t));
}

/// The words for the element at global indices `idx[0..3]` (unused
/// dimensions 0) under `seed`.
WEFT_HD inline Philox4 randomWords(uint64_t seed, const int64_t *idx) {
  Philox4 c = {
      {uint32_t(idx[0]), uint32_t(idx[1]), uint32_t(idx[2]), uint32_t(idx[3])}};
  return philox4x32_10(c, uint32_t(seed), uint32_t(seed >> 32));
}

/// Uniform in [0, 1): 24 bits for float, 53 for double.
WEFT_HD inline float uniformFloat(uint32_t w) {
  return float(w >> 8) * (1.0f / 16777216.0f);
}
WEFT_HD inline double uniformDouble(uint32_t hi, uint32_t lo) {
  uint64_t bits = ((uint64_t(hi) << 32) | lo) >> 11;
  return double(bits) * (1.0 / 9007199254740992.0);
}

/// weft.random's value in the compute type T (float or double); `normal`
/// selects Box-Muller over uniform.
template <typename T>
WEFT_HD inline T randomValue(bool normal, uint64_t seed, const int64_t *idx) {
  Philox4 r = randomWords(seed, idx);
  if (sizeof(T) == sizeof(float)) {
    if (!normal)
      return T(uniformFloat(r.w[0]));
    float u1 = 1.0f - uniformFloat(r.w[0]); // (0, 1]
    float u2 = uniformFloat(r.w[1]);
    return T(fsqrt(-2.0f * flog(u1)) * cosf(6.2831853071795864769f * u2));
  }
  if (!normal)
    return T(uniformDouble(r.w[0], r.w[1]));
  double u1 = 1.0 - uniformDouble(r.w[0], r.w[1]);
  double u2 = uniformDouble(r.w[2], r.w[3]);
  return T(fsqrt(-2.0 * flog(u1)) * cos(6.283185307179586476925 * u2));
}

} // namespace weft::rt::ops

#endif // WEFT_RT_PHILOX_H

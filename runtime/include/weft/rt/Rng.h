//===- Rng.h - Counter-based random inputs ----------------------*- C++ -*-===//
//
// value = f(seed, tensor id, global element index), so a rank filling only
// its block sees exactly the values an unsharded run has at those indices.
// Bits come from splitmix64 applied to a mix of the three keys.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_RNG_H
#define WEFT_RT_RNG_H

#include "weft/rt/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace weft::rt {

/// splitmix64 finalizer.
uint64_t mix64(uint64_t x);
/// FNV-1a 64-bit hash of a tensor name, used as its id.
uint64_t tensorId(const std::string &name);
/// 64 random bits at a global element index.
uint64_t randomBits(uint64_t seed, uint64_t id, uint64_t index);
/// Uniform in [-1, 1), 53 random bits.
double randomUniform(uint64_t seed, uint64_t id, uint64_t index);
/// Uniform in [0, bound) (bound >= 1).
int64_t randomInt(uint64_t seed, uint64_t id, uint64_t index, int64_t bound);

/// Fills the block at `offsets`/`block` of a global tensor of shape `global`
/// with dtype values: floats uniform in [-1, 1) (rounded from the double),
/// i32 uniform in [0, intBound). `out` is dense in `block`.
void fillRandomBlock(uint64_t seed, uint64_t id, DType dtype,
                     const Shape &global, const std::vector<int64_t> &offsets,
                     const Shape &block, void *out, int64_t intBound = 1);

/// fillRandomBlock for a block of a padded tensor (uneven shards): `logical`
/// is the unpadded global shape and the block at `offsets` with extent
/// `block` (of the padded tensor) may reach past it. Elements inside
/// `logical` get the values fillRandomBlock gives the tensor of shape
/// `logical` (so a padded run draws what the unpadded one does); the rest
/// are 0. Without padding it fills what fillRandomBlock fills.
void fillRandomBlockClipped(uint64_t seed, uint64_t id, DType dtype,
                            const Shape &logical,
                            const std::vector<int64_t> &offsets,
                            const Shape &block, void *out,
                            int64_t intBound = 1);

} // namespace weft::rt

#endif // WEFT_RT_RNG_H

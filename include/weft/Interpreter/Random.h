//===- Random.h - counter-based random inputs -------------------*- C++ -*-===//
//
// value = f(seed, argument index, global element index), so a value does not
// depend on how a tensor is split. The bit mixing (splitmix64 of the keys)
// is the runtime's (runtime/include/weft/rt/Rng.h), keyed here by the
// argument index.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_RANDOM_H
#define WEFT_INTERPRETER_RANDOM_H

#include "weft/Interpreter/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::weft::interp {

/// 64 random bits at a global element index.
uint64_t randomBits(uint64_t seed, uint64_t id, uint64_t index);
/// Uniform in [-1, 1) (53 random bits).
double randomUniform(uint64_t seed, uint64_t id, uint64_t index);
/// Uniform in [0, bound), bound >= 1.
int64_t randomInt(uint64_t seed, uint64_t id, uint64_t index, int64_t bound);

/// `x` rounded to the nearest value of float type `type` (f16, bf16, f32;
/// f64 and non-float types unchanged).
double roundToType(double x, Type type);

/// A random global tensor of `type` for argument `argIndex`: floats uniform
/// in [-1, 1), rounded to the element type; i32 uniform in [0, idBound)
/// (getIdBound in weft/Dialect/Weft/IR/IdBound.h).
Tensor randomTensor(RankedTensorType type, uint64_t seed, uint64_t argIndex,
                    int64_t idBound);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_RANDOM_H

//===- Random.cpp - counter-based random inputs ---------------------------===//

#include "weft/Interpreter/Random.h"

#include "llvm/ADT/APFloat.h"

#include <cassert>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

/// splitmix64 finalizer.
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t mlir::weft::interp::randomBits(uint64_t seed, uint64_t id,
                                        uint64_t index) {
  uint64_t key = mix64(seed ^ mix64(id));
  return mix64(key + index * 0xd1b54a32d192ed03ull);
}

double mlir::weft::interp::randomUniform(uint64_t seed, uint64_t id,
                                         uint64_t index) {
  uint64_t bits = randomBits(seed, id, index) >> 11; // 53 bits
  return static_cast<double>(bits) * 0x1.0p-52 - 1.0;
}

int64_t mlir::weft::interp::randomInt(uint64_t seed, uint64_t id,
                                      uint64_t index, int64_t bound) {
  assert(bound >= 1);
  unsigned __int128 prod =
      static_cast<unsigned __int128>(randomBits(seed, id, index)) *
      static_cast<uint64_t>(bound);
  return static_cast<int64_t>(prod >> 64);
}

double mlir::weft::interp::roundToType(double x, Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType || floatType.isF64())
    return x;
  llvm::APFloat value(x);
  bool losesInfo = false;
  value.convert(floatType.getFloatSemantics(),
                llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

Tensor mlir::weft::interp::randomTensor(RankedTensorType type, uint64_t seed,
                                        uint64_t argIndex, int64_t idBound) {
  Tensor t(type.getShape());
  Type element = type.getElementType();
  bool isInt = element.isInteger();
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    t[i] = isInt ? static_cast<double>(randomInt(seed, argIndex, i, idBound))
                 : roundToType(randomUniform(seed, argIndex, i), element);
  return t;
}

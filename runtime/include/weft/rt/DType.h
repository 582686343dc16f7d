//===- DType.h - Element types of runtime tensors ---------------*- C++ -*-===//

#ifndef WEFT_RT_DTYPE_H
#define WEFT_RT_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::rt {

enum class DType : int { F32 = 0, F64 = 1, I32 = 2, F16 = 3, BF16 = 4 };

/// Size of one element in bytes.
std::size_t dtypeSize(DType t);
/// Short name: "f32", "f64", "i32", "f16", "bf16".
const char *dtypeName(DType t);
/// Parses a short name; throws Error on an unknown name.
DType parseDType(const std::string &name);
bool isFloat(DType t);

/// IEEE binary16 and bfloat16 conversions (round to nearest even), host side.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBFloat16(float f);
float bfloat16ToFloat(uint16_t h);

using Shape = std::vector<int64_t>;

/// Product of the extents (1 for a scalar).
int64_t numElements(const Shape &shape);
/// Row-major strides in elements.
std::vector<int64_t> rowMajorStrides(const Shape &shape);
/// "[2, 3, 4]".
std::string shapeToString(const Shape &shape);

} // namespace weft::rt

#endif // WEFT_RT_DTYPE_H

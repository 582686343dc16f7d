//===- Limits.h - Bounds on meshes and tensors, checked products -*- C++
//-*-===//
//
// Every count the compiler multiplies is bounded here and verified before
// a pass runs, so no product of sizes can wrap: a mesh has at most
// kMaxDevices devices, a tensor at most kMaxElements elements, so element
// counts times element bytes stay far inside int64_t and exact in double.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_LIMITS_H
#define WEFT_DIALECT_WEFT_IR_LIMITS_H

#include "weft/rt/Kinds.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>

namespace mlir::weft {

/// Devices of one mesh (2^20: more than any machine we target).
inline constexpr int64_t kMaxDevices = int64_t(1) << 20;
/// Elements of one tensor (2^48: 1 PiB of f32).
inline constexpr int64_t kMaxElements = int64_t(1) << 48;

/// The product of `sizes`, or std::nullopt when it exceeds `limit` (or a size
/// is negative). Never overflows.
std::optional<int64_t> boundedProduct(llvm::ArrayRef<int64_t> sizes,
                                      int64_t limit);

/// Ring bytes each device sends for one collective over a group of `p`
/// devices, from the per-device input and output bytes: the runtime's
/// formula (weft::rt::ringBytes in runtime/lib/CollectivePlan.cpp), the one
/// definition the partitioner, the cost model, the comm report and the
/// runtime's profiler share.
double ringBytesPerDevice(::weft::rt::CollectiveKind kind, int64_t p,
                          double inBytes, double outBytes);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_LIMITS_H

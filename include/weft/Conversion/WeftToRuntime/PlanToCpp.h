//===- PlanToCpp.h - Runtime plans as C++ initializers ----------*- C++ -*-===//
//
// Prints the plans the runtime's planner computes at compile time as C++
// aggregate initializers (designated, in member order), so the generated
// program holds them as constants.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_CONVERSION_WEFTTORUNTIME_PLANTOCPP_H
#define WEFT_CONVERSION_WEFTTORUNTIME_PLANTOCPP_H

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Mesh.h"

#include <string>

namespace mlir::weft {

std::string toCpp(const ::weft::rt::EinsumPlan &plan);
std::string toCpp(const ::weft::rt::MapPlan &plan);
std::string toCpp(const ::weft::rt::FusedMapPlan &plan);
std::string toCpp(const ::weft::rt::FusedRowsPlan &plan);
std::string toCpp(const ::weft::rt::ReducePlan &plan);
std::string toCpp(const ::weft::rt::EmbedPlan &plan);
std::string toCpp(const ::weft::rt::OneHotPlan &plan);
/// `{4, 64, 256}` (also for strides and axis lists).
std::string toCpp(const std::vector<int64_t> &values);
std::string toCpp(const std::vector<int> &values);
/// A C++ string literal with escapes.
std::string cppString(const std::string &s);
/// `weft::rt::DType::F32`.
std::string toCpp(::weft::rt::DType dtype);

} // namespace mlir::weft

#endif // WEFT_CONVERSION_WEFTTORUNTIME_PLANTOCPP_H

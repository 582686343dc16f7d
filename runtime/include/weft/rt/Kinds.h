//===-  Kinds.h - Op kinds shared by planner, backends and com --*- C++ -*-===//

#ifndef WEFT_RT_KINDS_H
#define WEFT_RT_KINDS_H

#include <string>

namespace weft::rt {

/// Elementwise map kinds. Binary kinds take two operands, the rest one.
enum class MapKind : int {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  // Comparisons: 1 where it holds, else 0, in the operands' float type.
  Gt,
  Ge,
  Lt,
  Le,
  Eq,
  Ne,
  Neg,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Square,
  Tanh,
  Relu,
  Gelu,
  Silu,
  Abs,
  Sign,
  Step,
  Sigmoid,
  Sin,
  Cos,
  Scale,
  Shift,
};

/// Reductions of reduce ops, partial states and collectives.
enum class ReduceKind : int { Sum, Max, Min };

/// Distributions of weft.random (Philox.h).
enum class RandomKind : int { Uniform, Normal };

/// Collectives of the local view (design.md section 7).
enum class CollectiveKind : int {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  // The root collectives (issue 33).
  Broadcast,
  ReduceTo,
  GatherTo,
  ScatterFrom,
  // Point to point (issue 33).
  Permute
};

bool isBinary(MapKind k);
const char *mapKindName(MapKind k);
/// Parses "add", "relu", ...; throws Error on an unknown name.
MapKind parseMapKind(const std::string &name);
const char *reduceKindName(ReduceKind k);
ReduceKind parseReduceKind(const std::string &name);
const char *collectiveKindName(CollectiveKind k);

} // namespace weft::rt

#endif // WEFT_RT_KINDS_H

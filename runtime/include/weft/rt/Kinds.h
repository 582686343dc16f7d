//===-  Kinds.h - Op kinds shared by planner, backends and com --*- C++ -*-===//

#ifndef WEFT_RT_KINDS_H
#define WEFT_RT_KINDS_H

#include <string>

namespace weft::rt {

/// Elementwise map kinds, in the order of MapKinds.def (the one table the
/// compiler shares: its MapKind is this enum).
enum class MapKind : int {
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr) Enum,
#include "weft/rt/MapKinds.def"
};
constexpr int kNumMapKinds = 0
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr) +1
#include "weft/rt/MapKinds.def"
    ;

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

/// MapKinds.def's columns the runtime reads (the `zero` and `partial`
/// columns are the compiler's: mlir::weft::MapKindInfo).
bool isBinary(MapKind k);
int mapKindArity(MapKind k);
bool mapKindTakesScalar(MapKind k);
/// "add", "relu", ...
const char *mapKindName(MapKind k);
/// The C++ enumerator: "Add", "Relu", ... (what generated code spells
/// after weft::rt::MapKind::).
const char *mapKindEnumName(MapKind k);
/// Parses "add", "relu", ...; throws Error on an unknown name.
MapKind parseMapKind(const std::string &name);
const char *reduceKindName(ReduceKind k);
ReduceKind parseReduceKind(const std::string &name);
const char *collectiveKindName(CollectiveKind k);

} // namespace weft::rt

#endif // WEFT_RT_KINDS_H

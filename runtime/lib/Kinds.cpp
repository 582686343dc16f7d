//===- Kinds.cpp - Op kind names ------------------------------------------===//

#include "weft/rt/Kinds.h"
#include "weft/rt/Error.h"

namespace weft::rt {

// In the order of the enum (Kinds.h): the binary kinds first.
static const char *const kMapNames[] = {
    "add",  "sub",    "mul",   "div",  "max",    "min",  "gt",     "ge",
    "lt",   "le",     "eq",    "ne",   "neg",    "exp",  "log",    "sqrt",
    "rsqrt", "square", "tanh", "relu", "gelu",   "silu", "abs",    "sign",
    "step", "sigmoid", "sin", "cos", "scale", "shift"};
static_assert(sizeof(kMapNames) / sizeof(kMapNames[0]) ==
                  static_cast<int>(MapKind::Shift) + 1,
              "one name per map kind");

bool isBinary(MapKind k) {
  return static_cast<int>(k) <= static_cast<int>(MapKind::Ne);
}

const char *mapKindName(MapKind k) { return kMapNames[static_cast<int>(k)]; }

MapKind parseMapKind(const std::string &name) {
  for (int i = 0; i <= static_cast<int>(MapKind::Shift); ++i)
    if (name == kMapNames[i])
      return static_cast<MapKind>(i);
  fail("unknown map kind '", name, "'");
}

const char *reduceKindName(ReduceKind k) {
  switch (k) {
  case ReduceKind::Sum:
    return "sum";
  case ReduceKind::Max:
    return "max";
  case ReduceKind::Min:
    return "min";
  }
  return "invalid";
}

ReduceKind parseReduceKind(const std::string &name) {
  for (ReduceKind k : {ReduceKind::Sum, ReduceKind::Max, ReduceKind::Min})
    if (name == reduceKindName(k))
      return k;
  fail("unknown reduce kind '", name, "' (expected sum, max or min)");
}

const char *collectiveKindName(CollectiveKind k) {
  switch (k) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::Broadcast:
    return "broadcast";
  case CollectiveKind::ReduceTo:
    return "reduce_to";
  case CollectiveKind::GatherTo:
    return "gather_to";
  case CollectiveKind::ScatterFrom:
    return "scatter_from";
  case CollectiveKind::Permute:
    return "collective_permute";
  }
  return "invalid";
}

} // namespace weft::rt

//===- Kinds.cpp - Op kind names ------------------------------------------===//

#include "weft/rt/Kinds.h"
#include "weft/rt/Error.h"

namespace weft::rt {

namespace {
struct MapKindInfo {
  const char *name, *enumName;
  int arity;
  bool scalar;
};
// One row per MapKinds.def entry, in the enum's order.
constexpr MapKindInfo kMapKinds[] = {
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr)          \
  {name, #Enum, arity, scalar},
#include "weft/rt/MapKinds.def"
};
static_assert(sizeof(kMapKinds) / sizeof(kMapKinds[0]) == kNumMapKinds,
              "one row per map kind");
const MapKindInfo &info(MapKind k) { return kMapKinds[static_cast<int>(k)]; }
} // namespace

bool isBinary(MapKind k) { return info(k).arity == 2; }
int mapKindArity(MapKind k) { return info(k).arity; }
bool mapKindTakesScalar(MapKind k) { return info(k).scalar; }
const char *mapKindName(MapKind k) { return info(k).name; }
const char *mapKindEnumName(MapKind k) { return info(k).enumName; }

MapKind parseMapKind(const std::string &name) {
  for (int i = 0; i < kNumMapKinds; ++i)
    if (name == kMapKinds[i].name)
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

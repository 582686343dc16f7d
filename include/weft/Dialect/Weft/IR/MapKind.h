//===- MapKind.h - weft.map's kinds, from the runtime's table ---*- C++ -*-===//
//
// The kinds of weft.map are the rows of runtime/include/weft/rt/MapKinds.def,
// the one table the compiler and the runtime share: this enum and the
// runtime's weft::rt::MapKind are both generated from it, in its order, so
// their values are equal by construction (the lowering casts one to the
// other). The compiler's own enum keeps the runtime's global `weft`
// namespace out of every file that includes the dialect. weft.map stores
// the enum's value in an i32 attribute and prints its name
// (custom<MapKindName> in WeftOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_MAPKIND_H
#define WEFT_DIALECT_WEFT_IR_MAPKIND_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::weft {

enum class MapKind : int {
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr) Enum,
#include "weft/rt/MapKinds.def"
};
constexpr int kNumMapKinds = 0
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr) +1
#include "weft/rt/MapKinds.def"
    ;

/// MapKinds.def's `zero` column: whether f(0) = 0 (and f(0, 0) = 0).
enum class MapZero : int { Yes, No, FiniteScalar };
/// MapKinds.def's `partial` column: which partial operand passes through
/// (the .def's header says what each means).
enum class MapPartial : int {
  None,
  Linear,
  Dividend,
  Increasing,
  IncreasingMin,
  LinearOrPositive
};

/// One row of MapKinds.def.
struct MapKindInfo {
  const char *name;     ///< the IR keyword: "add", "silu", ...
  const char *enumName; ///< the C++ enumerator: "Add", "Silu", ...
  int arity;            ///< tensor operands, 1 or 2
  bool scalar;          ///< reads the `scalar` attribute
  MapZero zero;
  MapPartial partial;
};
const MapKindInfo &getMapKindInfo(MapKind kind);

/// The kind's IR name ("add", "silu", ...).
inline llvm::StringRef stringifyMapKind(MapKind kind) {
  return getMapKindInfo(kind).name;
}
/// The kind of an IR name, or std::nullopt.
std::optional<MapKind> symbolizeMapKind(llvm::StringRef name);
/// Whether `value` is a MapKind's value (the attribute's constraint).
inline bool isMapKind(int64_t value) {
  return value >= 0 && value < kNumMapKinds;
}

/// custom<MapKindName>($kind): the kind as its name.
ParseResult parseMapKindName(OpAsmParser &parser, IntegerAttr &kind);
void printMapKindName(OpAsmPrinter &printer, Operation *op, IntegerAttr kind);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_MAPKIND_H

//===- WeftEnums.td - weft enumerations --------------------*- tablegen -*-===//
//
// Reduction kinds (partial states, reductions, collectives) and the
// elementwise kinds of weft.map.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTENUMS_TD
#define WEFT_DIALECT_WEFT_IR_WEFTENUMS_TD

include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonAttrConstraints.td"

def Weft_ReductionKind : I32EnumAttr<"ReductionKind",
    "how partial values combine: sum, max or min", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Max", 1, "max">,
  I32EnumAttrCase<"Min", 2, "min">
]> {
  let cppNamespace = "::mlir::weft";
}

// weft.map's kind: the runtime's MapKind, whose one table
// (runtime/include/weft/rt/MapKinds.def) the compiler and the runtime share
// (MapKind.h). Stored as the enum's value in an i32 attribute, written as
// its name (custom<MapKindName>).
def Weft_MapKind : SignlessIntegerAttrBase<I32, "a weft.map kind"> {
  let predicate = CPred<"::llvm::isa<::mlir::IntegerAttr>($_self) && "
      "::llvm::cast<::mlir::IntegerAttr>($_self).getType()"
      ".isSignlessInteger(32) && ::mlir::weft::isMapKind("
      "::llvm::cast<::mlir::IntegerAttr>($_self).getInt())">;
  let returnType = "::mlir::weft::MapKind";
  let convertFromStorage =
      "static_cast<::mlir::weft::MapKind>($_self.getInt())";
  let constBuilderCall = "::mlir::IntegerAttr::get(::mlir::IntegerType::get("
      "$_builder.getContext(), 32), static_cast<int64_t>($0))";
}

def Weft_RandomKind : I32EnumAttr<"RandomKind",
    "distribution of weft.random", [
  I32EnumAttrCase<"Uniform", 0, "uniform">,
  I32EnumAttrCase<"Normal", 1, "normal">
]> {
  let cppNamespace = "::mlir::weft";
}

#endif // WEFT_DIALECT_WEFT_IR_WEFTENUMS_TD

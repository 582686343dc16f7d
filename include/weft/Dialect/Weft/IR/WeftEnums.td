//===- WeftEnums.td - weft enumerations --------------------*- tablegen -*-===//
//
// Reduction kinds (partial states, reductions, collectives) and the
// elementwise kinds of weft.map.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTENUMS_TD
#define WEFT_DIALECT_WEFT_IR_WEFTENUMS_TD

include "mlir/IR/EnumAttr.td"

def Weft_ReductionKind : I32EnumAttr<"ReductionKind",
    "how partial values combine: sum, max or min", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Max", 1, "max">,
  I32EnumAttrCase<"Min", 2, "min">
]> {
  let cppNamespace = "::mlir::weft";
}

def Weft_MapKind : I32EnumAttr<"MapKind", "elementwise function of weft.map", [
  // Binary.
  I32EnumAttrCase<"Add", 0, "add">,
  I32EnumAttrCase<"Sub", 1, "sub">,
  I32EnumAttrCase<"Mul", 2, "mul">,
  I32EnumAttrCase<"Div", 3, "div">,
  I32EnumAttrCase<"Max", 4, "max">,
  I32EnumAttrCase<"Min", 5, "min">,
  // Unary.
  I32EnumAttrCase<"Neg", 10, "neg">,
  I32EnumAttrCase<"Exp", 11, "exp">,
  I32EnumAttrCase<"Log", 12, "log">,
  I32EnumAttrCase<"Sqrt", 13, "sqrt">,
  I32EnumAttrCase<"Rsqrt", 14, "rsqrt">,
  I32EnumAttrCase<"Square", 15, "square">,
  I32EnumAttrCase<"Tanh", 16, "tanh">,
  I32EnumAttrCase<"Relu", 17, "relu">,
  I32EnumAttrCase<"Gelu", 18, "gelu">,
  I32EnumAttrCase<"Silu", 19, "silu">,
  I32EnumAttrCase<"Abs", 20, "abs">,
  I32EnumAttrCase<"Sign", 21, "sign">,
  I32EnumAttrCase<"Step", 22, "step">,
  I32EnumAttrCase<"Sigmoid", 23, "sigmoid">,
  I32EnumAttrCase<"Sin", 24, "sin">,
  I32EnumAttrCase<"Cos", 25, "cos">,
  // Unary with a constant operand (the `scalar` attribute).
  I32EnumAttrCase<"Scale", 30, "scale">,
  I32EnumAttrCase<"Shift", 31, "shift">,
  // Binary comparisons: 1 where the relation holds, else 0.
  I32EnumAttrCase<"Gt", 40, "gt">,
  I32EnumAttrCase<"Ge", 41, "ge">,
  I32EnumAttrCase<"Lt", 42, "lt">,
  I32EnumAttrCase<"Le", 43, "le">,
  I32EnumAttrCase<"Eq", 44, "eq">,
  I32EnumAttrCase<"Ne", 45, "ne">
]> {
  let cppNamespace = "::mlir::weft";
}

def Weft_RandomKind : I32EnumAttr<"RandomKind",
    "distribution of weft.random", [
  I32EnumAttrCase<"Uniform", 0, "uniform">,
  I32EnumAttrCase<"Normal", 1, "normal">
]> {
  let cppNamespace = "::mlir::weft";
}

#endif // WEFT_DIALECT_WEFT_IR_WEFTENUMS_TD

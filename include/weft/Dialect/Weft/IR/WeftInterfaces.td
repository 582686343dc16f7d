//===- WeftInterfaces.td - weft op interfaces --------------*- tablegen -*-===//
//
// IndexLetterOpInterface: the one contract every global-view compute op
// shares. Propagation and partitioning read an op only through its letters.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTINTERFACES_TD
#define WEFT_DIALECT_WEFT_IR_WEFTINTERFACES_TD

include "mlir/IR/OpBase.td"

def Weft_IndexLetterOpInterface : OpInterface<"IndexLetterOpInterface"> {
  let cppNamespace = "::mlir::weft";
  let description = [{
    An op whose operands and result name their dimensions with letters, in an
    einsum-style spec such as `"btd,df->btf"`. The letters are the op's
    *factors*: a letter split over mesh axes on one operand or on the result
    is split the same way on every other tensor that carries it; a letter
    absent from the result is reduced (contracted).
  }];
  let methods = [
    InterfaceMethod<"The einsum-style spec, e.g. \"btd,df->btf\".",
      "::llvm::StringRef", "getSpec", (ins), [{ return $_op.getSpec(); }]>,
    InterfaceMethod<[{
      How the op combines the values of a letter that is absent from the
      result (sum for einsum and embed, the reduction kind for reduce).
      std::nullopt for ops that drop no letter (map).
    }], "std::optional<::mlir::weft::ReductionKind>", "getContractionKind">
  ];
}

#endif // WEFT_DIALECT_WEFT_IR_WEFTINTERFACES_TD

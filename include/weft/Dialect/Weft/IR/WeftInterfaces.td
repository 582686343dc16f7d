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

def Weft_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::weft";
  let description = [{
    How an op is sharded, as propagation and partitioning see it: the letters
    of each operand and of the result (the op's factors), how letters absent
    from the result combine, and which operands may stay partial. Every
    global-view op implements it, so ShardingRule (Transforms) and the
    passes never switch on op types: a new op is its ODS definition plus
    these methods. The index-letter ops take their letters from their spec
    (the default implementations); weft.shard is an identity over
    placeholder letters.
  }];
  let methods = [
    InterfaceMethod<[{
      The letters of operand 0, 1, ..., then of the result, one string per
      tensor, one letter per dimension.
    }], "::llvm::SmallVector<std::string, 3>", "getTensorLetters", (ins), [{}],
    [{ return ::mlir::weft::lettersOfSpec(
           ::mlir::cast<::mlir::weft::IndexLetterOpInterface>(
               $_op.getOperation()).getSpec()); }]>,
    InterfaceMethod<[{
      How values of a letter absent from the result combine (sum for einsum
      and embed, the op's kind for reduce); std::nullopt if none is dropped.
    }], "std::optional<::mlir::weft::ReductionKind>", "getReductionKind",
    (ins), [{}],
    [{ return ::mlir::cast<::mlir::weft::IndexLetterOpInterface>(
           $_op.getOperation()).getContractionKind(); }]>,
    InterfaceMethod<[{
      Whether operand `operand` may stay partial with reduction `kind`: the
      op then computes a partial result of the same kind, so the collective
      moves past it. True where the op is linear in that operand (sum) or
      non-decreasing in it (max, min).
    }], "bool", "acceptsPartialOperand",
    (ins "unsigned":$operand, "::mlir::weft::ReductionKind":$kind)>,
    InterfaceMethod<[{
      Whether the op is linear in all its operands together (add, sub):
      when every operand is a partial sum over the same axes, the result is
      the partial sum of the per-rank results, so no operand needs reducing
      (the gradients of micro-batches summed before one all-reduce). Such
      an op accepts no single partial operand: a + sum_i(b_i) is not
      sum_i(a + b_i).
    }], "bool", "isJointlyLinear", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
      Whether propagation may split `letter` over mesh axes (weft.top_k's
      selected dimension is always computed whole).
    }], "bool", "canSplitLetter", (ins "char":$letter), [{}],
    [{ return true; }]>
  ];
}

def Weft_BlockIndexedOpInterface : OpInterface<"BlockIndexedOpInterface"> {
  let cppNamespace = "::mlir::weft";
  let description = [{
    An op whose values depend on the global index along one of its letters
    (the *block letter*): embed's and scatter_add's table rows, one_hot's
    vocabulary letter, iota's only dimension. When partitioning splits that
    letter over mesh axes, the local op records them (`vocab on @mesh over
    [axes]`, `on @mesh over [axes]` for iota): the rank at position `i`
    over those axes (row-major, in the listed order) holds indices
    `[i*n, (i+1)*n)` of the letter, `n` its local size. An op with the
    attributes is a local-view op.
  }];
  let methods = [
    InterfaceMethod<"The block letter, in the op's sharding-rule letters.",
      "char", "getBlockLetter">,
    InterfaceMethod<[{
      The block letter's size in this op's types: the whole letter in the
      global view, one rank's block in the local view.
    }], "int64_t", "getLocalBlockSize">,
    InterfaceMethod<"The mesh of the block axes; null in the global view.",
      "::mlir::FlatSymbolRefAttr", "getLocalBlockMesh", (ins), [{}],
      [{ return $_op.getMeshAttr(); }]>,
    InterfaceMethod<"The axes splitting the block letter; null in the global view.",
      "::mlir::ArrayAttr", "getLocalBlockAxes">,
    InterfaceMethod<"Records the axes splitting the block letter (local view).",
      "void", "setLocalBlock",
      (ins "::mlir::FlatSymbolRefAttr":$mesh, "::mlir::ArrayAttr":$axes)>
  ];
}

def Weft_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::weft";
  let description = [{
    The op's reverse-mode gradient rule, used by `--weft-autodiff`: given
    the gradient of a scalar loss with respect to the op's result, build
    (as ordinary global-view weft ops) its gradient with respect to each
    operand. Gradients are plain tensors (no sharding): propagation lays
    them out like any other value. The rules live in
    lib/Dialect/Weft/IR/WeftGradients.cpp; docs/autodiff.md lists them.
  }];
  let methods = [
    InterfaceMethod<[{
      Builds the gradients at `builder`'s insertion point. `resultGrad` has
      the result's shape and element type. On success `operandGrads` holds
      one entry per operand: a value of the operand's shape, or a null value
      where the operand gets no gradient (a constant function of it, such
      as a comparison, or an operand that is not differentiable, such as
      embed's ids). Fails with an error at the op where no rule exists.
    }], "::llvm::LogicalResult", "buildGradients",
    (ins "::mlir::OpBuilder &":$builder, "::mlir::Value":$resultGrad,
         "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>
  ];
}

#endif // WEFT_DIALECT_WEFT_IR_WEFTINTERFACES_TD

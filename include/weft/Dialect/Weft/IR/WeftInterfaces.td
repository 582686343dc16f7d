//===- WeftInterfaces.td - weft op interfaces --------------*- tablegen -*-===//
//
// The contracts through which the passes read an op. A pass dispatches on
// these interfaces, never on an op's class: everything particular to one
// op (its letters, its gradient, its local form, how pads flow through it,
// its JSON) is a method of the op, in its own files (WeftOps.cpp,
// WeftGradients.cpp, WeftPartition.cpp, WeftPadding.cpp). docs/design.md
// ("What a new op touches") lists which contracts each kind of op owes;
// test/Dialect/Weft/op-contracts.mlir checks that every registered op
// implements them.
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
    global-view op implements it, so ShardingRule (Transforms) and
    propagation never switch on op types; partitioning, padding and the
    export ask the op through the interfaces below. The index-letter ops
    take their letters from their spec (the default implementations);
    weft.shard is an identity over placeholder letters.
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

def Weft_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mlir::weft";
  let description = [{
    A local-view op that runs inside each group of ranks over some axes of
    a mesh: the collectives (all_reduce, all_gather, reduce_scatter,
    all_to_all), the root collectives (broadcast, reduce_to, gather_to,
    scatter_from) and weft.slice_shard, which keeps the rank's block without
    communicating. The schedule (--weft-schedule-collectives), the
    combiner, --weft-optimize-collectives, --weft-remat-gathers, the comm
    report, partitioning's checks and the lowering read a collective only
    through this interface: its mesh, its axes (typed), whether it
    communicates, how it combines values, which dimension it gathers or
    scatters, and what it costs (it prices itself with the runtime's ring
    formulas, so no pass maps ops to runtime collective kinds).
    The axes are stored as a string array, as the textual form
    `over ["data", "model"]` prints them; getAxisList gives them as the
    typed `#weft.axes` the shardings use.
  }];
  let methods = [
    InterfaceMethod<"The mesh the group is taken over.",
      "::mlir::FlatSymbolRefAttr", "getMeshAttr", (ins), [{}],
      [{ return $_op.getMeshAttr(); }]>,
    InterfaceMethod<[{
      The axes as stored (a string array, in group order): for copying
      onto an op of the same family.
    }], "::mlir::ArrayAttr", "getAxesAttr", (ins), [{}],
      [{ return $_op.getAxesAttr(); }]>,
    InterfaceMethod<[{
      Whether the op moves data between ranks: every collective but
      weft.slice_shard, which keeps the rank's block.
    }], "bool", "communicates", (ins), [{}], [{ return true; }]>,
    InterfaceMethod<[{
      Whether the op sends each rank's block, unchanged, to another rank (a
      point-to-point transfer: weft.collective_permute, a pipeline's
      boundary activations), as opposed to combining or redistributing the
      group's blocks. The schedule keeps compute after such a transfer in
      place (docs/overlap.md).
    }], "bool", "isPointToPoint", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
      How the op combines the group's values (all_reduce, reduce_scatter);
      std::nullopt for one that only moves them.
    }], "std::optional<::mlir::weft::ReductionKind>", "getReduction",
      (ins), [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<[{
      The dimension the op concatenates the group's blocks along
      (all_gather); std::nullopt for the others.
    }], "std::optional<int64_t>", "getGatheredDim", (ins), [{}],
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
      The dimension of which the op keeps the rank's block
      (reduce_scatter, slice_shard); std::nullopt for the others.
    }], "std::optional<int64_t>", "getScatteredDim", (ins), [{}],
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
      The group position of the root of a root collective (broadcast,
      reduce_to, gather_to, scatter_from); std::nullopt for the collectives
      every rank of the group takes part in alike. A reduction with a root
      is not an all-reduce.
    }], "std::optional<int64_t>", "getRootPosition", (ins), [{}],
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
      The bytes each rank sends over a ring for a group of `groupSize`
      ranks (Limits.h's ringBytesPerDevice of the runtime collective the
      op is, with its local operand and result sizes); 0 when the op does
      not communicate.
    }], "double", "getBytesPerDevice", (ins "int64_t":$groupSize)>
  ];
  let extraSharedClassDeclaration = [{
    /// The axes, typed: the same list getAxesAttr stores.
    ::mlir::weft::AxisListAttr getAxisList() {
      return ::mlir::weft::AxisListAttr::get($_op->getContext(),
                                             $_op.getAxisNames());
    }
    /// The axis names, in group order.
    ::llvm::SmallVector<::llvm::StringRef> getAxisNames() {
      ::llvm::SmallVector<::llvm::StringRef> names;
      for (::mlir::Attribute a : $_op.getAxesAttr())
        names.push_back(::llvm::cast<::mlir::StringAttr>(a).getValue());
      return names;
    }
  }];
}

def Weft_PartitionOpInterface : OpInterface<"PartitionOpInterface"> {
  let cppNamespace = "::mlir::weft";
  let description = [{
    How --weft-partition makes the op's local (per-rank) form from the
    global one and the layouts propagation chose. The pass keeps the
    global values and their local versions (PartitionContext) and calls
    `partition` on each global-view op in program order; the op reads its
    operands in the layouts it needs (the context reshards them) and
    records its local result. The default is the letter-map rule every
    index-letter op follows (partitionByLetters: operands resharded to the
    layouts `weft.split` requires, the op retyped to local shapes in
    place, a split block letter recorded); ops whose local form differs
    (weft.shard, the operandless fills, weft.cumsum's offsets, weft.top_k's
    candidates, weft.pad_fill's global indices) implement it themselves in
    lib/Dialect/Weft/IR/WeftPartition.cpp.
  }];
  let methods = [
    InterfaceMethod<[{
      Builds the op's local form through `context` and records its result
      (PartitionContext::setLocal). Errors are emitted at the op.
    }], "::llvm::LogicalResult", "partition",
    (ins "::mlir::weft::PartitionContext &":$context), [{}],
    [{ return ::mlir::weft::partitionByLetters($_op.getOperation(),
                                                context); }]>,
    InterfaceMethod<[{
      Whether the op's values depend on the global index of every
      dimension, recorded per dimension in the local view (`on @mesh over
      [[axes of dim 0], ...]`: weft.random, weft.pad_fill). A block of its
      result is not the op cloned on the block's shape.
    }], "bool", "readsGlobalIndices", (ins), [{}], [{ return false; }]>
  ];
}

def Weft_PadOpInterface : OpInterface<"PadOpInterface"> {
  let cppNamespace = "::mlir::weft";
  let description = [{
    How the pads of unevenly split dimensions flow through the op
    (--weft-pad-uneven, docs/partitioning.md "Uneven shards"). The pass
    keeps one invariant, every value's pads read 0, and asks each op
    whether its result keeps it (zero in, zero out), needs a
    `weft.pad_fill 0` after it, or cannot take pads at all (refused with
    an error). The pass itself knows no op: the answers are here.
  }];
  let methods = [
    InterfaceMethod<[{
      Whether the result's pads may read other than 0 when every operand's
      pads read 0 and `paddedLetters` (the op's sharding-rule letters of
      the result's padded dimensions, at least one) are padded. The
      default is the rule of a product (weft.einsum): a padded letter that
      every operand carries reads a zero factor there.
    }], "bool", "padsNeedZeroing", (ins "::llvm::ArrayRef<char>":$paddedLetters),
    [{}], [{ return ::mlir::weft::padsNeedZeroingByLetters(
                 $_op.getOperation(), paddedLetters); }]>,
    InterfaceMethod<[{
      Fails (with an error at the op) where a padded dimension would put
      pads among the elements the op must produce (a slice's range, a
      concat's joined dimension, top_k's k). `paddedSize(v, d)` is the
      padded size of dimension `d` of value `v` (its size when unpadded).
    }], "::llvm::LogicalResult", "verifyPadding",
    (ins "::llvm::function_ref<int64_t(::mlir::Value, unsigned)>":$paddedSize),
    [{}], [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{
      The op's merged dimensions (weft.reshape): per side (operand 0, then
      the result), per dimension, its letters, major first. A dimension of
      one letter is that letter's own. std::nullopt when every dimension
      is one letter. Fails when the op's spec does not parse.
    }], "::mlir::FailureOr<std::optional<std::pair<"
        "::llvm::SmallVector<std::string>, ::llvm::SmallVector<std::string>>>>",
    "getDimGroups", (ins), [{}],
    [{ return std::optional<std::pair<::llvm::SmallVector<std::string>,
                                      ::llvm::SmallVector<std::string>>>(); }]>,
    InterfaceMethod<[{
      Whether the letter is computed whole whatever `weft.split` says
      (weft.top_k's selected letter), so its axes pad nothing.
    }], "bool", "computesLetterWhole", (ins "char":$letter), [{}],
    [{ return false; }]>
  ];
}

def Weft_JsonExportOpInterface : OpInterface<"JsonExportOpInterface"> {
  let cppNamespace = "::mlir::weft";
  let description = [{
    A global-view op that weft-translate --weft-to-json writes for the numpy
    evaluator (test/numpy). The export is generic: `kind` is the op's
    name without the dialect, and every inherent attribute is one JSON
    field of its own name (strings, integers, floats with non-finite ones
    as "inf", "-inf", "nan", unit attributes as booleans, integer arrays,
    the weft enums by their names); an optional attribute that is absent
    is left out (a flag is written as false), and an op carrying a `mesh`
    (a block of the local view) is refused. The per-op parts, in
    lib/Dialect/Weft/IR/WeftJson.cpp, are what the attributes alone do
    not say: a field's name where the evaluator's format names it
    otherwise (map's kind is `map`, reduce's `reduce`, random's `dist`),
    which enum an integer attribute holds, and which attributes are
    flags.
  }];
  let methods = [
    InterfaceMethod<"The JSON field that attribute `name` is written as.",
      "::llvm::StringRef", "getJsonField", (ins "::llvm::StringRef":$name),
      [{}], [{ return name; }]>,
    InterfaceMethod<[{
      The name of the value of enum attribute `name` (map's `add`,
      reduce's `max`, random's `uniform`); std::nullopt for an attribute
      that is not an enum. A weft enum is stored as an integer, so only
      the op knows which enum an attribute holds.
    }], "std::optional<std::string>", "getJsonEnumName",
      (ins "::llvm::StringRef":$name), [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<[{
      Whether attribute `name` is a flag (a unit attribute), written as
      false when absent rather than left out (weft.cumsum's `exclusive`
      and `reverse`). The attribute's kind is not known when it is absent.
    }], "bool", "isJsonFlag", (ins "::llvm::StringRef":$name), [{}],
      [{ return false; }]>
  ];
}

#endif // WEFT_DIALECT_WEFT_IR_WEFTINTERFACES_TD

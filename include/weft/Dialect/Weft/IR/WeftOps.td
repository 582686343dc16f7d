//===- WeftOps.td - weft operations ------------------------*- tablegen -*-===//
//
// The mesh, the global-view compute ops and the local-view collectives.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTOPS_TD
#define WEFT_DIALECT_WEFT_IR_WEFTOPS_TD

include "weft/Dialect/Weft/IR/WeftDialect.td"
include "weft/Dialect/Weft/IR/WeftEnums.td"
include "weft/Dialect/Weft/IR/WeftInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"

def Weft_FloatTensor : StaticShapeTensorOf<[F32, F64, F16, BF16]>;
def Weft_IdTensor : StaticShapeTensorOf<[I32]>;
def Weft_AnyTensor : StaticShapeTensorOf<[F32, F64, F16, BF16, I32]>;

// Every weft op but the mesh refers to meshes, through the shardings of its
// types or through its `mesh` attribute, and verifies them in
// verifySymbolUses (the symbol table is cached there).
class Weft_Op<string mnemonic, list<Trait> traits = []>
    : Op<Weft_Dialect, mnemonic,
         !listconcat(traits,
                     [DeclareOpInterfaceMethods<SymbolUserOpInterface>])>;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

def Weft_MeshOp : Op<Weft_Dialect, "mesh", [Symbol]> {
  let summary = "a named device mesh";
  let description = [{
    Declares a mesh: an ordered list of named axes with their sizes. Device
    ranks map to mesh coordinates in row-major order (the last axis varies
    fastest). A collective over a set of axes runs inside each group of ranks
    that agree on every coordinate not in the set.

    ```mlir
    weft.mesh @mesh ["data" = 2, "model" = 4]   // 8 ranks; rank 5 = (1, 1)
    ```

    Verifier: at least one axis; names non-empty and unique; sizes >= 1.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axis_names,
                       DenseI64ArrayAttr:$axis_sizes);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of ranks: the product of the axis sizes.
    int64_t getNumDevices();
    /// Size of the named axis, or std::nullopt if the mesh has no such axis.
    std::optional<int64_t> getAxisSize(::llvm::StringRef axis);
  }];
}

//===----------------------------------------------------------------------===//
// Global view
//===----------------------------------------------------------------------===//

def Weft_EinsumOp : Weft_Op<"einsum", [Pure,
    Weft_PartitionOpInterface,
    Weft_PadOpInterface,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_IndexLetterOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
                              ["acceptsPartialOperand"]>]> {
  let summary = "multiply, summing over letters absent from the result";
  let description = [{
    `result[out] = sum over the other letters of prod_i input_i[letters_i]`,
    for one or two operands. Every letter has one size everywhere it
    appears; a letter appears at most once per operand.

    ```mlir
    %h = weft.einsum "btd,df->btf" (%x, %w)
        : (tensor<4x64x256xf32>, tensor<256x1024xf32>) -> tensor<4x64x1024xf32>
    %t = weft.einsum "ij->ji" (%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins StrAttr:$spec, Variadic<Weft_FloatTensor>:$inputs);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat =
      "$spec ` ` `(` $inputs `)` attr-dict `:` functional-type($inputs, $result)";
  let hasVerifier = 1;
}

def Weft_MapOp : Weft_Op<"map", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    DeclareOpInterfaceMethods<Weft_JsonExportOpInterface,
        ["getJsonField", "getJsonEnumName"]>,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_IndexLetterOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
                              ["acceptsPartialOperand", "isJointlyLinear"]>]> {
  let summary = "elementwise function, broadcasting by letters";
  let description = [{
    Applies `kind` elementwise. Operands are broadcast by letters: each
    operand is indexed by its own letters in the result's index space, and
    the result carries every operand letter (a map never reduces). A result
    letter that no operand has broadcasts the result along it (its size is
    the result type's): `"bt->btd"` repeats each `bt` value `d` times.

    Binary kinds: `add sub mul div max min`, and the comparisons
    `gt ge lt le eq ne`, which give 1 where the relation holds and 0
    elsewhere in the operands' float type (a NaN compares false, except
    for `ne`). Unary kinds: `neg exp log sqrt rsqrt square tanh relu gelu
    silu softplus abs sign step sigmoid sin cos`; `gelu` is the tanh approximation
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, `silu` is
    `x * sigmoid(x)`, `softplus` is `log(1 + exp(x))`, `sign` is -1, 0 or 1 (NaN for NaN), `step` is 1 for
    `x > 0` and 0 otherwise (the derivative of relu). Unary kinds with a constant `c` given by the `scalar`
    attribute: `scale` (`x * c`) and `shift` (`x + c`).

    ```mlir
    %y = weft.map add "btd,d->btd" (%x, %b)
        : (tensor<4x64x256xf32>, tensor<256xf32>) -> tensor<4x64x256xf32>
    %r = weft.map relu "bf->bf" (%h) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = weft.map scale "bt->bt" (%m) {scalar = 3.906250e-03 : f64}
        : (tensor<4x64xf32>) -> tensor<4x64xf32>
    ```
  }];
  let arguments = (ins Weft_MapKind:$kind, StrAttr:$spec,
                       Variadic<Weft_FloatTensor>:$inputs,
                       OptionalAttr<F64Attr>:$scalar);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "custom<MapKindName>($kind) $spec ` ` `(` $inputs `)` "
                       "attr-dict `:` functional-type($inputs, $result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of tensor operands `kind` takes (1 or 2).
    static unsigned getArity(::mlir::weft::MapKind kind);
    /// Whether `kind` reads the `scalar` attribute.
    static bool takesScalar(::mlir::weft::MapKind kind);
  }];
}

def Weft_ReduceOp : Weft_Op<"reduce", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    DeclareOpInterfaceMethods<Weft_JsonExportOpInterface,
        ["getJsonField", "getJsonEnumName"]>,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_IndexLetterOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
                              ["acceptsPartialOperand"]>]> {
  let summary = "sum, max or min over the letters dropped from the result";
  let description = [{
    ```mlir
    %m = weft.reduce max "bhts->bht" (%scores)
        : (tensor<4x8x64x64xf32>) -> tensor<4x8x64xf32>
    ```
  }];
  let arguments = (ins Weft_ReductionKind:$kind, StrAttr:$spec,
                       Weft_FloatTensor:$input);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$kind $spec ` ` `(` $input `)` attr-dict `:` "
                       "functional-type($input, $result)";
  let hasVerifier = 1;
}

def Weft_EmbedOp : Weft_Op<"embed", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_IndexLetterOpInterface>,
    DeclareOpInterfaceMethods<Weft_BlockIndexedOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
                              ["acceptsPartialOperand"]>]> {
  let summary = "lookup (gather) along a letter: an einsum with the one-hot of the ids";
  let description = [{
    `result[ids letters, kept] = table[batch, ids[ids letters], kept]`. The
    spec names the ids' letters, the table's, then the result's. Exactly one
    table letter is in neither the ids nor the result: the *looked-up*
    (vocabulary) letter, indexed by the id. The table's other letters are
    kept in the result; those the ids also have are *batch* letters, where
    each position reads its own row (numpy's `take_along_axis`). The result
    has every ids letter. It equals `einsum "btv,vd->btd" (one_hot(ids, V),
    table)` (with the batch letters on all three), which is how it is
    sharded: a table split on the looked-up letter gives a masked local
    lookup whose result is a partial sum; batch and kept letters split as
    in that einsum.

    ```mlir
    // an embedding table
    %e = weft.embed "bt,vd->btd" (%ids, %table)
        : (tensor<4x64xi32>, tensor<4096x256xf32>) -> tensor<4x64x256xf32>
    // each token's target logit (the labels index v of their own row)
    %y = weft.embed "bt,btv->bt" (%labels, %logits)
        : (tensor<4x64xi32>, tensor<4x64x512xf32>) -> tensor<4x64xf32>
    ```

    In the local view, a table that holds one block of the looked-up letter
    says so with `vocab on @mesh over [axes]`: the rank with index `i` over
    those axes (row-major, in the listed order) holds rows `[i*R, (i+1)*R)`
    of that letter, where `R` is its local extent, and ids outside that
    range look up zeros.

    ```mlir
    %p = weft.embed "bt,vd->btd" (%ids, %tl) vocab on @mesh over ["model"]
        : (tensor<4x64xi32>, tensor<1024x256xf32>) -> tensor<4x64x256xf32>
    ```
  }];
  let arguments = (ins StrAttr:$spec, Weft_IdTensor:$ids,
                       Weft_FloatTensor:$table,
                       OptionalAttr<FlatSymbolRefAttr>:$mesh,
                       OptionalAttr<StrArrayAttr>:$vocab_axes);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$spec ` ` `(` $ids `,` $table `)` "
                       "(`vocab` `on` $mesh^ `over` $vocab_axes)? attr-dict "
                       "`:` functional-type(operands, $result)";
  let hasVerifier = 1;
}

def Weft_ScatterAddOp : Weft_Op<"scatter_add", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_IndexLetterOpInterface>,
    DeclareOpInterfaceMethods<Weft_BlockIndexedOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
                              ["acceptsPartialOperand"]>]> {
  let summary = "add rows into a table by id: the transpose of embed";
  let description = [{
    `result[batch, v, kept] = sum over the other ids letters of
    (ids[...] == v) * updates[...]`. The spec names the ids' letters, the
    updates' letters (the ids' letters plus the result's kept letters),
    then the result's: exactly one result letter, the looked-up letter
    `v`, is in no operand; result letters the ids also have are batch
    letters (each position adds into its own row). It is the gradient of
    `weft.embed "ids,result->updates"` with respect to its table and is
    sharded like `einsum "btv,btd->vd" (one_hot(ids, V), updates)`: split
    ids letters give a partial sum, and a result split on `v` is computed
    block by block (each rank adds only the ids in its rows).

    ```mlir
    %g = weft.scatter_add "bt,btd->vd" (%ids, %gx)
        : (tensor<4x64xi32>, tensor<4x64x256xf32>) -> tensor<4096x256xf32>
    // the gradient of a gather along t: each (b, k) adds into its row
    %dx = weft.scatter_add "bk,bkd->btd" (%pos, %gy)
        : (tensor<4x3xi32>, tensor<4x3x256xf32>) -> tensor<4x64x256xf32>
    ```

    In the local view, `vocab on @mesh over [axes]` says the result holds
    one block of the looked-up letter, as for `weft.embed`: ids outside it
    are skipped.
  }];
  let arguments = (ins StrAttr:$spec, Weft_IdTensor:$ids,
                       Weft_FloatTensor:$updates,
                       OptionalAttr<FlatSymbolRefAttr>:$mesh,
                       OptionalAttr<StrArrayAttr>:$vocab_axes);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$spec ` ` `(` $ids `,` $updates `)` "
                       "(`vocab` `on` $mesh^ `over` $vocab_axes)? attr-dict "
                       "`:` functional-type(operands, $result)";
  let hasVerifier = 1;
}

def Weft_OneHotOp : Weft_Op<"one_hot", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_IndexLetterOpInterface>,
    DeclareOpInterfaceMethods<Weft_BlockIndexedOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
                              ["acceptsPartialOperand"]>]> {
  let summary = "1 where the id equals the index along a new letter";
  let description = [{
    `result[..., v] = (ids[...] == v) ? 1 : 0`, in the result's float type.
    The spec maps the ids' letters to the result's: the result has every
    ids letter plus one more, the vocabulary letter, whose size is the
    result type's. It needs no table: a cross-entropy picks its target
    logit as `reduce sum "btv->bt" (map mul (logits, one_hot(labels)))`.
    A result split on `v` is computed block by block (each rank writes its
    own columns); no communication.

    ```mlir
    %oh = weft.one_hot "bt->btv" (%labels)
        : (tensor<8x64xi32>) -> tensor<8x64x512xf32>
    ```

    In the local view, `vocab on @mesh over [axes]` says the result holds
    one block of the vocabulary letter, as for `weft.embed`.
  }];
  let arguments = (ins StrAttr:$spec, Weft_IdTensor:$ids,
                       OptionalAttr<FlatSymbolRefAttr>:$mesh,
                       OptionalAttr<StrArrayAttr>:$vocab_axes);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$spec ` ` `(` $ids `)` "
                       "(`vocab` `on` $mesh^ `over` $vocab_axes)? attr-dict "
                       "`:` functional-type(operands, $result)";
  let hasVerifier = 1;
}

def Weft_IotaOp : Weft_Op<"iota", [Pure,
    DeclareOpInterfaceMethods<Weft_PartitionOpInterface,
        ["partition"]>,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_BlockIndexedOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>]> {
  let summary = "the positions 0, 1, ..., n-1 of a 1-D tensor";
  let description = [{
    `result[i] = i`, in the result's element type (float or i32). With the
    comparison maps it builds masks without inputs: a causal mask is
    `map ge "t,s->ts" (%pos, %pos)` of `%pos = weft.iota`. Like
    `weft.constant` it has no operands, so any layout is free; a split
    result is computed block by block.

    ```mlir
    %pos = weft.iota : tensor<64xf32>
    ```

    In the local view, `on @mesh over [axes]` says the result is the block
    of the rank's position over those axes (its values start at
    `position * n_local`).
  }];
  let arguments = (ins OptionalAttr<FlatSymbolRefAttr>:$mesh,
                       OptionalAttr<StrArrayAttr>:$block_axes);
  let results = (outs StaticShapeTensorOf<[F32, F64, I32]>:$result);
  let assemblyFormat = "(`on` $mesh^ `over` $block_axes)? attr-dict `:` "
                       "type($result)";
  let hasVerifier = 1;
}

def Weft_RandomOp : Weft_Op<"random", [Pure,
    DeclareOpInterfaceMethods<Weft_PartitionOpInterface,
        ["partition", "readsGlobalIndices"]>,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    DeclareOpInterfaceMethods<Weft_JsonExportOpInterface,
        ["getJsonField", "getJsonEnumName"]>,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>]> {
  let summary = "counter-based random numbers, the same on every mesh";
  let description = [{
    Each element is a function of the seed and of its global index only:
    Philox4x32-10 (Salmon et al., SC'11) keyed by the 64-bit `seed` (low
    word, high word) with the element's index along each dimension as the
    counter words (dimension `k` is word `k`; unused words are 0). So a
    sharded program draws exactly the numbers of the unsharded one, on any
    mesh, and a rank computes its block without communication.

    - `uniform`: in [0, 1). f32: `(w0 >> 8) * 2^-24`; f64: the top 53 bits
      of `w0:w1` times `2^-53`.
    - `normal`: standard normal by Box-Muller,
      `sqrt(-2 log u1) * cos(2 pi u2)` with `u1 = 1 - uniform` of `w0`
      (f64: `w0:w1`), in (0, 1], and `u2` the uniform of `w1` (f64:
      `w2:w3`).

    At most 4 dimensions, each below 2^32. Dropout with rate `p` keeps an
    element where `u >= p`: `map step` of `map shift {scalar = -p}` gives
    the mask (1 where `u > p`), then `map mul` and `map scale 1/(1-p)`. Two
    ops with the same seed draw the same numbers: give each site its own.
    Like `weft.constant`, any layout of the result is free.

    ```mlir
    %u = weft.random uniform seed 7 : tensor<4x64x256xf32>
    ```

    An optional `offset` operand, a rank-0 f32, f64 or i32 tensor read at
    run time (a training step's `step` argument), adds its value `t` to the
    key's high word: the key is `seed + t * 2^32` (mod 2^64), so each step
    draws new numbers (per-step dropout) and every mesh still draws the
    unsharded program's. `t` must be an integer in [0, 2^32) (otherwise
    the run fails with an error); seeds below 2^32 never collide across
    sites and steps.

    ```mlir
    %u = weft.random uniform seed 7 offset(%step : tensor<f32>)
        : tensor<4x64x256xf32>
    ```

    In the local view, `on @mesh over [[axes of dim 0], ...]` names the
    mesh axes splitting each dimension: the rank at position `i` over a
    dimension's axes holds indices `[i*n, (i+1)*n)` of it, `n` its local
    size.
  }];
  let arguments = (ins Weft_RandomKind:$kind, I64Attr:$seed,
                       Optional<StaticShapeTensorOf<[F32, F64, I32]>>:$offset,
                       OptionalAttr<FlatSymbolRefAttr>:$mesh,
                       OptionalAttr<ArrayAttr>:$block_axes);
  let results = (outs StaticShapeTensorOf<[F32, F64]>:$result);
  let assemblyFormat = "$kind `seed` $seed "
                       "(`offset` `(` $offset^ `:` type($offset) `)`)? "
                       "(`on` $mesh^ `over` $block_axes)? "
                       "attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axes splitting dimension `dim` (empty in the global view).
    ::llvm::SmallVector<::llvm::StringRef> getDimAxes(unsigned dim);
  }];
}

def Weft_CumsumOp : Weft_Op<"cumsum", [Pure,
    DeclareOpInterfaceMethods<Weft_PartitionOpInterface,
        ["partition"]>,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    DeclareOpInterfaceMethods<Weft_JsonExportOpInterface,
        ["isJsonFlag"]>,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>]> {
  let summary = "cumulative sum along one dimension";
  let description = [{
    Along dimension `dim`, for every line `x[0..n)`: `y[i] = sum_{j <= i}
    x[j]`; with `exclusive`, `sum_{j < i}` (`y[0] = 0`); with `reverse`,
    the sums run from the end (`sum_{j >= i}`, exclusive `sum_{j > i}`).
    Summation is sequential along the line.

    ```mlir
    // GShard's capacity: each token's position among its expert's tokens.
    %pos = weft.cumsum %mask dim 1 exclusive : tensor<4x64x8xf32> -> tensor<4x64x8xf32>
    ```

    Sharding: any dimension may be split, `dim` too. When `dim` is split
    over axes, `--weft-partition` scans each block, all-gathers the block
    totals (one value per line per rank), scans those exclusively and adds
    each rank's offset: the bytes of the totals, never the tensor. Linear:
    a partial sum stays partial. Its gradient is the cumulative sum of the
    cotangent in the other direction.
  }];
  let arguments = (ins Weft_FloatTensor:$input, I64Attr:$dim,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$input `dim` $dim (`exclusive` $exclusive^)? "
                       "(`reverse` $reverse^)? attr-dict `:` type($input) "
                       "`->` type($result)";
  let hasVerifier = 1;
}

def Weft_ReshapeOp : Weft_Op<"reshape", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing", "getDimGroups"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand",
         "canSplitLetter"]>]> {
  let summary = "split or merge dimensions (einops style)";
  let description = [{
    Splits and merges dimensions without moving elements (row-major): the
    spec names every dimension by a letter or a parenthesized group of
    letters, both sides list the same letters in the same order, and a
    group's size is the product of its letters' sizes (each letter's size
    comes from the side where it is a dimension of its own).

    ```mlir
    // heads split from the model dimension, and merged back
    %q = weft.reshape "bt(hk)->bthk" (%x)
        : (tensor<4x64x256xf32>) -> tensor<4x64x8x32xf32>
    %y = weft.reshape "bthk->bt(hk)" (%q)
        : (tensor<4x64x8x32xf32>) -> tensor<4x64x256xf32>
    ```

    Sharding: a merged dimension is split only over its major (first)
    letter's axes, which are the merged dimension's: each rank's block of
    `(hk)` is its block of `h` times all of `k`, so the local op is the same
    reshape and moves nothing. The minor letters of a group are never
    split (propagation never proposes them). Uneven shards: when the
    major letter's axes do not divide it, `--weft-pad-uneven` pads it and
    the merged dimension to its padded size times the minor letters'
    (the pads are whole rows at the end); a minor letter that needs pads
    is refused.
  }];
  let arguments = (ins StrAttr:$spec, Weft_AnyTensor:$input);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$spec ` ` `(` $input `)` attr-dict `:` "
                       "functional-type($input, $result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The spec's groups: per side, per dimension, its letters (major
    /// first); fails on a malformed spec.
    static ::mlir::FailureOr<std::pair<::llvm::SmallVector<std::string>,
                                       ::llvm::SmallVector<std::string>>>
    parseGroups(::llvm::StringRef spec, std::string &error);
  }];
}

def Weft_SliceOp : Weft_Op<"slice", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing", "verifyPadding"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand",
         "canSplitLetter"]>]> {
  let summary = "a contiguous range of one dimension";
  let description = [{
    `result[..., i, ...] = input[..., start + i, ...]` along dimension
    `dim`, for `i` in `[0, n)`, `n` the result's extent there; every other
    dimension is kept whole. `0 <= start` and `start + n <=` the input's
    extent.

    ```mlir
    // the first half of the features (a rotary pair, a gate of a GLU)
    %lo = weft.slice %x dim 2 start 0 : tensor<4x64x256xf32> -> tensor<4x64x128xf32>
    ```

    Sharding: every dimension but `dim` splits freely (the local op is the
    same slice of each block); `dim` is computed whole (propagation never
    splits it: an input split there is gathered first). Linear and a
    selection: a partial sum, max or min stays partial. A dimension its axes
    do not divide is accepted on the input (the range never reaches the
    pads) and refused on the result by `--weft-pad-uneven`. Gradient: the
    cotangent placed at `start` between zeros (a `weft.concat`).
  }];
  let arguments = (ins Weft_AnyTensor:$input, I64Attr:$dim, I64Attr:$start);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input `dim` $dim `start` $start attr-dict `:` "
                       "type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Weft_ConcatOp : Weft_Op<"concat", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing", "verifyPadding"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand",
         "isJointlyLinear", "canSplitLetter"]>]> {
  let summary = "operands joined along one dimension";
  let description = [{
    The operands, in order, along dimension `dim`: operand `k` fills
    `[o_k, o_k + n_k)` of it, `o_k` the sum of the extents before it. The
    operands have one rank and element type and agree on every other
    dimension, which the result keeps; at most 32 operands.

    ```mlir
    %y = weft.concat %a, %b dim 1
        : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
    ```

    Sharding: every dimension but `dim` splits freely (the local op joins
    the blocks); `dim` is computed whole on the operands and the result
    (propagation never splits it: an operand split there is gathered
    first, a result split there is sliced after, for free). Jointly linear:
    operands that are all partial sums over the same axes give a partial
    sum. A dimension `dim` its axes do not divide is refused by
    `--weft-pad-uneven` (pads would land between the operands). Gradient:
    each operand's range of the cotangent (a `weft.slice`).
  }];
  let arguments = (ins Variadic<Weft_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$inputs `dim` $dim attr-dict `:` "
                       "functional-type($inputs, $result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The letter of `dim` on operand `i` (distinct per operand, never
    /// split) and on the result.
    static char operandLetter(unsigned i) { return char('!' + i); }
    static constexpr char kResultLetter = '~';
    static constexpr unsigned kMaxOperands = 32;
  }];
}

def Weft_TopKOp : Weft_Op<"top_k", [Pure,
    DeclareOpInterfaceMethods<Weft_PartitionOpInterface,
        ["partition"]>,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing", "verifyPadding", "computesLetterWhole"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand",
         "canSplitLetter"]>]> {
  let summary = "the k largest elements along one dimension";
  let description = [{
    Along dimension `dim`, for every line `x[0..n)`, selects the `k`
    largest elements in descending order; ties go to the lower index, and
    NaN counts as larger than every number (as torch.topk). The result is
    `x`'s shape with `dim` of size `k`: the selected values, or, with a
    second operand `payload` (`x`'s shape and type), the payload's elements
    at the selected positions. A payload of positions (an iota broadcast
    along `dim`) gives the indices: argmax is `k = 1`.

    ```mlir
    %v = weft.top_k %logits dim 1 k 2 : (tensor<8x64xf32>) -> tensor<8x2xf32>
    %i = weft.top_k %logits, %pos dim 1 k 2
        : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x2xf32>
    ```

    Sharding: `dim` may be split (block size at least `k`): each rank
    selects its block's `k` candidates (values, and payloads), the
    candidates are all-gathered over the dimension's axes (`k` per line
    per rank, never the whole letter) and selected again. The result's `k`
    dimension is computed whole. Gradient: the cotangent goes to the
    selected positions (of `x`, or of the payload; a payload form gives `x`
    none); a bf16 or f16 `x` is widened to f32 to choose them (an iota of
    positions is exact in f32, not in bf16 above 256).
  }];
  let arguments = (ins Weft_FloatTensor:$input,
                       Optional<Weft_FloatTensor>:$payload, I64Attr:$dim,
                       I64Attr:$k);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$input (`,` $payload^)? `dim` $dim `k` $k attr-dict "
                       "`:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The sharding-rule letter of the result's `k` dimension (the input's
    /// `dim` letter is reduced).
    static constexpr char kSelectedLetter = 'Z';
  }];
}

def Weft_PadFillOp : Weft_Op<"pad_fill", [Pure,
    DeclareOpInterfaceMethods<Weft_PartitionOpInterface,
        ["partition", "readsGlobalIndices"]>,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>]> {
  let summary = "overwrite the padding of an unevenly sharded tensor";
  let description = [{
    The result is the input, except that every element whose global index
    along some dimension `d` is `valid[d]` or more is `fill` (rounded to
    the element type). `--weft-pad-uneven` inserts it: a dimension that
    its mesh axes do not divide is padded at its end to a multiple of
    them, and the pads must read 0 (or -inf before a max, +inf before a
    min) wherever they could change a result (docs/partitioning.md,
    "Uneven shards"). It is a select, not a multiply, so NaN or inf in the
    pads is cleared too.

    ```mlir
    %y = weft.pad_fill %x valid [10, 64] fill 0.0 : tensor<12x64xf32>
    ```

    Verifier: one `valid` entry per dimension, `1 <= valid[d] <= size`.
    With fill 0 it is linear, so a partial sum stays partial through it.
    In the local view, `on @mesh over [[axes of dim 0], ...]` names the
    axes splitting each dimension, as for `weft.random`.
  }];
  let arguments = (ins Weft_AnyTensor:$input, DenseI64ArrayAttr:$valid,
                       F64Attr:$fill,
                       OptionalAttr<FlatSymbolRefAttr>:$mesh,
                       OptionalAttr<ArrayAttr>:$block_axes);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input `valid` $valid `fill` $fill "
                       "(`on` $mesh^ `over` $block_axes)? attr-dict `:` "
                       "type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axes splitting dimension `dim` (empty in the global view).
    ::llvm::SmallVector<::llvm::StringRef> getDimAxes(unsigned dim);
  }];
}

def Weft_ShardOp : Weft_Op<"shard", [Pure,
    DeclareOpInterfaceMethods<Weft_PartitionOpInterface,
        ["partition"]>,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>]> {
  let summary = "a user constraint on the sharding of a value";
  let description = [{
    The result is the operand, laid out as the sharding of the result type
    says. That sharding is fixed: propagation never overrides it, and
    partitioning reshards the operand into it.

    ```mlir
    %y = weft.shard %x : tensor<4x64xf32>
        -> tensor<4x64xf32, #weft.sharding<@mesh, [{}, {"model"} ]>>
    ```

    Verifier: same shape and element type; the result type has a sharding.
  }];
  let arguments = (ins Weft_AnyTensor:$input);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Weft_ConstantOp : Weft_Op<"constant", [Pure,
    DeclareOpInterfaceMethods<Weft_PartitionOpInterface,
        ["partition"]>,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>]> {
  let summary = "a tensor filled with one value";
  let description = [{
    Every element of the result is `value`, rounded to the element type.
    It has no operands, so any layout of the result is free: propagation
    lays it out as its users want, and each rank fills its own block.
    `--weft-autodiff` seeds the loss's gradient with `1.0`.

    ```mlir
    %one = weft.constant 1.0 : tensor<f32>
    %z = weft.constant 0.0 : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F64Attr:$value);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

def Weft_ConvertOp : Weft_Op<"convert", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>]> {
  let summary = "convert the elements to another float type";
  let description = [{
    Every element of the result is the operand's element converted to the
    result's element type (f32, f64, f16, bf16), rounded to nearest, ties
    to even, once: a value too large for the type becomes an infinity of
    its sign, NaN stays NaN and +-0 stays +-0. Widening (bf16 or f16 to
    f32 or f64, f32 to f64) is exact. The shape is unchanged.

    ```mlir
    // f32 master weights, bf16 compute
    %wb = weft.convert %w : tensor<256x1024xf32> -> tensor<256x1024xbf16>
    %g = weft.convert %gb : tensor<256x1024xbf16> -> tensor<256x1024xf32>
    ```

    Sharding: elementwise, the result has the operand's layout. A partial
    max or min passes through it (rounding is monotone); a partial sum is
    reduced before it, in the operand's type, because the sum of rounded
    partials is not the rounded sum. Uneven shards: zero converts to zero.
    Gradient: the cotangent converted back to the operand's type. Folds:
    a convert to the operand's own type is the operand, and a convert of a
    convert whose first step is exact (a widening) converts the original
    operand directly.

    Verifier: same shape; float element types.
  }];
  let arguments = (ins Weft_FloatTensor:$input);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Weft_StopGradientOp : Weft_Op<"stop_gradient", [Pure,
    Weft_PartitionOpInterface,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>]> {
  let summary = "the identity, with a zero gradient";
  let description = [{
    The result is the operand (JAX's `lax.stop_gradient`, PyTorch's
    `detach`): `--weft-autodiff` sends no cotangent through it, so nothing
    the operand depends on gets a gradient from this use. For a value whose
    gradient is zero in exact arithmetic, such as the max a softmax or a
    cross-entropy subtracts for stability (the shift cancels), it removes
    the backward's work and collectives for it (a vocabulary-parallel
    cross-entropy's max: one [b, t] all-reduce).

    ```mlir
    %m = weft.reduce max "btv->bt" (%logits) : ...
    %ms = weft.stop_gradient %m : tensor<4x32xf32> -> tensor<4x32xf32>
    ```

    Sharding: elementwise, the result has the operand's layout, and any
    partial operand (sum, max, min) passes through it. Uneven shards: its
    pads are the operand's. Gradient: none. Lowering: nothing (the result
    is the operand's buffer); the interpreter binds the operand.

    Verifier: same shape and element type.
  }];
  let arguments = (ins Weft_AnyTensor:$input);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Weft_ShiftOp : Weft_Op<"shift", [Pure,
    DeclareOpInterfaceMethods<Weft_PartitionOpInterface, ["partition"]>,
    DeclareOpInterfaceMethods<Weft_PadOpInterface,
        ["padsNeedZeroing", "verifyPadding"]>,
    Weft_JsonExportOpInterface,
    DeclareOpInterfaceMethods<Weft_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Weft_ShardingRuleOpInterface,
        ["getTensorLetters", "getReductionKind", "acceptsPartialOperand"]>]> {
  let summary = "move every slice of one dimension to the next position";
  let description = [{
    `result[..., i, ...] = input[..., i - by, ...]` along dimension `dim`
    where `0 <= i - by < n`, and zero elsewhere (`by` is 1 or -1): with
    `by = 1` position 0 becomes zeros and the last position's slice is
    dropped. It is the step of a pipeline (docs/pipeline.md): a rolling
    buffer of activations `[stage, ...]` moves each stage's output to the
    next stage.

    ```mlir
    // a tick of a 4-stage pipeline (dim 0 split over "stage"): stage s's
    // output becomes stage s+1's input
    %next = weft.shift %act dim 0 by 1
        : tensor<4x8x32xf32> -> tensor<4x8x32xf32>
    ```

    Sharding: elementwise (the result has the operand's layout), every
    dimension splits. Along `dim` split over axes A the local form is
    exactly one `weft.collective_permute` over A of the boundary slice
    (each rank's last position, its first with `by = -1`) to the next
    position of the group, with pairs `[[0, 1], ..., [p-2, p-1]]`
    (reversed for `by = -1`): one block's position per rank moves, nothing
    else. A rank holding k > 1 positions of `dim` also moves its own k-1
    positions locally (a slice and a concat); `dim` unsplit is all local
    (zeros and a slice). Linear, zero-preserving and monotone: a partial
    sum, max or min passes through. Uneven shards: zeros move to zeros;
    `dim` cannot be padded (pads would move into the data). Gradient: the
    cotangent shifted back, `by` negated (the backward pipeline's transfer
    from each stage to the previous one).

    Verifier: `by` is 1 or -1; `dim` in range; the result has the
    operand's shape and element type.
  }];
  let arguments = (ins Weft_FloatTensor:$input, I64Attr:$dim, I64Attr:$by);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$input `dim` $dim `by` $by attr-dict `:` "
                       "type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Local view: collectives and the local slice
//===----------------------------------------------------------------------===//

// Shared by the local-view ops: a mesh and an ordered list of its axes.
// Ranks of a group are ordered row-major over the listed axes, in the listed
// order, matching a dimension split over the same list. Collectives have no
// memory effects: every rank runs the same program, so an unused collective
// is dropped by all ranks alike (DCE) and two identical ones merge (CSE).
// Ops that exist only in the local (per-rank) view: a function holding one
// is partitioned (isLocalView in FuncUtils.h).
def Weft_LocalViewOnly : NativeOpTrait<"LocalViewOnly"> {
  let cppNamespace = "::mlir::weft";
}

def Weft_FusedMapOp : Weft_Op<"fused_map", [Pure, Weft_LocalViewOnly]> {
  let summary = "a chain of elementwise maps computed in one pass";
  let description = [{
    What `--weft-fuse-elementwise` makes of a chain of `weft.map` ops on the
    local view: one op that reads each operand once and writes only the
    chain's last value. `spec` gives each operand's letters in the result's
    index space, as for `weft.map` (broadcasting by letters; a result letter
    in no operand is sized by the result type). `steps` is the chain, in
    order: `sJ = kind(args)` where an arg is an operand `inK` or an earlier
    step `sI`, a kind takes `weft.map`'s operands, and `scale`/`shift` take
    their constant last. Every step is evaluated over the whole result
    index space and rounded to the element type, as the unfused maps store
    it, so fusing never changes a bit of the result. The last step is the
    result. At most 8 operands and 16 steps. Local view only: it is made
    after partitioning and never crosses a collective.

    ```mlir
    %y = weft.fused_map "btf,f->btf" (%h, %b)
        steps "s0 = add(in0, in1); s1 = relu(s0)"
        : (tensor<4x64x256xf32>, tensor<256xf32>) -> tensor<4x64x256xf32>
    ```
  }];
  let arguments = (ins StrAttr:$spec, Variadic<Weft_FloatTensor>:$inputs,
                       StrAttr:$steps);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$spec ` ` `(` $inputs `)` `steps` $steps attr-dict "
                       "`:` functional-type($inputs, $result)";
  let hasVerifier = 1;
}

def Weft_FusedEinsumOp : Weft_Op<"fused_einsum",
                                  [Pure, Weft_LocalViewOnly]> {
  let summary = "a two-operand einsum with an elementwise epilogue";
  let description = [{
    What `--weft-fuse-epilogues` makes of a `weft.einsum` of two operands
    and the maps that only its result feeds (a bias add, an activation, a
    scale, a residual add) on the local view: the runtime runs the
    contraction and the epilogue in one GEMM call where it can (oneDNN
    post-ops on the CPU), so the contraction's result is never written and
    read back. `spec` is the einsum's, over `inputs` #0 and #1. `epilogue`
    and `steps` are a `weft.fused_map`'s, whose operand `in0` is the
    einsum's result and `inK` (K >= 1) is `inputs` #(K+1); the epilogue's
    result letters are the einsum's. At most 8 epilogue operands and 16
    steps. Unlike `weft.fused_map`, the fused op may differ from the
    unfused chain by rounding: a GEMM library computes its activations
    with its own formulas (docs/fusion.md, *Epilogues*). Local view only.

    ```mlir
    %y = weft.fused_einsum "btd,df->btf" (%x, %w, %b)
        then "btf,f->btf" steps "s0 = add(in0, in1); s1 = gelu(s0)"
        : (tensor<4x64x256xf32>, tensor<256x1024xf32>, tensor<1024xf32>)
        -> tensor<4x64x1024xf32>
    ```
  }];
  let arguments = (ins StrAttr:$spec, Variadic<Weft_FloatTensor>:$inputs,
                       StrAttr:$epilogue, StrAttr:$steps);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$spec ` ` `(` $inputs `)` `then` $epilogue `steps` "
                       "$steps attr-dict `:` functional-type($inputs, $result)";
  let hasVerifier = 1;
}

def Weft_FusedRowsOp : Weft_Op<"fused_rows", [Pure, Weft_LocalViewOnly]> {
  let summary = "a chain of maps and row reductions computed one row at a time";
  let description = [{
    What `--weft-fuse-rows` makes of a softmax, an RMSNorm or a LayerNorm
    on the local view: maps and reductions over the trailing letters
    `rows` of one index space, computed one row at a time, so each operand
    is read once and only the last value is written.

    The index space is the kept letters followed by `rows`. A value is
    *full* (an operand holding the row letters, as its trailing letters in
    `rows`' order; a map of a full value) or a *row value*, one per row (an
    operand without row letters; a reduction; a map of row values only).
    `steps` is the chain as in `weft.fused_map`, plus the row reductions
    `row_sum(v)`, `row_max(v)` and `row_min(v)` of a full value. `spec`
    gives each operand's letters and the result's: the kept letters then
    `rows` when the last step is full, the kept letters alone when it is a
    row value. Every step is rounded to the element type and every
    reduction combines in the runtime's fixed order, as the unfused
    `weft.map` and `weft.reduce` do, so fusing never changes a bit. At
    most 8 operands and 16 steps, at least one row reduction. Local view
    only.

    ```mlir
    // softmax over s
    %p = weft.fused_rows "bhts->bhts" rows "s" (%x)
        steps "s0 = row_max(in0); s1 = sub(in0, s0); s2 = exp(s1); s3 = row_sum(s2); s4 = div(s2, s3)"
        : (tensor<4x8x64x64xf32>) -> tensor<4x8x64x64xf32>
    ```
  }];
  let arguments = (ins StrAttr:$spec, StrAttr:$rows,
                       Variadic<Weft_FloatTensor>:$inputs, StrAttr:$steps);
  let results = (outs Weft_FloatTensor:$result);
  let assemblyFormat = "$spec `rows` $rows ` ` `(` $inputs `)` `steps` $steps "
                       "attr-dict `:` functional-type($inputs, $result)";
  let hasVerifier = 1;
}

// The collectives and weft.slice_shard: CollectiveOpInterface gives their
// mesh, axes, kind and cost; `overridden` names the interface methods with
// a default that the op defines itself.
class Weft_CollectiveOp<string mnemonic, list<Trait> traits = [],
                        list<string> overridden = []>
    : Weft_Op<mnemonic, !listconcat(traits, [NoMemoryEffect,
        Weft_LocalViewOnly,
        DeclareOpInterfaceMethods<Weft_CollectiveOpInterface, overridden>])> {
  let hasVerifier = 1;
}

def Weft_AllReduceOp : Weft_CollectiveOp<"all_reduce",
    [AllTypesMatch<["input", "result"]>], ["getReduction"]> {
  let summary = "reduce a partial value over mesh axes, result on every rank";
  let description = [{
    Every rank of each group over `axes` receives the elementwise reduction
    of the group's values.

    ```mlir
    %y = weft.all_reduce sum %p on @mesh over ["model"] : tensor<4x64x256xf32>
    ```
  }];
  let arguments = (ins Weft_ReductionKind:$kind, Weft_AnyTensor:$input,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat =
      "$kind $input `on` $mesh `over` $axes attr-dict `:` type($result)";
  // all_reduce over A then all_reduce over B, same kind: one over A then B.
  let hasCanonicalizer = 1;
}

def Weft_AllGatherOp : Weft_CollectiveOp<"all_gather", [],
                                         ["getGatheredDim"]> {
  let summary = "concatenate the blocks of a group along a dimension";
  let description = [{
    `result` is the concatenation along `dim` of the group's operands, in
    group order; `result.shape[dim] = input.shape[dim] * group size`.

    ```mlir
    %x = weft.all_gather %xl on @mesh over ["model"] dim 1
        : tensor<4x16x256xf32> -> tensor<4x64x256xf32>
    ```
  }];
  let arguments = (ins Weft_AnyTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input `on` $mesh `over` $axes `dim` $dim attr-dict "
                       "`:` type($input) `->` type($result)";
  // all_gather of the slice_shard of the same mesh, axes and dim: the
  // slice's operand.
  let hasFolder = 1;
}

def Weft_ReduceScatterOp : Weft_CollectiveOp<"reduce_scatter", [],
                                             ["getReduction",
                                              "getScatteredDim"]> {
  let summary = "reduce over a group and keep this rank's block of a dimension";
  let description = [{
    The reduction of the group's operands, split along `dim` into group-size
    blocks; rank `i` of the group keeps block `i`.

    ```mlir
    %y = weft.reduce_scatter sum %p on @mesh over ["model"] dim 1
        : tensor<4x64x256xf32> -> tensor<4x16x256xf32>
    ```
  }];
  let arguments = (ins Weft_ReductionKind:$kind, Weft_AnyTensor:$input,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes,
                       I64Attr:$dim);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat =
      "$kind $input `on` $mesh `over` $axes `dim` $dim attr-dict `:` "
      "type($input) `->` type($result)";
}

def Weft_AllToAllOp : Weft_CollectiveOp<"all_to_all"> {
  let summary = "move the split of a tensor from one dimension to another";
  let description = [{
    Each rank splits its operand along `split_dim` into group-size blocks,
    sends block `j` to group rank `j`, and concatenates what it receives along
    `concat_dim` in group order. A value split over `axes` on `concat_dim`
    becomes split over `axes` on `split_dim`.

    ```mlir
    %y = weft.all_to_all %x on @mesh over ["data"] split 0 concat 1
        : tensor<4x1x64xf32> -> tensor<1x4x64xf32>
    ```
  }];
  let arguments = (ins Weft_AnyTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$split_dim,
                       I64Attr:$concat_dim);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat =
      "$input `on` $mesh `over` $axes `split` $split_dim `concat` $concat_dim "
      "attr-dict `:` type($input) `->` type($result)";
}

// The op that completes an asynchronous collective (weft.wait): the
// schedule and the lowering recognize it by this trait.
def Weft_CompletesCollective : NativeOpTrait<"CompletesCollective"> {
  let cppNamespace = "::mlir::weft";
}

def Weft_WaitOp : Weft_Op<"wait", [Weft_LocalViewOnly, Weft_CompletesCollective,
                                    AllTypesMatch<["input", "result"]>]> {
  let summary = "where an asynchronous collective's result is ready";
  let description = [{
    `--weft-schedule-collectives` splits a collective in two: the collective
    op, marked `weft.async = N`, starts the communication where it stands
    (as early as its operand allows), and `weft.wait` is where its result
    is needed (right before the first op that reads it). The N compute ops
    between the two run while the data moves. An asynchronous collective's
    only use is its `weft.wait`; the value is the collective's result.

    ```mlir
    %g = weft.all_reduce sum %p on @mesh over ["data"] {weft.async = 12 : i64}
        : tensor<1024x1024xf32>
    ...                                      // 12 ops overlap the all-reduce
    %r = weft.wait %g : tensor<1024x1024xf32>
    ```

    The op has no declared memory effects, so no generic pass moves or
    erases it.
  }];
  let arguments = (ins Weft_AnyTensor:$input);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Weft_SliceShardOp : Weft_CollectiveOp<"slice_shard", [AlwaysSpeculatable],
                                          ["communicates", "getScatteredDim"]> {
  let summary = "keep this rank's block of a replicated dimension";
  let description = [{
    No communication: rank `i` of its group over `axes` keeps block `i` of
    `dim` (group-size blocks).

    ```mlir
    %w = weft.slice_shard %wf on @mesh over ["model"] dim 0
        : tensor<4096x256xf32> -> tensor<1024x256xf32>
    ```
  }];
  let arguments = (ins Weft_AnyTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input `on` $mesh `over` $axes `dim` $dim attr-dict "
                       "`:` type($input) `->` type($result)";
  // slice_shard of the all_gather of the same mesh, axes and dim: the
  // gather's operand. Canonicalizer: the slice of an all_reduce (its only
  // use) over the same axes is a reduce_scatter.
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Root collectives (issue 33): to or from one rank of each group
//===----------------------------------------------------------------------===//

// `root` is a position in the group over `axes` (0 <= root < group size),
// not a world rank: every group has its own root, as every group has its
// own all-reduce. On the ranks that are not the root, the result of
// reduce_to and gather_to is zero, so it is a partial sum over `axes`
// (docs/design.md, "Root collectives").

def Weft_BroadcastOp : Weft_CollectiveOp<"broadcast",
    [AllTypesMatch<["input", "result"]>], ["getRootPosition"]> {
  let summary = "the root's value on every rank of its group";
  let description = [{
    Every rank of each group over `axes` receives the operand of the rank
    at group position `root`; the other ranks' operands are not read.

    ```mlir
    %w = weft.broadcast %w0 on @mesh over ["data"] root 0 : tensor<256x256xf32>
    ```
  }];
  let arguments = (ins Weft_AnyTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$root);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat =
      "$input `on` $mesh `over` $axes `root` $root attr-dict `:` type($result)";
}

def Weft_ReduceToOp : Weft_CollectiveOp<"reduce_to",
    [AllTypesMatch<["input", "result"]>], ["getReduction", "getRootPosition"]> {
  let summary = "reduce over a group, result on the root only";
  let description = [{
    The rank at group position `root` receives the elementwise reduction of
    the group's operands; every other rank's result is zero (so a
    `reduce_to sum` result is a partial sum over `axes`).

    ```mlir
    %l = weft.reduce_to sum %p on @mesh over ["data"] root 0 : tensor<16xf32>
    ```
  }];
  let arguments = (ins Weft_ReductionKind:$kind, Weft_AnyTensor:$input,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes,
                       I64Attr:$root);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$kind $input `on` $mesh `over` $axes `root` $root "
                       "attr-dict `:` type($result)";
}

def Weft_GatherToOp : Weft_CollectiveOp<"gather_to", [], ["getRootPosition"]> {
  let summary = "concatenate the group's blocks on the root";
  let description = [{
    The rank at group position `root` receives the concatenation along
    `dim` of the group's operands, in group order
    (`result.shape[dim] = input.shape[dim] * group size`); every other
    rank's result is zero.

    ```mlir
    %x = weft.gather_to %xl on @mesh over ["data"] root 0 dim 0
        : tensor<2x64xf32> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Weft_AnyTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$root, I64Attr:$dim);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input `on` $mesh `over` $axes `root` $root `dim` $dim "
                       "attr-dict `:` type($input) `->` type($result)";
}

def Weft_ScatterFromOp : Weft_CollectiveOp<"scatter_from", [], ["getRootPosition"]> {
  let summary = "split the root's value along a dimension, one block per rank";
  let description = [{
    The operand of the rank at group position `root` is split along `dim`
    into group-size blocks; rank `i` of the group receives block `i`
    (`result.shape[dim] = input.shape[dim] / group size`). The other
    ranks' operands are not read.

    ```mlir
    %xl = weft.scatter_from %x on @mesh over ["data"] root 0 dim 0
        : tensor<8x64xf32> -> tensor<2x64xf32>
    ```
  }];
  let arguments = (ins Weft_AnyTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$root, I64Attr:$dim);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat = "$input `on` $mesh `over` $axes `root` $root `dim` $dim "
                       "attr-dict `:` type($input) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Point to point (issue 33): pipeline transfers
//===----------------------------------------------------------------------===//

def Weft_CollectivePermuteOp : Weft_CollectiveOp<"collective_permute",
    [AllTypesMatch<["input", "result"]>], ["isPointToPoint"]> {
  let summary = "send each rank's value to another rank of its group";
  let description = [{
    `pairs` lists source-target pairs of group positions over `axes`
    (XLA's CollectivePermute): the rank at each target receives the
    operand of its source; a rank that is no target gets zeros. Each
    position is the source of at most one pair and the target of at most
    one. Every group over `axes` applies the same pairs, so a pipeline's
    stage-to-stage transfer is one op for every data and model replica.

    ```mlir
    // a ring shift along "stage" (4 stages)
    %y = weft.collective_permute %x on @mesh over ["stage"]
        pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins Weft_AnyTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, DenseI64ArrayAttr:$pairs);
  let results = (outs Weft_AnyTensor:$result);
  let assemblyFormat =
      "$input `on` $mesh `over` $axes `pairs` custom<PermutePairs>($pairs) "
      "attr-dict `:` type($result)";
  let extraClassDeclaration = [{
    /// The (source, target) pairs, in order.
    ::llvm::SmallVector<std::pair<int64_t, int64_t>> getPairList();
  }];
}

#endif // WEFT_DIALECT_WEFT_IR_WEFTOPS_TD

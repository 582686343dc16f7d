//===- WeftAttrs.td - weft attributes ----------------------*- tablegen -*-===//
//
// #weft.sharding: how a tensor of the global view is laid out over a mesh.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTATTRS_TD
#define WEFT_DIALECT_WEFT_IR_WEFTATTRS_TD

include "weft/Dialect/Weft/IR/WeftDialect.td"
include "weft/Dialect/Weft/IR/WeftEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"

def Weft_AxisListAttr : AttrDef<Weft_Dialect, "AxisList"> {
  let mnemonic = "axes";
  let summary = "an ordered list of mesh axis names";
  let description = [{
    The axes that split one dimension of a `#weft.sharding` (major to
    minor), or its partial axes. Inside a sharding it is written as a bare
    brace list, `{"data", "model"}`; on its own as
    `#weft.axes<{"data", "model"}>`.
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr">:$axes);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool empty() const { return getAxes().empty(); }
    /// The axis names, major to minor.
    ::llvm::SmallVector<::llvm::StringRef> getNames() const;
    static AxisListAttr get(::mlir::MLIRContext *ctx,
                            ::llvm::ArrayRef<::llvm::StringRef> names);
  }];
}

def Weft_ShardingAttr : AttrDef<Weft_Dialect, "Sharding",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "sharding";
  let summary = "the layout of a global tensor over a device mesh";
  let description = [{
    A sharding names a mesh and gives, for every dimension of the tensor it
    annotates, the ordered list of mesh axes that split it (major to minor),
    and optionally the axes over which the value is a *partial* result that
    still has to be reduced (sum, max or min). It is carried as the encoding
    of a ranked tensor type, so every value of a propagated program shows its
    layout:

    ```mlir
    weft.mesh @mesh ["data" = 2, "model" = 4]
    // dim 0 split over data, dim 2 over model.
    tensor<8x16x512xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"} ]>>
    // dim 0 split over data, then model (8 blocks, data-major).
    tensor<64x16xf32, #weft.sharding<@mesh, [{"data", "model"}, {} ]>>
    // Every rank of a model group holds a summand of the value.
    tensor<8x16xf32, #weft.sharding<@mesh, [{}, {} ], partial = sum {"model"}>>
    // Replicated.
    tensor<8x16xf32, #weft.sharding<@mesh, [{}, {} ]>>
    ```

    Rules (checked by the verifiers): the number of dimension lists equals the
    tensor's rank; an axis appears at most once (dimensions and partial axes
    together); every axis exists in the mesh; a dimension split over axes of
    total size k has a size divisible by k (padding is not supported).
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    // The axes splitting each dimension, major to minor.
    ArrayRefParameter<"::mlir::weft::AxisListAttr">:$dims,
    "::mlir::weft::ReductionKind":$partialKind,
    // Empty when the value is not partial.
    "::mlir::weft::AxisListAttr":$partialAxes
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilderWithInferredContext<(ins "::mlir::FlatSymbolRefAttr":$mesh,
        "::llvm::ArrayRef<::llvm::SmallVector<::llvm::StringRef>>":$dims,
        CArg<"::mlir::weft::ReductionKind",
             "::mlir::weft::ReductionKind::Sum">:$partialKind,
        CArg<"::llvm::ArrayRef<::llvm::StringRef>", "{}">:$partialAxes)>
  ];
  let extraClassDeclaration = [{
    /// The tensor rank this sharding describes.
    unsigned getRank() const { return getDims().size(); }
    /// Axes splitting dimension `dim`, major to minor.
    ::llvm::SmallVector<::llvm::StringRef> getDimAxes(unsigned dim) const;
    /// Axes over which the value is partial (empty if it is not).
    ::llvm::SmallVector<::llvm::StringRef> getPartialAxisNames() const;
    bool isPartial() const { return !getPartialAxes().empty(); }
    /// True when no axis splits any dimension and the value is not partial.
    bool isReplicated() const;
  }];
}

#endif // WEFT_DIALECT_WEFT_IR_WEFTATTRS_TD

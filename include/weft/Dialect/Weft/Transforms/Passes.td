//===- Passes.td - weft passes -----------------------------*- tablegen -*-===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_TD
#define WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WeftPropagate : Pass<"weft-propagate", "::mlir::ModuleOp"> {
  let summary = "Complete every sharding from the user's annotations";
  let description = [{
    Gives every tensor value of every function a `#weft.sharding`, GSPMD
    style, and records on every index-letter op the letter -> mesh axes map
    it will be partitioned with (the `weft.split` attribute).

    User annotations are fixed: shardings on function argument types, on the
    result types of ops (function results), and on `weft.shard` results.
    Everything else is propagated:

    1. *Compatible propagation*, forward and backward to a fixed point: at
       every op whose known tensors agree on each letter's axes (and use no
       axis on two letters), the letters' axes flow into the op's tensors
       that have no sharding yet. A result computed with a reduced letter
       split is a partial value (sum for einsum and embed, the reduction
       kind for reduce).
    2. *Conflicts* (two tensors want one letter split differently, or one
       axis on two letters) are resolved one op at a time, in a canonical
       order, by the cost model: every candidate letter map is priced by the
       bytes each device would send to reshard the op's operands and result
       (ring formulas, design.md section 6, times a per-axis weight). Then
       step 1 runs again.
    3. Every op then takes its cheapest letter map; values nothing reached
       are replicated.

    Ties are broken by, in order: fewer user-annotated values resharded, more
    mesh axes used (less replicated compute), then the first candidate in
    letter order. The canonical order is a depth-first post-order from the
    function's return, so the result does not depend on the textual order of
    independent ops.

    With `explain`, every op gets a remark with its letter map, where each
    split came from, and the cost of every candidate considered.

    ```mlir
    // Before: only the weights are annotated.
    %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<4x64x256xf32>,
        tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"} ]>>)
        -> tensor<4x64x1024xf32>
    // After: h is split on f, and the op records its letter map.
    %h = weft.einsum "btd,df->btf" (%x, %w1) {weft.split = {f = ["model"]}}
        : (...) -> tensor<4x64x1024xf32, #weft.sharding<@mesh, [{}, {}, {"model"} ]>>
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per op: its letter map, why, and the alternatives' "
           "costs">,
    ListOption<"axisWeights", "axis-weights", "std::string",
               "Per-axis bandwidth weights as axis:weight (default 1), e.g. "
               "data:8,model:1 when data crosses nodes">
  ];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_TD

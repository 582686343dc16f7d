//===- Passes.td - weft to runtime conversion --------------*- tablegen -*-===//

#ifndef WEFT_CONVERSION_WEFTTORUNTIME_PASSES_TD
#define WEFT_CONVERSION_WEFTTORUNTIME_PASSES_TD

include "mlir/Pass/PassBase.td"

def WeftLowerToRuntime : Pass<"weft-lower-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower a local-view function to EmitC calls of the runtime";
  let description = [{
    Turns one function of the local view (the output of `--weft-partition`:
    local tensor types, `weft.global_type` on every argument and result,
    weft compute ops and collectives) into an EmitC module that
    `mlir-translate --mlir-to-cpp` (or `weftc`) prints as C++ calling the
    runtime (`weft/rt/Program.h`):

    - one `emitc.func @weft_step_<name>(weft::rt::StepContext&)` whose body
      calls a `weft::rt::gen::` helper per op (`einsum`, `map`, `reduce`,
      `embed`, `allReduce`, `allGather`, `reduceScatter`, `allToAll`,
      `sliceShard`), then `release` on every value right after its last use;
    - one `static const` plan per compute op (`EinsumPlan`, `MapPlan`,
      `ReducePlan`, `EmbedPlan`), computed now by the runtime's own planner
      and emitted as constants, so the program never plans at run time;
    - `weft::rt::ProgramInfo weft_program`: the mesh, the inputs and outputs
      (name, dtype, global shape, layout, id bound) and the step function,
      which the runtime's program harness (`main()`) runs.

    Names of inputs and outputs come from the `weft.name` argument and
    result attributes (weftc sets them from the source's SSA names), else
    `arg<i>` / `result<i>`. An all-reduce whose operand dies there runs in
    place.

    ```mlir
    // Before:
    func.func @mlp(%x: tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>}, ...)
      %h = weft.einsum "bd,df->bf" (%x, %w) : ... -> tensor<4x16xf32>
    // After (abridged):
    emitc.global static const @weft_plan0 : !emitc.opaque<"weft::rt::EinsumPlan"> = ...
    emitc.func @weft_step_mlp(%ctx: !emitc.opaque<"weft::rt::StepContext&">) {
      %0 = call_opaque "weft::rt::gen::einsum"(%ctx, %x, %w)
          {args = [0 : index, #emitc.opaque<"weft_plan0">, 1 : index, 2 : index,
                   #emitc.opaque<"\"#0 einsum bd,df->bf\"">]} : ...
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "The function to lower (default: the module's only func.func)">,
    Option<"callLoops", "call-loops", "bool", /*default=*/"true",
           "Lower each run of adjacent calls of outlined functions that "
           "repeats with a period to one loop over an array of tensors "
           "(docs/calls.md, \"The call loop\")">
  ];
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
}

#endif // WEFT_CONVERSION_WEFTTORUNTIME_PASSES_TD

//===- Passes.td - weft passes -----------------------------*- tablegen -*-===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_TD
#define WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WeftAutodiff : Pass<"weft-autodiff", "::mlir::func::FuncOp"> {
  let summary = "Reverse-mode gradients of a scalar loss";
  let description = [{
    For a global-view function that returns one scalar loss (a rank-0 float
    tensor) and marks its trained arguments with `weft.param`, appends to
    its results the gradient of the loss with respect to every parameter,
    in argument order, each marked `weft.grad_of = <argument index>` and
    named `grad_<name>` after the argument's `weft.name`. The gradients are
    ordinary weft ops built by each op's `DifferentiableOpInterface` rule
    (docs/autodiff.md), seeded with `weft.constant 1.0`, so propagation and
    partitioning treat them like the forward ops: the data-parallel
    all-reduce of a weight gradient is derived, not written.

    A gradient takes its parameter's sharding when the parameter has one
    (a `weft.shard` to the parameter's type); otherwise propagation lays it
    out. Functions without `weft.param` arguments are left alone. A
    parameter that does not reach the loss gets a zero gradient and a
    warning; a loss that is not one scalar, a local-view function and an op
    without a gradient rule on the path are errors at their location.

    A function that already returns its gradients (the loss, then one
    result per `weft.param` argument marked `weft.grad_of = <argument
    index>`: a 1F1B pipeline computes them itself, docs/pipeline.md) is
    checked and not differentiated again.
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftAccumulate : Pass<"weft-accumulate", "::mlir::func::FuncOp"> {
  let summary = "Gradient accumulation over micro-batches";
  let description = [{
    For a function built by `--weft-autodiff` (the loss of one micro-batch,
    then the gradients), repeats its body once per micro-batch: every data
    argument (neither a `weft.param` nor optimizer state) gets one copy per
    micro-batch, marked `weft.micro_batch = k` and sharing its `weft.name`,
    and the loss and the gradients become the mean over the micro-batches.

    Each copy's forward and backward run before the next begins, so only
    one micro-batch's activations are live at a time. The gradients are
    summed before the `weft.shard` that gives them their parameter's layout,
    so a data-parallel gradient stays a partial sum across the micro-batches
    and is all-reduced once per step, not once per micro-batch. Run it
    before `--weft-optimizer`; `weftc --train --micro-batches K` does.
    docs/training.md.
  }];
  let options = [
    Option<"microBatches", "micro-batches", "int64_t", /*default=*/"1",
           "Micro-batches per step (1: nothing to do)">
  ];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftOptimizer : Pass<"weft-optimizer", "::mlir::func::FuncOp"> {
  let summary = "Turn a loss-and-gradients function into a training step";
  let description = [{
    For a function built by `--weft-autodiff` (result 0 the scalar loss,
    then one result per `weft.param` argument marked `weft.grad_of`),
    builds one optimizer step as ordinary weft maps and reductions, so the
    update is partitioned like the rest of the program:

    - arguments: the original ones, then the optimizer state of every
      parameter in the parameter's type and sharding (AdamW: `m_<name>`,
      `v_<name>`; SGD with momentum: `mom_<name>`; plain SGD: none), each
      marked `weft.state_of = <parameter index>`, then two rank-0 runtime
      values marked `weft.hyperparam`: `step` (1, 2, ...) and `lr`;
    - results: the loss, the new value of every parameter, then the new
      state, each marked `weft.updates = <argument index>` (the harness
      feeds it back to that argument: it is donated).

    AdamW follows PyTorch's: decoupled weight decay `p *= 1 - lr * wd`,
    bias correction with `1 - beta^step` computed from the runtime step,
    `p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)`. SGD: `g += wd * p`,
    `mom = momentum * mom + g`, `p -= lr * mom`. With `clip-norm` > 0 the
    gradients are first scaled by `min(1, clip / (||g|| + 1e-6))`, `||g||`
    the global norm over every parameter. With `zero1-axis=AXIS` (ZeRO-1)
    each state tensor is also split over AXIS (on the first dimension whose
    size it divides; a parameter with none keeps its layout, with a
    warning), so the update runs on the shard and propagation reduce-
    scatters the gradient and all-gathers the new parameter. The function
    gets `weft.optimizer` recording the choice. A function with a
    `weft.hyperparam = "loss_scale"` input (`--weft-precision=f16-mixed`)
    also returns, after the loss, `grads_finite` (`weft.finite_grads`): 1
    if every gradient is finite, else 0; the harness then skips the
    update (docs/precision.md). Functions without gradient results are
    left alone; docs/training.md.
  }];
  let options = [
    Option<"kind", "kind", "std::string", /*default=*/"\"adamw\"",
           "The optimizer: adamw or sgd">,
    Option<"lr", "lr", "double", /*default=*/"1e-3",
           "The default learning rate (the harness's --lr overrides it)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "AdamW beta2">,
    Option<"eps", "eps", "double", /*default=*/"1e-8", "AdamW epsilon">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"-1",
           "Weight decay (default: 0.01 for adamw, 0 for sgd)">,
    Option<"momentum", "momentum", "double", /*default=*/"0",
           "SGD momentum (0: plain SGD, no state)">,
    Option<"clipNorm", "clip-norm", "double", /*default=*/"0",
           "Clip the gradients' global norm to this (0: no clipping)">,
    Option<"zeroAxis", "zero1-axis", "std::string", /*default=*/"\"\"",
           "ZeRO-1: split every parameter's optimizer state over this mesh "
           "axis too (on its first dimension it divides)">
  ];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftPrecision : Pass<"weft-precision", "::mlir::func::FuncOp"> {
  let summary = "Mixed precision: GEMMs in bf16 or f16, everything else in f32";
  let description = [{
    `policy=bf16-mixed` rounds the operands of every two-operand f32
    `weft.einsum` (a GEMM) to bf16 with `weft.convert` (one convert per
    value, however many GEMMs read it), runs the einsum in bf16 (the
    backends accumulate in f32) and converts its result back to f32 where
    it is used. Elementwise maps, reductions (norms, softmax, the loss),
    the parameters, the optimizer state and the optimizer step stay f32.
    `grad-reduce-dtype` picks the type a weight gradient's data-parallel
    sum is reduced in: `bf16` (half the bytes) or `f32`, where the
    weight-gradient einsums (those whose result reaches a `weft.grad_of`
    result through sums only) take the bf16-rounded operands widened back
    to f32, exactly, and compute in f32. `policy=f16-mixed` does the same
    in f16 (`grad-reduce-dtype` `f16`, or its default spelling `bf16`, or
    `f32`) and adds dynamic loss scaling: every backward seed that
    `--weft-autodiff` marked (`weft.loss_seed`) becomes a new rank-0
    `loss_scale` input S (`weft.hyperparam = "loss_scale"`), and each
    gradient result is multiplied by 1 / S. Runs after `--weft-autodiff`
    and `--weft-accumulate`, before `--weft-optimizer`; `policy=f32`
    changes nothing. docs/precision.md.
  }];
  let options = [
    Option<"policy", "policy", "std::string", /*default=*/"\"f32\"",
           "The precision policy: f32, bf16-mixed or f16-mixed">,
    Option<"gradReduceDtype", "grad-reduce-dtype", "std::string",
           /*default=*/"\"bf16\"",
           "The type weight gradients are reduced in: the policy's half "
           "type (bf16; f16 for f16-mixed) or f32">
  ];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftStageCalls : Pass<"weft-stage-calls", "::mlir::ModuleOp"> {
  let summary = "Pipeline a chain of layer calls over a stage axis (GPipe)";
  let description = [{
    weftc's `--pipeline-stages=N --pipeline-micro-batches=M`
    (docs/pipeline.md, "Stages from layer calls"). The entry's K calls of
    one layer function, each reading the previous call's result, are
    assigned to N stages of K/N consecutive calls each (the calls are of
    one function, so every stage costs the same: the balanced split is the
    equal one), or as the calls' `weft.stage = s` say (then `stages` may be
    0; every call of the chain annotated with an integer, consecutive
    calls per stage from stage 0, the same number on every stage; a
    `weft.stage` on a call outside the entry is an error), and the chain
    is rewritten
    as the GPipe rolling buffer of
    docs/pipeline.md ("The model"): the layer's ops run once per tick on
    a buffer `[N, b, ...]` whose leading dimension is split over the stage
    axis (einsum, map and reduce get a leading letter, `weft.shard` a
    leading `{"stage"}`), each weight of local layer k of every stage is
    one stacked argument `[N, ...]` split over the stage axis, named
    `<name of stage 0's weight>.stages`, and `weft.shift` moves each
    stage's result to the next stage between ticks (a point-to-point
    permute once partitioned).

    The chain's input (dimension 0: the batch, B rows) is split into M
    micro-batches of B / M rows (micro-batch i: rows i, i + M, i + 2M, ...,
    so a batch split over "data" stays split), injected into stage 0's slot
    at ticks 0 .. M - 1; the last stage's slot is read at ticks N - 1 ..
    M + N - 2, and the M results are put back into the batch the calls'
    last result had, so the ops after the chain (the loss) are unchanged.
    The program computes what the unpipelined one does (bubble slots hold
    values that reach no result). Autodiff then gives the backward
    pipeline (reverse shifts), as for a hand-written one.

    Errors, at the call or the op: calls of more than one function, calls
    that do not form one chain, K not divisible by N, B not divisible by
    M, a weight argument used twice or of another type in another layer,
    a value passed to every call that depends on the function's arguments
    (it would need micro-batching), and an op of the layer that cannot run
    once per stage (other than einsum, map, reduce, shard, or one that
    reads no stacked value). Off (N = 0 and no `weft.stage`) by default; a
    negative N or M is an error.

    With `schedule=1f1b` (weftc `--pipeline-schedule=1f1b`, docs/pipeline.md
    "1F1B from layer calls") the entry is rewritten into the 1F1B ticks of
    docs/pipeline.md ("1F1B"), and returns the loss and one gradient per
    parameter (`weft.grad_of`), so --weft-autodiff leaves it as it is: the
    stage's layers, the ops after the chain (the loss, on one micro-batch)
    and the ops before it (the embedding) become private functions with
    `weft.vjp_of` declarations; stage s forwards micro-batch t - s and
    backwards t - 2(N - 1) + s at tick t. The loss must be a sum over the
    batch's rows: after the chain every op is an einsum, map, reduce or
    shard; the batch's letter stays until an einsum or a sum reduce
    contracts it, and from there on only linear ops follow (add and sub of
    such values, neg, scale, mul or einsum by one value that does not
    depend on the batch, div by one); a value the loss reads with the
    batch's rows (labels) is split into micro-batches like the chain's
    input; anything else is an error at the op.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Number of pipeline stages N (0: off)">,
    Option<"microBatches", "micro-batches", "int64_t", /*default=*/"0",
           "Number of micro-batches M (0: 2N)">,
    Option<"axis", "axis", "std::string", /*default=*/"\"stage\"",
           "The mesh axis the stages are split over">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"gpipe\"",
           "gpipe (autodiff reverses the forward ticks) or 1f1b (the entry "
           "returns its own gradients: each micro-batch's backward starts "
           "at its loss tick)">,
  ];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftInlineCalls : Pass<"weft-inline-calls", "::mlir::ModuleOp"> {
  let summary = "Flatten calls between weft functions into their callers";
  let description = [{
    Layers are written once, as `func.func private` functions, and called
    with `func.call` once per layer with that layer's weights (docs/calls.md).
    This pass replaces every `func.call` of a function with a body by the
    callee's ops (callees first, so nested calls flatten too), gives each
    inlined op the location `callsite(callee line at call line)` so a
    diagnostic names both, and erases the private functions no call
    references any more. The first pass of weft-pipeline; a program without
    calls is unchanged. It records which function each call called on the
    module, `weft.call_sites = {layer = ["m.mlir:33:8", ...]}` (each call
    by its `file:line:col`), for weft-comm-report's tallies by call.

    A recursive call and a call of a declaration (no body) are errors at
    the call, except a declaration marked `weft.vjp_of = @f`: its body is
    written here, after the other calls are flattened, as the
    vector-Jacobian product of `@f` (the arguments of `@f` and the
    cotangent of its one result in, one gradient per argument of `@f`
    out), by the autodiff rules; its calls are then flattened like any
    other (docs/pipeline.md, "1F1B").

    Activation checkpointing: the ops inlined from a call that carries the
    unit attribute `weft.remat` (or, with `remat-all`, from every call made
    by a public function) get `weft.remat_group = N`, one N per inlined
    call; `weft-remat` then recomputes them in the backward pass
    (docs/calls.md, "Rematerialization").

    ```mlir
    func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>)
        -> tensor<8x16xf32> { ... }
    %h = func.call @layer(%x, %w0) : (...) -> tensor<8x16xf32>
    %g = func.call @layer(%h, %w1) {weft.remat} : (...) -> tensor<8x16xf32>
    ```
  }];
  let options = [
    Option<"rematAll", "remat-all", "bool", /*default=*/"false",
           "Mark every call of a public function for rematerialization "
           "(weftc --remat-layers)">,
  ];
}

def WeftRemat : Pass<"weft-remat", "::mlir::func::FuncOp"> {
  let summary = "Recompute marked layers in the backward pass (activation "
                "checkpointing)";
  let description = [{
    Runs after `weft-autodiff` on the ops `weft-inline-calls` marked with
    `weft.remat_group` (a call marked `weft.remat`, or every layer call with
    weftc's `--remat-layers`): like `jax.checkpoint` on a layer, or
    Megatron's full recompute, the backward pass reads the layer's inputs
    and outputs, which the forward pass keeps anyway, and recomputes
    everything else the layer computed instead of keeping it alive from the
    forward pass to the backward pass.

    For each group: its *saved* values are those an op of the forward pass
    outside the group reads (the call's results); every other value of the
    group that a backward op reads is recomputed. The ops it takes are
    cloned, in order, right before the first backward op that reads one of
    them, from the saved values and the values defined outside the group;
    each clone is marked `weft.recomputed` (which also keeps it distinct
    from its original for any later folding), and the backward ops read
    the clones. The forward values then die in the forward pass. The
    forward pass is the loss's backward slice; a function without a group
    is unchanged. Every `weft.remat_group` attribute is removed. Random
    ops recompute the same numbers (counter-based, docs/interpreter.md).
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftOutlineLayers : Pass<"weft-outline-layers", "::mlir::ModuleOp"> {
  let summary = "Outline repeated layer calls of the local program into "
                "one function each";
  let description = [{
    The inverse of weft-inline-calls on the local program, so that the
    lowering and the C++ compile see each layer once (docs/calls.md,
    "Outlining the local program"). The ops of the entry are grouped into
    maximal contiguous runs that came from the same call (their
    `callsite(... at <call>)` location): a layer's forward and its backward
    are separate runs. Runs that are structurally equal (the same ops,
    attributes but `weft.reason`, result types, and operands as "external
    value k" in first-use order or "result j of op i of the run") form a
    class; each class of two or more runs becomes one private function
    taking the external values and returning every value of the run used
    after it by any member, and each run a `func.call` of it at the call's
    location. Inside the function, ops keep the layer's own lines.
    An asynchronous collective's start and its wait stay in one function:
    one whose partner lies outside its run stays in the caller, and the run
    is cut there. In a program with layer calls, one parameter's optimizer
    update (named `weft.update <argument #>` by --weft-optimizer) is a
    group as a call is, so equal updates are outlined too.
  }];
}

def WeftResizeMesh : Pass<"weft-resize-mesh", "::mlir::ModuleOp"> {
  let summary = "Resize mesh axes (weftc --mesh)";
  let description = [{
    Gives every `weft.mesh` that has one of the named axes the new size:
    `sizes=model=2,data=1` (axes not named keep theirs). On a global-view
    program only (the shapes of a local view are fixed); shardings the new
    sizes no longer divide are padded later by `--weft-pad-uneven`. An
    unknown axis, a size < 1, a repeated axis or a malformed item is an
    error and changes nothing. `weftc --mesh` runs it in `weft-pipeline`
    after the training passes, so the optimizer's ZeRO-1 split is chosen on
    the declared mesh as before.
  }];
  let options = [
    Option<"sizes", "sizes", "std::string", /*default=*/"\"\"",
           "AXIS=SIZE[,AXIS=SIZE...] (empty: nothing to do)">
  ];
}

def WeftUnsharded : Pass<"weft-unsharded", "::mlir::ModuleOp"> {
  let summary = "The same program on one device (weftc --unsharded)";
  let description = [{
    Rewrites a global-view program into the same program on one device:
    every `weft.mesh` keeps its axis names with all sizes 1 and every
    `#weft.sharding` (`weft.shard` results too) becomes replicated on its
    mesh, so nothing is split or partial and each function still names the
    mesh it runs on (D9). The reference build of the tests. A local view
    is an error.
  }];
}

def WeftPropagate : Pass<"weft-propagate", "::mlir::func::FuncOp"> {
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

    4. *The global search* (`search=global`, the default; `greedy` stops
       after step 3): every op's letter map is chosen together, by dynamic
       programming over the canonical order, to minimize the estimated step
       time under a machine profile (`profile=FILE`, docs/machine-profile.md;
       default: one H100-class NVLink node): each collective's latency plus
       its bytes over the bandwidth of its axes, plus each op's compute on
       its local blocks (roofline). A reshard of a value is paid once and
       reused by later readers. The plan is exact unless a layer of the DP
       held more than `beam` states (the remark says which), and replaces
       greedy's only when cheaper. Annotated values and the layouts greedy
       gave the function's unannotated arguments and results stay fixed
       (`free-boundary` lets the search choose those too).
       `search=exhaustive` enumerates every plan instead (the tests' oracle;
       small functions only).
    5. *Pricing what is emitted* (`price-emitted`, on by default): the
       search's plan and its runner-up (greedy's plan, or the DP's when
       greedy's was kept) are each written into a copy of the function,
       partitioned and run through weft-optimize-collectives and
       weft-combine-collectives (`combine-bytes`, weftc's value), and the
       copy is priced with weft-price-local's model; the cheaper emitted
       program's plan is taken, and its price is the estimate the remark
       reports (docs/propagation.md, "Pricing what is emitted").

    Greedy ties are broken by, in order: fewer user-annotated values
    resharded, more mesh axes used (less replicated compute), then the first
    candidate in letter order. The canonical order is a depth-first post-order from the
    function's return, so the result does not depend on the textual order of
    independent ops.

    With `explain`, every op gets a remark with its letter map, where each
    split came from, and the cost of every candidate considered; the global
    search adds each alternative's change of the estimate with the rest of
    the plan held, and the function's remark its estimate against greedy's.

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
               "data:8,model:1 when data crosses nodes">,
    Option<"search", "search", "std::string", /*default=*/"\"global\"",
           "How layouts are chosen: `global` (the whole function's plan "
           "minimizing the machine model's step time, "
           "docs/propagation.md) or `greedy` (op by op, bytes only)">,
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "Machine profile JSON for the global search "
           "(docs/machine-profile.md), or builtin:gpu / builtin:cpu "
           "(default: builtin:gpu, one H100-class NVLink node)">,
    Option<"beam", "beam", "int64_t", /*default=*/"4096",
           "Most partial plans the global search keeps per op (exact when "
           "never reached; the remark says which)">,
    Option<"maxCandidates", "max-candidates", "int64_t", /*default=*/"2048",
           "Most letter maps the global search enumerates per op (the "
           "greedy map is always one)">,
    Option<"maxTransitions", "max-transitions", "int64_t",
           /*default=*/"20000000",
           "Most transitions the global search's beam DP makes per "
           "function; past it, layers keep fewer states (remark: pruned)">,
    Option<"localSearchBudget", "local-search-budget", "int64_t",
           /*default=*/"4000000",
           "Most transitions the local search after the beam may spend">,
    Option<"exhaustiveLimit", "exhaustive-limit", "int64_t",
           /*default=*/"20000000",
           "Most transitions search=exhaustive tries per function">,
    Option<"freeBoundary", "free-boundary", "bool", /*default=*/"false",
           "Let the global search choose the layouts of unannotated "
           "arguments and returned values too (by default it keeps the ones "
           "greedy propagation gives them: the function's boundary)">,
    Option<"memoryBudget", "memory-budget", "int64_t", /*default=*/"0",
           "Auto-sharding: bytes per device a plan may hold at once (every "
           "argument's block plus the blocks live at the busiest op, in "
           "program order); implies free-boundary. 0: no budget">,
    Option<"reshardAnnotated", "reshard-annotated", "bool",
           /*default=*/"false",
           "Let the global search read annotated values in another layout "
           "than their annotation (by default an op that reads an annotated "
           "value reads it as annotated, and the search says so when "
           "another layout would be much cheaper; docs/propagation.md)">,
    Option<"priceEmitted", "price-emitted", "bool", /*default=*/"true",
           "Compare the search's plan and its runner-up by the program each "
           "emits (partitioned, collectives optimized and combined, on a "
           "copy) and take the cheaper; the estimate reported is that "
           "program's price">,
    Option<"combineBytes", "combine-bytes", "int64_t", /*default=*/"1048576",
           "weft-combine-collectives' max-bytes in the emitted copy "
           "(weftc passes its --combine-bytes; 0: no combiner)">,
    Option<"combinePerCall", "combine-per-call", "bool", /*default=*/"true",
           "weft-combine-collectives' per-call in the emitted copy (weftc "
           "passes its --combine-per-call)">
  ];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftPadUneven : Pass<"weft-pad-uneven", "::mlir::func::FuncOp"> {
  let summary = "Pad the dimensions their mesh axes do not divide";
  let description = [{
    Runs between `--weft-propagate` and `--weft-partition` (weftc runs it
    always; it changes nothing when every split divides). A dimension of
    size `n` split over axes of product `k` that does not divide `n` is
    padded at its end to the next multiple of `k` (of the lcm of every
    group size splitting a dimension tied to it by a letter), so each rank
    holds a ceil-divided block and the last ranks hold the pads, as in
    XLA.

    Pads read 0 everywhere: arguments are loaded with zero pads, and an
    op whose pads could hold anything else is followed by `weft.pad_fill
    ... fill 0` (a select). Max and min reductions over a padded letter
    read their input through `weft.pad_fill` with -inf / +inf. The rules
    per op are in docs/partitioning.md ("Uneven shards").

    Arguments and results whose type changed get `weft.logical_shape`:
    the harness reads and writes that shape, so no file holds a pad.

    ```mlir
    // Before: 10 rows over 4 devices.
    func.func @f(%x: tensor<10x8xf32, #weft.sharding<@mesh, [{"data"}, {} ]>>) ...
      %e = weft.map exp "bd->bd" (%x) ...
    // After: 12 rows; exp(0) = 1 in the pads is cleared.
    func.func @f(%x: tensor<12x8xf32, ...> {weft.logical_shape = array<i64: 10, 8>}) ...
      %e = weft.map exp "bd->bd" (%x) ...
      %0 = weft.pad_fill %e valid [10, 8] fill 0.000000e+00 ...
    ```
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftPartition : Pass<"weft-partition", "::mlir::func::FuncOp"> {
  let summary = "Rewrite a propagated program into the per-rank SPMD program";
  let description = [{
    Turns the global view into the local view every rank runs (design.md
    section 6). Per op, in program order:

    1. each operand is resharded to the layout the op's letter map
       (`weft.split`) needs: the planner picks the cheapest sequence of
       local slices and collectives, starting from whichever layout of the
       value is already materialized, so a value resharded to one layout
       for several consumers is resharded once;
    2. the op computes on local shapes; a reduced letter split over axes
       leaves a partial result (a vocabulary-split `weft.embed` becomes a
       masked local lookup, `vocab on @mesh over [...]`);
    3. consumers resolve partial results as they need them: all-reduce to
       replicate, reduce-scatter to split.

    Function arguments and results get local types and keep their global
    type in the `weft.global_type` argument and result attributes. Every
    inserted collective carries `weft.reason` (the op, operand and letters
    that need it, and the layouts it goes between) and
    `weft.bytes_per_device` (ring formulas of design.md section 6).

    ```mlir
    // P1 after --weft-propagate --weft-partition:
    %0 = weft.einsum "btd,df->btf" (%arg0, %arg1) {weft.split = {f = ["model"]}}
        : (tensor<4x64x256xf32>, tensor<256x256xf32>) -> tensor<4x64x256xf32>
    %1 = weft.map relu "btf->btf" (%0) ...
    %2 = weft.einsum "btf,fd->btd" (%1, %arg2) ... -> tensor<4x64x256xf32>
    %3 = weft.all_reduce sum %2 on @mesh over ["model"]
        {weft.bytes_per_device = 393216 : i64, weft.reason = "..."} : tensor<4x64x256xf32>
    return %3 : tensor<4x64x256xf32>
    ```

    The program must have been propagated: every tensor has a sharding and
    every index-letter op a `weft.split`.
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftOptimizeCollectives : Pass<"weft-optimize-collectives",
                                   "::mlir::ModuleOp"> {
  let summary = "Fold collectives of the local view that cancel or merge";
  let description = [{
    Rewrites, to a fixed point:

    * `all_reduce` over A whose only use is `slice_shard` over A on dim d
      -> `reduce_scatter` over A on dim d (half the bytes);
    * `all_gather` over A on dim d then `slice_shard` over A on dim d, and
      `slice_shard` then `all_gather` on the same dim and axes -> the
      original value;
    * `all_reduce` over A whose only use is an `all_reduce` of the same kind
      over B -> one `all_reduce` over A then B.

    The partitioner already avoids these; the pass cleans up programs
    written or transformed by hand.
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftCombineCollectives : Pass<"weft-combine-collectives",
                                  "::mlir::ModuleOp"> {
  let summary = "Merge independent all-reduces into one (XLA's combiner)";
  let description = [{
    On the local view: all-reduces of one kind, element type, mesh and
    axes whose operands do not depend on each other's results become one
    all-reduce of their operands flattened and concatenated
    (`weft.reshape`, `weft.concat`), each result sliced back out
    (`weft.slice`). Each candidate first moves up to right after its
    operand's definition, so a group is taken in the order the operands
    come to exist (a training step's gradients: backward order, DDP's
    buckets); it is placed at its last member and closes at the first op
    that reads a member's result.
    Each collective pays a latency however small it is: the
    vocabulary-parallel cross-entropy's two sums of one value per row then
    pay it once. The combined op's `weft.bytes_per_device` is the members'
    sum (the ring formulas are linear in the bytes) and its `weft.reason`
    lists theirs.

    `max-bytes` bounds a group's operand bytes per device and skips larger
    operands (the concat and the slices copy every byte once more, which a
    saved latency pays for only on small tensors); 0 disables the pass.

    `per-call` (default on) never groups operands computed in different
    layer calls (the outermost call site of the operand's definition, as
    weft-inline-calls left it): each layer's gradients form the same
    buckets at the same point of its backward pass, so weft-outline-layers
    and the call loop compile the backward of a deep model once
    (docs/calls.md, "Buckets per call"). A program without calls is
    unchanged.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"1048576",
           "Largest total operand bytes of one combined all-reduce (0: off)">,
    Option<"perCall", "per-call", "bool", /*default=*/"true",
           "Group only operands computed in one layer call">
  ];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftRematGathers : Pass<"weft-remat-gathers", "::mlir::func::FuncOp"> {
  let summary = "Gather a weight again for its backward use (FSDP's remat)";
  let description = [{
    On the local view, before `--weft-schedule-collectives`: an
    `weft.all_gather` of a function argument (an FSDP-style weight shard)
    whose result is read, then read again after another gathered value has
    come into use (the first use of another `weft.all_gather` lies between
    the two), is cloned right before the later use, which reads the clone.
    The first copy is then released after its forward use and the clone
    lives only around the backward use: with the schedule's bound on
    all-gathers in flight, at most two gathered weights are alive at once,
    as in PyTorch FSDP (`reshard_after_forward`). Each clone repeats its
    gather's bytes; its `weft.reason` says "rematerialized" and where the
    first copy was read. Values do not change. A function that has a
    `weft.wait` already is left as it is. Off in weftc unless
    `--remat-gathers`: by default every program keeps the minimum bytes.
    docs/overlap.md.
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftScheduleCollectives : Pass<"weft-schedule-collectives",
                                   "::mlir::func::FuncOp"> {
  let summary = "Start each collective as early and wait for it as late as data allow";
  let description = [{
    On the local view: each `weft.all_reduce`, `weft.all_gather`,
    `weft.reduce_scatter` and `weft.all_to_all` of the function body moves
    up to just after the op defining its operand, the collectives starting
    in the order their operands come to exist (all-gathers in the order
    their results are needed; a static order, the same on every rank), and
    a `weft.wait` goes right before the first op reading its result.
    The collective records the compute ops between the two as
    `weft.async = N` (the comm report prints it); the runtime starts it
    asynchronously and runs those ops meanwhile. A collective whose result
    is read by the next compute op stays synchronous where it was. First,
    compute that depends on a collective and only feeds the results (a
    training step's optimizer updates) sinks to the end, in order, so the
    backward pass runs while the gradients move; and an all-gather starts no
    earlier than the previous all-gather's result is needed (at most two
    gathered weights alive, FSDP's prefetch of one). Last, an asynchronous
    reduce-scatter is waited for before the next reduce-scatter starts, and
    the sunk ops reading its result (the update of that gradient shard)
    move right after the wait. A function that has a `weft.wait` already is
    left as it is. The values computed do not change
    (test/e2e/schedule-bitwise.test); docs/overlap.md.
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftFuseRows : Pass<"weft-fuse-rows", "::mlir::func::FuncOp"> {
  let summary = "Fuse softmax and norms (maps and row reductions) into weft.fused_rows";
  let description = [{
    On the local view (after partitioning: collectives are never fused
    away, the comm report does not change), each `weft.reduce` over the
    trailing letters of its input seeds a group over that index space
    (kept letters, then row letters). The group grows

    * downward while the current output's every use is one `weft.map` of
      the space reading it whole (softmax's divide; a norm's rsqrt chain
      and its multiply), then
    * upward, breadth-first, over the `weft.map` and `weft.reduce`
      producing a member's operand when every use of the producer is a
      member reading its whole value in the space's order (softmax's exp,
      read by the sum and the divide; the max reduction; a norm's square).

    Exactly one value, the group's output, is used outside it, so nothing
    is computed twice. Operands are kept when they hold all the row
    letters, trailing and in order, or none (a bias `d` of rows `d` is an
    operand; a transposed one is not and leaves the group unfused). A
    group of two or more ops within 8 operands and 16 steps becomes one
    `weft.fused_rows` at the output's position. Results are bit-identical
    to the unfused program (same per-element math, same reduction order).
    weftc runs it before `--weft-fuse-elementwise` (`--fuse`).
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftFuseEpilogues : Pass<"weft-fuse-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Fold a bias add, an activation, a scale and a residual add "
                "into the producing einsum (weft.fused_einsum)";
  let description = [{
    On the local view: a `weft.einsum` of two f32 operands absorbs the
    `weft.map` that is the only use of its result, and then of that map's
    result, and so on, while each map is the next of these stages, in this
    order (each optional, each at most once):

    1. a bias: `add` of the value and an operand holding only the result's
       last letter (one value per column, broadcast along the rows);
    2. an activation: `relu`, `gelu`, `tanh`, `silu` or `sigmoid`;
    3. `scale`;
    4. a residual: `add` of the value and an operand with the result's
       letters in the result's order.

    Every absorbed map reads the value whole, in the result's letter order.
    The einsum and its maps become one `weft.fused_einsum` at the last
    map's position; the CPU runs it as one oneDNN matmul with a bias and
    post-ops (eltwise, linear, sum). The fused result may differ from the
    unfused one by rounding (oneDNN's own activation formulas); the
    interpreter evaluates the op unfused. weftc runs the pass before
    `--weft-fuse-rows` (`--fuse-epilogues`, on by default).
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftFuseElementwise : Pass<"weft-fuse-elementwise",
                               "::mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise maps into weft.fused_map";
  let description = [{
    On the local view (after partitioning, so collectives are never fused
    away and the comm report does not change): each `weft.map` is the root
    of a group that absorbs, recursively, the `weft.map` producing one of
    its operands when

    * every use of that producer is by a member of the group (fusing
      never computes a value twice),
    * the operand spans the consumer's whole index space in the
      consumer's result order (the producer then runs over the same
      elements; a broadcast operand, such as a bias `d` of `btd`, stays an
      operand of the fused op: computing it per output element would
      repeat its work),
    * the group stays within 8 operands and 16 steps (the runtime's
      kernel limits; producers are taken breadth-first from the root and
      the last taken are dropped first),
    * and moving the producer to the root does not raise the peak memory:
      the operands whose lives it extends past an op outside the group
      that allocates hold at most its result's bytes and a sixteenth
      (docs/fusion.md, "Lifetimes").

    A group of two or more maps becomes one `weft.fused_map` at the root's
    position. Never fused: reductions, einsums, collectives and the index
    ops (they are not elementwise). Results are bit-identical to the
    unfused program: every step is rounded to the element type as the
    unfused map stores it. weftc runs the pass before lowering (`--fuse`,
    on by default); `--emit=local` shows the program before it.
  }];
  let dependentDialects = ["::mlir::weft::WeftDialect"];
}

def WeftCommReport : Pass<"weft-comm-report", "::mlir::ModuleOp"> {
  let summary = "Report every collective of a partitioned program";
  let description = [{
    Prints one entry per collective of the local view: kind, mesh axes,
    local elements of its operand, bytes each device sends
    (`bytes_per_device`, ring formulas of design.md section 6) and the
    reason the partitioner recorded; then totals per axis and
    `total_bytes_per_device`. In a program with layer calls (the module's
    `weft.call_sites`, written by weft-inline-calls), the collectives are
    then tallied by call (an op inlined from a call counts for the
    outermost call it came through, forward and backward: autodiff gives a
    backward op its forward op's location), by function called, and
    outside calls (docs/calls.md, "Reports by call"); a program without
    calls gets none of these lines. A human table by default, JSON with
    `json` (each collective's `call` and `callee`; `by_call`, `by_callee`,
    `outside_calls`):

    ```
    weft-opt --weft-propagate --weft-partition --weft-comm-report=json p1.mlir -o /dev/null
    ```

    The report goes to standard output unless `output` names a file; use
    `-o` for the IR.
  }];
  let options = [
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "The machine profile that priced the plan, printed with the "
           "totals (weftc and weft-pipeline set it; empty: not printed)">,
    Option<"json", "json", "bool", /*default=*/"false",
           "Print JSON instead of a table">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the report ('-' for standard output)">
  ];
}

def WeftPriceLocal : Pass<"weft-price-local", "::mlir::ModuleOp"> {
  let summary = "Price a local program with the global search's cost model";
  let description = [{
    Applies the objective weft-propagate's global search minimizes to the
    program as emitted (after weft-partition and the collective passes):
    per function, the roofline seconds of every op with a sharding rule on
    its local blocks plus, per collective that communicates, the profile's
    latency and bytes per device over bandwidth (ring formulas, as
    weft-comm-report counts them). One line per function:

    ```
    weft-price-local: @f: 12 op(s) 1.5e-05 s, 3 collective(s) 2.1e-05 s, total 3.600000000e-05 s
    ```

    test/Pipeline/price-emitted.test compares it with the search's
    estimate of the plan it took (docs/propagation.md, "Pricing what is
    emitted").
  }];
  let options = [
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "Machine profile JSON, or builtin:cpu / builtin:gpu (empty: the "
           "GPU default, as weft-propagate's)">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the prices ('-' for standard output)">
  ];
}

def WeftShowSharding : Pass<"weft-show-sharding", "::mlir::ModuleOp"> {
  let summary = "Show which device holds which block of each input and output";
  let description = [{
    For every input and output of the module's public functions (or only
    those whose `weft.name` is listed in `values`), prints the tensor's
    shape, element type and layout, then a grid of its blocks: each cell
    names the devices that hold the block and its index range, as
    `jax.debug.visualize_array_sharding` and the Python front end's
    `weft.visualize_sharding` draw them (a rank-1 tensor is one row; other
    ranks get one line per block). Ranks are row-major on the mesh, the last
    axis fastest; a dimension split over axes that do not divide it has
    ceil-sized blocks, the last ones shorter or empty. A partial value adds
    a line saying over which axes its blocks are summands. Run it after
    weft-propagate (`weftc --show-sharding`) to see the plan's layouts:

    ```
    weft-opt --weft-propagate --weft-show-sharding p1.mlir -o /dev/null
    ```

    (docs/propagation.md, "Seeing the layouts", shows its output.)

    The view goes to standard output unless `output` names a file. A name in
    `values` that no input or output has is an error.
  }];
  let options = [
    ListOption<"values", "values", "std::string",
               "Show only the inputs and outputs with these weft.name's">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the view ('-' for standard output)">
  ];
}

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_PASSES_TD

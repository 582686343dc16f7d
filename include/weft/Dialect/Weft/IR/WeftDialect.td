//===- WeftDialect.td - The weft dialect -------------------*- tablegen -*-===//
//
// The weft dialect: index-letter (einsum-style) compute ops over tensors whose
// types carry a sharding over a named device mesh, and the collectives of the
// per-rank (local) view.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTDIALECT_TD
#define WEFT_DIALECT_WEFT_IR_WEFTDIALECT_TD

include "mlir/IR/OpBase.td"

def Weft_Dialect : Dialect {
  let name = "weft";
  let cppNamespace = "::mlir::weft";
  let summary = "An SPMD partitioner's dialect: einsum graphs over a device mesh";
  let description = [{
    A weft program is written for one big logical device. Every compute op
    names the dimensions of its operands and result with letters, einsum
    style, and tensor types may carry a `#weft.sharding` encoding that says
    how each dimension is split over the axes of a `weft.mesh`.

    The dialect has two views of a program:

    * the *global view* (`weft.einsum`, `weft.map`, `weft.reduce`,
      `weft.embed`, `weft.shard`) on global shapes, annotated with shardings;
    * the *local view*, the per-rank SPMD program: the same compute ops on
      local shapes, plus the collectives `weft.all_reduce`,
      `weft.all_gather`, `weft.reduce_scatter`, `weft.all_to_all` and the
      communication-free `weft.slice_shard`.

    ### Attributes on functions and ops

    The passes and tools exchange these discardable attributes (declared
    in the dialect's ODS; each has a typed helper such as
    `WeftDialect::NameAttrHelper`). Those with a verifier are checked
    wherever they appear, so a bad value is an error at its op.

    | attribute | on | type | meaning |
    |---|---|---|---|
    | `weft.global_type` | argument, result | type | of a partitioned function: the global tensor type with its `#weft.sharding` (verified: same element type and rank, each dimension a multiple of the local one) |
    | `weft.name` | argument, result, op | string | the SSA name of the source, which names the program's .npy files |
    | `weft.split` | op | dictionary | on a partitioned compute op: letter -> the axes it is split over |
    | `weft.reason` | op | string | on an inserted collective: why it is there |
    | `weft.bytes_per_device` | op | integer | on an inserted collective: its ring bytes per device |
    | `weft.param` | argument | unit | a trained parameter (`--weft-autodiff`) |
    | `weft.grad_of` | result | integer | the gradient of argument i |
    | `weft.state_of` | argument | integer | of a training step: optimizer state of the parameter argument i (`--weft-optimizer`) |
    | `weft.hyperparam` | argument | string | of a training step: `"step"` (the 1-based step count), `"lr"` (the learning rate) or `"loss_scale"` (dynamic loss scaling), rank-0 values the harness supplies every step |
    | `weft.updates` | result | integer | of a training step: the new value of argument i (donated: the harness feeds it back) |
    | `weft.optimizer` | function | dictionary | of a training step: the optimizer and its compile-time hyperparameters (kind, lr, beta1 ...) |
    | `weft.micro_batch` | argument | integer | `--weft-accumulate`: this data argument is micro-batch k of the input of its `weft.name` |
    | `weft.logical_shape` | argument, result | `array<i64>` | `--weft-pad-uneven`: the shape before padding (verified: one size per dimension, each in [1, padded size]) |
    | `weft.vocab_size` | op | integer | on a block-indexed op whose vocabulary was padded: the valid ids are [0, n) (verified: in [1, the op's vocabulary]) |
    | `weft.loss_seed` | op | unit | dynamic loss scaling: the seed of the backward, d loss / d loss (`--weft-autodiff`; one per micro-batch after `--weft-accumulate`), which `--weft-precision=policy=f16-mixed` replaces by the `loss_scale` input (verified: only on a rank-0 float `weft.constant` of value 1.0) |
    | `weft.vjp_of` | function | symbol | of a declaration: its body is the vector-Jacobian product of the named function (`weft-inline-calls` writes it; docs/pipeline.md) |
    | `weft.remat` | `func.call` | unit | activation checkpointing: recompute this call's layer in the backward pass (docs/calls.md, "Rematerialization") |
    | `weft.remat_group` | op | integer | `weft-inline-calls`: the op was inlined from the marked call N; `weft-remat` recomputes the group and removes the mark |
    | `weft.recomputed` | op | unit | `weft-remat`: a copy of a layer's op run again in the backward pass (the lowering labels it `[recomputed]`) |
    | `weft.finite_grads` | result | unit | dynamic loss scaling: the result that is 1 where every gradient of the step is finite and 0 where one is not (`--weft-optimizer`; the harness skips the update of a step that overflowed) (verified: only on a function result, a rank-0 float tensor) |
  }];
  let useDefaultAttributePrinterParser = 1;
  // The side attributes the passes and tools exchange, with typed helpers
  // (`WeftDialect::GlobalTypeAttrHelper` ...): the one place each is named.
  // The description's table documents each (docs/generated/WeftDialect.md);
  // the verifiers are in GlobalTypeVerification.cpp and
  // OperationAttrVerification.cpp.
  let discardableAttrs = (ins
    "::mlir::TypeAttr":$global_type,
    "::mlir::StringAttr":$name,
    "::mlir::DictionaryAttr":$split,
    "::mlir::StringAttr":$reason,
    "::mlir::IntegerAttr":$bytes_per_device,
    "::mlir::UnitAttr":$param,
    "::mlir::IntegerAttr":$grad_of,
    "::mlir::IntegerAttr":$state_of,
    "::mlir::StringAttr":$hyperparam,
    "::mlir::IntegerAttr":$updates,
    "::mlir::DictionaryAttr":$optimizer,
    "::mlir::IntegerAttr":$micro_batch,
    "::mlir::DenseI64ArrayAttr":$logical_shape,
    "::mlir::IntegerAttr":$vocab_size,
    "::mlir::FlatSymbolRefAttr":$vjp_of,
    "::mlir::UnitAttr":$loss_seed,
    "::mlir::UnitAttr":$finite_grads
  );
  // `weft.global_type` on the arguments and results of partitioned functions.
  let hasRegionArgAttrVerify = 1;
  // `weft.vocab_size` on the ops that carry it (OperationAttrVerification.cpp).
  let hasOperationAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Defined beside the attributes, where their storage is complete.
    void registerAttributes();
  }];
}

#endif // WEFT_DIALECT_WEFT_IR_WEFTDIALECT_TD

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
  }];
  let useDefaultAttributePrinterParser = 1;
  // The side attributes the passes and tools exchange, with typed helpers
  // (`WeftDialect::GlobalTypeAttrHelper` ...): the one place each is named.
  //   global_type       arg/result attr of a partitioned function: the global
  //                     tensor type with its #weft.sharding
  //   name              arg/result attr (and op attr): the SSA name of the
  //                     source, which names the program's .npy files
  //   split             on a partitioned compute op: letter -> axes it is
  //                     split over
  //   reason            on an inserted collective: why it is there
  //   bytes_per_device  on an inserted collective: its ring bytes per device
  //   param             arg attr: a trained parameter (--weft-autodiff)
  //   grad_of           result attr: the gradient of argument i
  //   state_of          arg attr of a training step: optimizer state of
  //                     the parameter argument i (--weft-optimizer)
  //   hyperparam        arg attr of a training step: "step" (the 1-based
  //                     step count) or "lr" (the learning rate), rank-0
  //                     values the harness supplies every step
  //   updates           result attr of a training step: the new value of
  //                     argument i (donated: the harness feeds it back)
  //   optimizer         func attr of a training step: the optimizer and its
  //                     compile-time hyperparameters (kind, lr, beta1 ...)
  //   micro_batch       arg attr (--weft-accumulate): this data argument is
  //                     micro-batch k of the input of its weft.name
  //   vjp_of            func attr of a declaration: its body is the
  //                     vector-Jacobian product of the named function
  //                     (weft-inline-calls writes it; docs/pipeline.md)
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
    "::mlir::FlatSymbolRefAttr":$vjp_of
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

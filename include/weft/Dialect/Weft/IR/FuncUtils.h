//===- FuncUtils.h - The one definition of per-function facts ---*- C++ -*-===//
//
// Every pass, the interpreter, the lowering and weftc answer these questions
// through this header, so each has one answer: the side attributes of a
// function's signature, whether a function is in the local view, which mesh
// a function runs on, and which function a tool works on.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_FUNCUTILS_H
#define WEFT_DIALECT_WEFT_IR_FUNCUTILS_H

#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::weft {

//===--- Side attributes of a signature ----------------------------------===//
// Names come from the dialect's ODS (`discardableAttrs`).

/// On a collective: started asynchronously, with this many compute ops
/// before its weft.wait (--weft-schedule-collectives).
inline constexpr llvm::StringLiteral kAsyncAttr = "weft.async";
/// The prefix of the name location (`NameLoc`) --weft-optimizer gives one
/// parameter's update ops, "weft.update <argument #>": weft-outline-layers
/// outlines equal updates as it does equal layer calls (docs/calls.md).
inline constexpr llvm::StringLiteral kUpdateLocPrefix = "weft.update ";
inline constexpr llvm::StringLiteral kGlobalTypeAttr =
    WeftDialect::GlobalTypeAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kNameAttr =
    WeftDialect::NameAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kSplitAttr =
    WeftDialect::SplitAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kReasonAttr =
    WeftDialect::ReasonAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kBytesPerDeviceAttr =
    WeftDialect::BytesPerDeviceAttrHelper::getNameStr();
/// Activation checkpointing (docs/calls.md, "Rematerialization"): a call
/// marked `weft.remat`, the group weft-inline-calls gives the ops inlined
/// from it, and the copies weft-remat recomputes in the backward pass.
inline constexpr llvm::StringLiteral kRematAttr = "weft.remat";
inline constexpr llvm::StringLiteral kRematGroupAttr = "weft.remat_group";
inline constexpr llvm::StringLiteral kRecomputedAttr = "weft.recomputed";
/// Pipeline stages from layer calls (docs/pipeline.md, "Stages from layer
/// calls"): `weft.stage = s` on a call puts it on stage s.
inline constexpr llvm::StringLiteral kStageAttr = "weft.stage";
/// weft-inline-calls records on the module which function each inlined
/// call called, for the reports by call (docs/calls.md, "Reports by
/// call"): `weft.call_sites = {layer = ["m.mlir:33:8", ...]}`, each call by
/// callSiteKey of its location.
inline constexpr llvm::StringLiteral kCallSitesAttr = "weft.call_sites";
/// `weft.param` marks an argument as a trained parameter (--weft-autodiff);
/// `weft.grad_of = i` marks a result as the gradient of argument `i`.
inline constexpr llvm::StringLiteral kParamAttr =
    WeftDialect::ParamAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kGradOfAttr =
    WeftDialect::GradOfAttrHelper::getNameStr();
/// A training step (--weft-optimizer): `weft.state_of = i` marks an
/// optimizer-state argument of parameter argument `i`, `weft.hyperparam`
/// the "step" and "lr" arguments, `weft.updates = i` a result that is the
/// new value of argument `i`, and `weft.optimizer` (on the function) the
/// optimizer's name and compile-time hyperparameters.
inline constexpr llvm::StringLiteral kStateOfAttr =
    WeftDialect::StateOfAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kHyperparamAttr =
    WeftDialect::HyperparamAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kUpdatesAttr =
    WeftDialect::UpdatesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kOptimizerAttr =
    WeftDialect::OptimizerAttrHelper::getNameStr();
/// `weft.micro_batch = k` (--weft-accumulate): the argument is micro-batch
/// k of the data input named by its `weft.name` (shared by its copies).
inline constexpr llvm::StringLiteral kMicroBatchAttr =
    WeftDialect::MicroBatchAttrHelper::getNameStr();

/// `weft.logical_shape = array<i64: ...>` (--weft-pad-uneven): the
/// argument's or result's shape before padding; its global type is padded
/// at the end of the dimensions that differ. Files hold the logical shape.
inline constexpr llvm::StringLiteral kLogicalShapeAttr =
    WeftDialect::LogicalShapeAttrHelper::getNameStr();

/// `weft.vocab_size = n` on an embed, scatter_add or one_hot whose
/// vocabulary --weft-pad-uneven padded: the valid ids are [0, n).
inline constexpr llvm::StringLiteral kVocabSizeAttr =
    WeftDialect::VocabSizeAttrHelper::getNameStr();
/// The global extent of a block-indexed op's block letter (its vocabulary,
/// pads included): the local size times the group size of its block axes
/// in the local view, saturating at INT64_MAX; the local size when the
/// mesh or an axis is unknown.
int64_t getGlobalBlockSize(BlockIndexedOpInterface op);

/// The `weft.global_type` of argument / result `i` (null: none).
TypeAttr getArgGlobalType(func::FuncOp func, unsigned i);
TypeAttr getResultGlobalType(func::FuncOp func, unsigned i);
void setArgGlobalType(func::FuncOp func, unsigned i, Type global);
void setResultGlobalType(func::FuncOp func, unsigned i, Type global);

/// The `weft.name` of argument / result `i` (null: none).
StringAttr getArgName(func::FuncOp func, unsigned i);
/// The `weft.name` of argument `i`, or "arg<i>" when it has none (the name
/// passes derive others from: grad_<name>, m_<name>, new_<name>).
std::string getArgNameOr(func::FuncOp func, unsigned i);
StringAttr getResultName(func::FuncOp func, unsigned i);
void setArgName(func::FuncOp func, unsigned i, StringRef name);
void setResultName(func::FuncOp func, unsigned i, StringRef name);

//===--- Calls flattened by weft-inline-calls -------------------------===//

/// The key of a call's location in weft.call_sites: `file:line:col` for a
/// file location (seen through names), else the location as printed.
std::string callSiteKey(Location loc);
/// The call an op was inlined from: the caller of its location's outermost
/// call site (seen through names, and through a fused location's first
/// part that has one), or null for an op written in its function.
LocationAttr outermostCallSite(Location loc);
/// weft.call_sites read back: callSiteKey -> callee name (empty when the
/// module has none, or it is malformed).
llvm::StringMap<std::string> readCallSites(ModuleOp module);

//===--- Views
//-------------------------------------------------------------===//

/// Whether `op` exists only in the local view: a collective,
/// weft.slice_shard, or a weft.embed with a vocabulary mesh.
bool isLocalViewOp(Operation *op);
/// Whether any argument or result of `func` carries a `weft.global_type`.
bool hasGlobalTypes(func::FuncOp func);
/// Whether `func` is in the local (per-rank) view: it has global types or
/// holds a local-view op (isLocalViewOp).
bool isLocalView(func::FuncOp func);
/// Whether any function of `module` is in the local view.
bool isLocalView(ModuleOp module);
/// Fails with an error naming `pass` when `func` is in the local view: on
/// its first local-view op, else on the function (weft.global_type).
LogicalResult verifyGlobalView(func::FuncOp func, StringRef pass);

//===--- The mesh of a function
//--------------------------------------------===//

/// The mesh `func` runs on. One rule for every tool: the mesh named by its
/// shardings (argument, result and value types, `weft.global_type`s) and by
/// its local-view ops' `mesh` attributes, which must all name one mesh;
/// with none named, the module's only mesh; with none named and several or
/// no meshes in the module, a null MeshOp (nothing is sharded). Emits an
/// error (with a note at the first naming) and fails when two meshes are
/// named or the named mesh does not exist.
FailureOr<MeshOp> getFunctionMesh(func::FuncOp func,
                                  SymbolTableCollection &tables);
/// The meshes `module` declares, in order.
SmallVector<Mesh> getModuleMeshes(ModuleOp module);

//===--- Function selection
//------------------------------------------------===//

/// The function a tool works on: the one named `entry` (a declaration too:
/// the caller says why it cannot use one), or (with an empty `entry`) the
/// module's only function with a body, or its only public function with a
/// body when the others are private (layers it calls). Emits an error on the
/// module naming `what` (the tool or pass), the candidates and `option`
/// (how to choose one, e.g. "--entry NAME"), and fails otherwise.
FailureOr<func::FuncOp> selectFunction(ModuleOp module, StringRef entry,
                                       StringRef what, StringRef option);

//===--- Schedules on the local view
//---------------------------------------===//

/// The op of `body` that is or contains `op` (null for a null `op`, e.g.
/// the defining op of a block argument): Block::findAncestorOpInBlock.
inline Operation *ancestorInBlock(Block &body, Operation *op) {
  return op ? body.findAncestorOpInBlock(*op) : nullptr;
}
/// Whether `body` was scheduled (it holds a weft.wait): the passes that
/// order collectives (--weft-remat-gathers, --weft-schedule-collectives)
/// leave such a body as it is.
inline bool isScheduled(Block &body) {
  return llvm::any_of(body, [](Operation &op) { return isa<WaitOp>(op); });
}
/// The body of `func` those passes may reorder: null for an external
/// function or a scheduled body (by a pass or by hand), whose order they
/// keep, which also makes them idempotent.
inline Block *unscheduledBody(func::FuncOp func) {
  if (func.isExternal())
    return nullptr;
  Block &body = func.getBody().front();
  return isScheduled(body) ? nullptr : &body;
}

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_FUNCUTILS_H

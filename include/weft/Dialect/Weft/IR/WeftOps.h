//===- WeftOps.h - weft operations ------------------------------*- C++ -*-===//

#ifndef WEFT_DIALECT_WEFT_IR_WEFTOPS_H
#define WEFT_DIALECT_WEFT_IR_WEFTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftDialect.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::weft {
/// The letters of each operand, then of the result, of an index-letter
/// spec (ShardingRuleOpInterface's default); empty if it does not parse
/// (the verifier reports that).
llvm::SmallVector<std::string, 3> lettersOfSpec(llvm::StringRef spec);
/// One placeholder letter per dimension of a ranked tensor type (a, b, ...,
/// then A, B, ...): the letters of ops without a spec (weft.shard,
/// weft.constant) and of element-wise sums built by passes.
std::string placeholderLetters(Type type);

/// What --weft-partition offers an op's PartitionOpInterface::partition
/// (PartitionContext.h).
class PartitionContext;
/// PartitionOpInterface's default: the letter-map rule of the index-letter
/// ops (WeftPartition.cpp).
::llvm::LogicalResult partitionByLetters(Operation *op,
                                         PartitionContext &context);
/// PadOpInterface::padsNeedZeroing's default: a padded result letter that
/// some operand lacks (a broadcast) may read other than 0 (WeftPadding.cpp).
bool padsNeedZeroingByLetters(Operation *op, ::llvm::ArrayRef<char> letters);
} // namespace mlir::weft

namespace mlir::weft {
class MapOp;
/// The softmax rule (docs/autodiff.md, "Softmax"): when `div` is the
/// normalization p = e / s of a softmax (e = weft.map exp of z with the
/// same letters; s = weft.reduce sum of e, spec "A->B"; div "A,B->A"),
/// builds dL/dz = p * (gp - sum_{A-B}(gp * p)) from dL/dp = `gp` and
/// returns (z, dL/dz); p alone is read, so the forward's exp and sum have
/// no use in the backward and fuse into one row pass. None otherwise (the
/// div's own rule applies). WeftGradients.cpp.
std::optional<std::pair<Value, Value>>
buildSoftmaxGradient(OpBuilder &b, MapOp div, Value gp);
} // namespace mlir::weft

#include "weft/Dialect/Weft/IR/WeftInterfaces.h.inc"

namespace mlir::weft {
/// Marks the ops of the local (per-rank) view only: the collectives and
/// weft.slice_shard.
template <typename ConcreteType>
class LocalViewOnly
    : public ::mlir::OpTrait::TraitBase<ConcreteType, LocalViewOnly> {};
/// Marks the op that completes an asynchronous collective (weft.wait).
template <typename ConcreteType>
class CompletesCollective
    : public ::mlir::OpTrait::TraitBase<ConcreteType, CompletesCollective> {};
} // namespace mlir::weft

#define GET_OP_CLASSES
#include "weft/Dialect/Weft/IR/WeftOps.h.inc"

#endif // WEFT_DIALECT_WEFT_IR_WEFTOPS_H

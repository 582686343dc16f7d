//===- PartitionContext.h - what weft-partition offers an op ----*- C++ -*-===//
//
// --weft-partition walks the global view in program order and asks each op
// for its local form (PartitionOpInterface::partition). The pass owns the
// map from global values to their local versions, the resharding between
// layouts and the letter maps propagation recorded; an op reaches them
// through this interface, so the op's own file holds everything particular
// to it and the pass holds nothing particular to any op (the same split as
// upstream MLIR's ShardingInterface::partition).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_PARTITIONCONTEXT_H
#define WEFT_DIALECT_WEFT_IR_PARTITIONCONTEXT_H

#include "weft/Dialect/Weft/IR/MeshLayout.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::weft {

class PartitionContext {
public:
  virtual ~PartitionContext() = default;

  /// Where local ops are built (its insertion point is the caller's to
  /// set).
  virtual OpBuilder &getBuilder() = 0;
  /// The mesh of the function being partitioned.
  virtual const Mesh &getMesh() = 0;
  /// The global type of `global` (the pass retypes values in place).
  virtual RankedTensorType getGlobalType(Value global) = 0;
  /// How messages and `weft.reason`s name `op` ("weft.cumsum at line 4").
  virtual std::string describe(Operation *op) = 0;

  /// The local value of `global` in `layout`, resharded before `user` from
  /// the cheapest version at hand when none has it. `why` starts each
  /// inserted collective's `weft.reason`; called only when one is
  /// inserted. Fails with an error at `user`.
  virtual FailureOr<Value> getAs(Value global, const Layout &layout,
                                 Operation *user,
                                 llvm::function_ref<std::string()> why) = 0;
  /// Records `local` as `global` in `layout` (one of its versions).
  virtual void setLocal(Value global, const Layout &layout, Value local) = 0;

  /// The axes `weft.split` (propagation's letter map) splits `letter` of
  /// `op` over; empty when the letter is whole. `op` has a valid map (the
  /// pass checked).
  virtual AxisList getSplitAxes(Operation *op, char letter) = 0;
  /// The layout tensor `i` of `op` (operands, then the result) has under
  /// its letter map, with the letters of `whole` computed whole.
  virtual Layout getRequiredLayout(Operation *op, unsigned i,
                                   ArrayRef<char> whole = {}) = 0;
  /// A slot, per function, for a value several ops share (weft.top_k's
  /// gathered candidates of one input, keyed by the local input, the
  /// dimension and the count per block); null until set.
  virtual Value &getShared(StringRef what, const void *key, int64_t a,
                           int64_t b) = 0;

  /// The letter-map rule: reads every operand of `op` in the layout its
  /// letter map requires (an operand the op accepts partial stays
  /// partial) and retypes `op` in place to the local shapes. Returns the
  /// layout the result is computed in. Records nothing.
  virtual FailureOr<Layout> partitionInPlace(Operation *op) = 0;
};

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_PARTITIONCONTEXT_H

//===- IdBound.h - The bound of random embedding ids ------------*- C++ -*-===//
//
// Random i32 inputs are embedding ids; they are drawn in [0, bound) with one
// bound, defined here, for every tool that draws them: weft-interp (global
// and local view) and the lowering (the `intBound` of a compiled program's
// input), so the interpreter and a compiled run draw from the same range.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_IDBOUND_H
#define WEFT_DIALECT_WEFT_IR_IDBOUND_H

#include <cstdint>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::weft {

/// The bound of the ids of an i32 input that no weft.embed looks up.
inline constexpr int64_t kDefaultIdBound = 16;

/// The bound of the random ids of argument `argIndex` of `func`: the
/// vocabulary of the smallest table a weft.embed looks the argument up in
/// (or the smallest vocabulary of a weft.scatter_add or weft.one_hot),
/// so that every lookup is valid. The argument's values are followed
/// through weft.shard (global view) and the collectives (local view), which
/// move them unchanged. A local `vocab on @mesh over [axes]` table holds one
/// block: its vocabulary is its rows times the group size of `axes`.
/// kDefaultIdBound when no embed uses the argument (or `func` has no body).
int64_t getIdBound(func::FuncOp func, unsigned argIndex);

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_IDBOUND_H

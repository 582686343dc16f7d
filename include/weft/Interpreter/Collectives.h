//===- Collectives.h - exact semantics of the local-view ops ----*- C++ -*-===//
//
// Each function takes the value of every rank (indexed by rank) and returns
// the value every rank holds afterwards. Groups and group order follow
// Mesh::getGroup: ranks agreeing on the coordinates not in `axes`, ordered
// row-major over `axes` in the listed order.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_COLLECTIVES_H
#define WEFT_INTERPRETER_COLLECTIVES_H

#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Interpreter/Tensor.h"

#include <vector>

namespace mlir::weft::interp {

using PerRank = std::vector<Tensor>;

/// Every rank gets the reduction of its group's values (combined in group
/// order).
PerRank allReduce(const Mesh &mesh, ArrayRef<StringRef> axes,
                  ReductionKind kind, const PerRank &in);

/// Every rank gets the concatenation along `dim` of its group's values, in
/// group order.
PerRank allGather(const Mesh &mesh, ArrayRef<StringRef> axes, unsigned dim,
                  const PerRank &in);

/// Group position `i` gets block `i` (of group-size blocks along `dim`) of
/// the reduction of its group's values.
PerRank reduceScatter(const Mesh &mesh, ArrayRef<StringRef> axes,
                      ReductionKind kind, unsigned dim, const PerRank &in);

/// Each rank splits its value along `splitDim` into group-size blocks and
/// sends block `j` to group position `j`; each rank concatenates what it
/// receives along `concatDim`, in group order.
PerRank allToAll(const Mesh &mesh, ArrayRef<StringRef> axes, unsigned splitDim,
                 unsigned concatDim, const PerRank &in);

/// Group position `i` keeps block `i` of group-size blocks along `dim`.
PerRank sliceShard(const Mesh &mesh, ArrayRef<StringRef> axes, unsigned dim,
                   const PerRank &in);

//===--- Root collectives (issue 33): `root` is a group position ----------===//

/// Every rank gets its group's root's value.
PerRank broadcast(const Mesh &mesh, ArrayRef<StringRef> axes, int64_t root,
                  const PerRank &in);

/// The root gets the reduction of its group's values (combined in group
/// order); every other rank gets zeros.
PerRank reduceTo(const Mesh &mesh, ArrayRef<StringRef> axes, ReductionKind kind,
                 int64_t root, const PerRank &in);

/// The root gets the concatenation along `dim` of its group's values, in
/// group order; every other rank gets zeros of that shape.
PerRank gatherTo(const Mesh &mesh, ArrayRef<StringRef> axes, unsigned dim,
                 int64_t root, const PerRank &in);

/// Group position `i` gets block `i` (of group-size blocks along `dim`) of
/// its group's root's value.
PerRank scatterFrom(const Mesh &mesh, ArrayRef<StringRef> axes, unsigned dim,
                    int64_t root, const PerRank &in);

/// weft.collective_permute: the rank at group position `t` of a pair
/// (s, t) gets the value of position `s`; a rank that is no target gets
/// zeros.
PerRank collectivePermute(const Mesh &mesh, ArrayRef<StringRef> axes,
                          ArrayRef<std::pair<int64_t, int64_t>> pairs,
                          const PerRank &in);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_COLLECTIVES_H

//===- CollectivePlan.h - Rank groups, counts and packing -------*- C++ -*-===//
//
// A collective over axes A runs inside each group of ranks that agree on
// every coordinate not in A; a rank's position in its group is the row-major
// index of its coordinates over A in the listed order. Both backends build
// communicators from GroupPlan (color/key for MPI_Comm_split and
// ncclCommSplit) and pack with the CopyPlans below.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_COLLECTIVEPLAN_H
#define WEFT_RT_COLLECTIVEPLAN_H

#include "weft/rt/CopyPlan.h"
#include "weft/rt/Kinds.h"
#include "weft/rt/Mesh.h"

#include <vector>

namespace weft::rt {

struct GroupPlan {
  AxisList axes;
  int64_t size = 1;             // ranks in the group
  int64_t position = 0;         // this rank's position (split key)
  int64_t color = 0;            // row-major index over the axes not listed
  std::vector<int64_t> members; // world ranks, by position
};

GroupPlan planGroup(const Mesh &mesh, const AxisList &axes, int64_t rank);

/// A collective on a (possibly non-leading) dim, as contiguous per-rank
/// chunks plus the copies around the communication call.
struct CollectivePlan {
  CollectiveKind kind = CollectiveKind::AllReduce;
  int64_t groupSize = 1;
  int64_t chunkElements = 0; // elements per rank chunk of the comm buffer
  bool packInput = false;    // input -> send buffer through `pack`
  bool unpackOutput = false; // recv buffer -> output through `unpack`
  CopyPlan pack, unpack;
  Shape inShape, outShape;
};

/// all_gather on `dim`: out dim = p * in dim; chunk q comes from position q.
CollectivePlan planAllGather(const Shape &inShape, int dim, int64_t p);
/// reduce_scatter on `dim`: out dim = in dim / p; keeps chunk `position`.
CollectivePlan planReduceScatter(const Shape &inShape, int dim, int64_t p);
/// all_to_all: split `splitDim` into p chunks (chunk q goes to position q),
/// concatenate the received chunks along `concatDim` by sender position.
CollectivePlan planAllToAll(const Shape &inShape, int splitDim, int concatDim,
                            int64_t p);

/// Bytes one device sends on a ring of p ranks (design.md section 6):
/// all-reduce 2(p-1)/p N, all-gather (p-1)/p N with N the gathered
/// result's bytes, reduce-scatter (p-1)/p N with N the input's bytes,
/// all-to-all (p-1)/p of the local bytes. The root collectives, through
/// the busiest link: broadcast and reduce_to N (the value), gather_to
/// (p-1)/p N with N the gathered result's bytes, scatter_from (p-1)/p N
/// with N the root's input bytes. collective_permute: N, the operand (a
/// rank that sends; the IR op says 0 when no pair crosses ranks).
double ringBytes(CollectiveKind kind, int64_t p, double bytesN);

} // namespace weft::rt

#endif // WEFT_RT_COLLECTIVEPLAN_H

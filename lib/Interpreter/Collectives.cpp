//===- Collectives.cpp - exact semantics of the local-view ops ------------===//

#include "weft/Interpreter/Collectives.h"
#include "weft/Interpreter/Layout.h"

#include <cassert>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

/// The reduction of the values of `rank`'s group, in group order.
static Tensor reduceGroup(const Mesh &mesh, ArrayRef<StringRef> axes,
                          ReductionKind kind, const PerRank &in, int64_t rank) {
  SmallVector<int64_t> group = mesh.getGroup(rank, axes);
  Tensor acc = in[group.front()];
  for (int64_t other : ArrayRef<int64_t>(group).drop_front())
    combineInto(acc, in[other], kind);
  return acc;
}

PerRank mlir::weft::interp::allReduce(const Mesh &mesh,
                                      ArrayRef<StringRef> axes,
                                      ReductionKind kind, const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r)
    out.push_back(reduceGroup(mesh, axes, kind, in, r));
  return out;
}

PerRank mlir::weft::interp::allGather(const Mesh &mesh,
                                      ArrayRef<StringRef> axes, unsigned dim,
                                      const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r) {
    SmallVector<Tensor> parts;
    for (int64_t member : mesh.getGroup(r, axes))
      parts.push_back(in[member]);
    out.push_back(Tensor::concat(parts, dim));
  }
  return out;
}

PerRank mlir::weft::interp::reduceScatter(const Mesh &mesh,
                                          ArrayRef<StringRef> axes,
                                          ReductionKind kind, unsigned dim,
                                          const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  int64_t p = mesh.getGroupSize(axes);
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r)
    out.push_back(reduceGroup(mesh, axes, kind, in, r)
                      .block(dim, mesh.getGroupPosition(r, axes), p));
  return out;
}

PerRank mlir::weft::interp::allToAll(const Mesh &mesh, ArrayRef<StringRef> axes,
                                     unsigned splitDim, unsigned concatDim,
                                     const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  int64_t p = mesh.getGroupSize(axes);
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r) {
    // Rank r, at group position j, receives block j of every member's value.
    int64_t j = mesh.getGroupPosition(r, axes);
    SmallVector<Tensor> received;
    for (int64_t member : mesh.getGroup(r, axes))
      received.push_back(in[member].block(splitDim, j, p));
    out.push_back(Tensor::concat(received, concatDim));
  }
  return out;
}

PerRank mlir::weft::interp::sliceShard(const Mesh &mesh,
                                       ArrayRef<StringRef> axes, unsigned dim,
                                       const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  int64_t p = mesh.getGroupSize(axes);
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r)
    out.push_back(in[r].block(dim, mesh.getGroupPosition(r, axes), p));
  return out;
}

//===--- Root collectives -------------------------------------------------===//

PerRank mlir::weft::interp::broadcast(const Mesh &mesh,
                                      ArrayRef<StringRef> axes, int64_t root,
                                      const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r)
    out.push_back(in[mesh.getGroup(r, axes)[root]]);
  return out;
}

PerRank mlir::weft::interp::reduceTo(const Mesh &mesh, ArrayRef<StringRef> axes,
                                     ReductionKind kind, int64_t root,
                                     const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r)
    out.push_back(mesh.getGroupPosition(r, axes) == root
                      ? reduceGroup(mesh, axes, kind, in, r)
                      : Tensor(in[r].getShape(), 0.0));
  return out;
}

PerRank mlir::weft::interp::gatherTo(const Mesh &mesh, ArrayRef<StringRef> axes,
                                     unsigned dim, int64_t root,
                                     const PerRank &in) {
  PerRank all = allGather(mesh, axes, dim, in);
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r)
    if (mesh.getGroupPosition(r, axes) != root)
      all[r] = Tensor(all[r].getShape(), 0.0);
  return all;
}

PerRank mlir::weft::interp::scatterFrom(const Mesh &mesh,
                                        ArrayRef<StringRef> axes, unsigned dim,
                                        int64_t root, const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  int64_t p = mesh.getGroupSize(axes);
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r)
    out.push_back(in[mesh.getGroup(r, axes)[root]].block(
        dim, mesh.getGroupPosition(r, axes), p));
  return out;
}

//===--- Point to point ---------------------------------------------------===//

PerRank mlir::weft::interp::collectivePermute(
    const Mesh &mesh, ArrayRef<StringRef> axes,
    ArrayRef<std::pair<int64_t, int64_t>> pairs, const PerRank &in) {
  assert(static_cast<int64_t>(in.size()) == mesh.getNumDevices());
  PerRank out;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r) {
    int64_t pos = mesh.getGroupPosition(r, axes);
    Tensor value(in[r].getShape(), 0.0);
    for (auto [s, t] : pairs)
      if (t == pos)
        value = in[mesh.getGroup(r, axes)[s]];
    out.push_back(value);
  }
  return out;
}

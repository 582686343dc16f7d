//===- CollectivePlan.cpp - Rank groups, counts and packing ---------------===//

#include "weft/rt/CollectivePlan.h"
#include "weft/rt/Error.h"

namespace weft::rt {

GroupPlan planGroup(const Mesh &mesh, const AxisList &axes, int64_t rank) {
  mesh.checkAxes(axes);
  GroupPlan g;
  g.axes = axes;
  g.size = mesh.groupSize(axes);
  g.position = mesh.positionIn(axes, rank);
  auto c = mesh.coords(rank);
  auto listed = [&](int a) {
    for (int x : axes)
      if (x == a)
        return true;
    return false;
  };
  for (int a = 0; a < mesh.numAxes(); ++a)
    if (!listed(a))
      g.color = g.color * mesh.axisSize(a) + c[a];
  // Members: vary the listed coordinates, last listed fastest.
  for (int64_t pos = 0; pos < g.size; ++pos) {
    auto mc = c;
    int64_t rest = pos;
    for (int i = static_cast<int>(axes.size()) - 1; i >= 0; --i) {
      mc[axes[i]] = rest % mesh.axisSize(axes[i]);
      rest /= mesh.axisSize(axes[i]);
    }
    g.members.push_back(mesh.rankOf(mc));
  }
  return g;
}

static void checkDim(const Shape &shape, int dim, const char *what) {
  check(dim >= 0 && dim < static_cast<int>(shape.size()), what, " dim ", dim,
        " out of range for shape ", shapeToString(shape));
}

static int64_t before(const Shape &shape, int dim) {
  int64_t n = 1;
  for (int d = 0; d < dim; ++d)
    n *= shape[d];
  return n;
}

/// Copy between a dense [p, block...] chunk buffer and a tensor of `full`
/// shape in which chunk q sits at q * block[dim] along `dim`.
static CopyPlan chunkPlan(const Shape &full, const Shape &block, int dim,
                          int64_t p, bool chunksAreSource) {
  Shape shape{p};
  shape.insert(shape.end(), block.begin(), block.end());
  auto fullStrides = rowMajorStrides(full);
  std::vector<int64_t> strided{block[dim] * fullStrides[dim]};
  strided.insert(strided.end(), fullStrides.begin(), fullStrides.end());
  CopyPlan c;
  c.shape = shape;
  if (chunksAreSource) {
    c.srcStrides = rowMajorStrides(shape);
    c.dstStrides = strided;
  } else {
    c.srcStrides = strided;
    c.dstStrides = rowMajorStrides(shape);
  }
  c.simplify();
  return c;
}

CollectivePlan planAllGather(const Shape &inShape, int dim, int64_t p) {
  checkDim(inShape, dim, "all_gather");
  check(p >= 1, "group size ", p);
  CollectivePlan c;
  c.kind = CollectiveKind::AllGather;
  c.groupSize = p;
  c.inShape = inShape;
  c.outShape = inShape;
  c.outShape[dim] *= p;
  c.chunkElements = numElements(inShape);
  if (before(inShape, dim) > 1 && p > 1) {
    c.unpackOutput = true;
    c.unpack = chunkPlan(c.outShape, inShape, dim, p, true);
  }
  return c;
}

CollectivePlan planReduceScatter(const Shape &inShape, int dim, int64_t p) {
  checkDim(inShape, dim, "reduce_scatter");
  check(p >= 1, "group size ", p);
  check(inShape[dim] % p == 0, "reduce_scatter: dim ", dim, " of ",
        shapeToString(inShape), " is not divisible by the group size ", p);
  CollectivePlan c;
  c.kind = CollectiveKind::ReduceScatter;
  c.groupSize = p;
  c.inShape = inShape;
  c.outShape = inShape;
  c.outShape[dim] /= p;
  c.chunkElements = numElements(c.outShape);
  if (before(inShape, dim) > 1 && p > 1) {
    c.packInput = true;
    c.pack = chunkPlan(inShape, c.outShape, dim, p, false);
  }
  return c;
}

CollectivePlan planAllToAll(const Shape &inShape, int splitDim, int concatDim,
                            int64_t p) {
  checkDim(inShape, splitDim, "all_to_all split");
  checkDim(inShape, concatDim, "all_to_all concat");
  check(p >= 1, "group size ", p);
  check(inShape[splitDim] % p == 0, "all_to_all: split dim ", splitDim, " of ",
        shapeToString(inShape), " is not divisible by the group size ", p);
  CollectivePlan c;
  c.kind = CollectiveKind::AllToAll;
  c.groupSize = p;
  c.inShape = inShape;
  Shape block = inShape;
  block[splitDim] /= p;
  c.outShape = block;
  c.outShape[concatDim] *= p;
  c.chunkElements = numElements(block);
  if (before(inShape, splitDim) > 1 && p > 1) {
    c.packInput = true;
    c.pack = chunkPlan(inShape, block, splitDim, p, false);
  }
  if (before(block, concatDim) > 1 && p > 1) {
    c.unpackOutput = true;
    c.unpack = chunkPlan(c.outShape, block, concatDim, p, true);
  }
  return c;
}

double ringBytes(CollectiveKind kind, int64_t p, double bytesN) {
  if (p <= 1)
    return 0;
  // Broadcast and reduce_to: NCCL's ring pipelines pass the whole value
  // through every rank's link once (docs/design.md, "Root collectives").
  if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::ReduceTo)
    return bytesN;
  // collective_permute: a sending rank sends its operand once.
  if (kind == CollectiveKind::Permute)
    return bytesN;
  // gather_to and scatter_from (bytesN: the whole, gathered or scattered
  // value): the root receives or sends every block but its own.
  double f = static_cast<double>(p - 1) / static_cast<double>(p);
  return kind == CollectiveKind::AllReduce ? 2 * f * bytesN : f * bytesN;
}

} // namespace weft::rt

//===- StepOps.cpp - Helpers the generated step function calls -----------===//

#include "weft/rt/Error.h"
#include "weft/rt/Philox.h"
#include "weft/rt/Program.h"

namespace weft::rt::gen {

Tensor input(StepContext &ctx, int index) { return ctx.input(index); }

void output(StepContext &ctx, int index, const Tensor &value) {
  ctx.setOutput(index, value);
}

void release(Tensor &t) { t = Tensor(); }

Tensor einsum(StepContext &ctx, const EinsumPlan &plan, const Tensor &a,
              const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(plan.dtype, plan.outShape);
  be.einsum(plan, a, nullptr, out, label);
  return out;
}

Tensor einsum(StepContext &ctx, const EinsumPlan &plan, const Tensor &a,
              const Tensor &b, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(plan.dtype, plan.outShape);
  be.einsum(plan, a, &b, out, label);
  return out;
}

Tensor constant(StepContext &ctx, DType dtype, const Shape &shape,
                const MapPlan &fill, double value, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(dtype, shape);
  be.fill(out, fill, value, label);
  return out;
}

/// The buffer an elementwise op writes its result into: the first input
/// marked in `dying` that can take it (see Dying in Program.h), else a new
/// one. `inStrides` and `outStrides` are the plan's, over one iteration
/// space: equal strides mean the input is read element for element as the
/// result is written, which every map kernel allows in place (each element
/// is read before it is written, by the same lane or thread).
static Tensor
elementwiseResult(Backend &be, DType dtype, const Shape &outShape, Dying dying,
                  std::initializer_list<const Tensor *> inputs,
                  const std::vector<std::vector<int64_t>> &inStrides,
                  const std::vector<int64_t> &outStrides) {
  std::size_t i = 0;
  for (const Tensor *in : inputs) {
    const std::size_t k = i++;
    if (k >= 32 || !((dying.mask >> k) & 1u) || k >= inStrides.size())
      continue;
    const Tensor &t = *in;
    if (!t.storage || t.storage.use_count() != 1 || t.dtype != dtype ||
        t.device != be.device() || t.shape != outShape ||
        inStrides[k] != outStrides)
      continue;
    // Every operand reading this buffer (the value passed twice) must read
    // it element for element too.
    bool safe = true;
    std::size_t j = 0;
    for (const Tensor *other : inputs) {
      const std::size_t o = j++;
      if (other->storage == t.storage)
        safe &= o < inStrides.size() && inStrides[o] == outStrides;
    }
    if (safe)
      return t;
  }
  return be.empty(dtype, outShape);
}

Tensor map(StepContext &ctx, Dying dying, MapKind kind, const MapPlan &plan,
           const Tensor &a, double scalar, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = elementwiseResult(be, a.dtype, plan.outShape, dying, {&a},
                                 plan.inStrides, plan.outStrides);
  be.map(kind, plan, a, nullptr, out, scalar, label);
  return out;
}

Tensor map(StepContext &ctx, Dying dying, MapKind kind, const MapPlan &plan,
           const Tensor &a, const Tensor &b, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = elementwiseResult(be, a.dtype, plan.outShape, dying, {&a, &b},
                                 plan.inStrides, plan.outStrides);
  be.map(kind, plan, a, &b, out, 0, label);
  return out;
}

Tensor map(StepContext &ctx, MapKind kind, const MapPlan &plan, const Tensor &a,
           double scalar, const char *label) {
  return map(ctx, Dying{}, kind, plan, a, scalar, label);
}

Tensor map(StepContext &ctx, MapKind kind, const MapPlan &plan, const Tensor &a,
           const Tensor &b, const char *label) {
  return map(ctx, Dying{}, kind, plan, a, b, label);
}

Tensor fusedMapParts(StepContext &ctx, Dying dying, const FusedMapPlan &plan,
                     const char *label,
                     std::initializer_list<const Tensor *> inputs) {
  check(inputs.size() > 0, "fused_map '", plan.spec, "': no inputs");
  Backend &be = ctx.backend();
  Tensor out =
      elementwiseResult(be, (*inputs.begin())->dtype, plan.outShape, dying,
                        inputs, plan.inStrides, plan.outStrides);
  be.fusedMap(plan, std::vector<const Tensor *>(inputs), out,
              label ? label : "");
  return out;
}

Tensor fusedEinsumParts(StepContext &ctx, const EinsumPlan &plan,
                        const FusedMapPlan &epilogue, const char *label,
                        std::initializer_list<const Tensor *> inputs) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(plan.dtype, plan.outShape);
  be.fusedEinsum(plan, epilogue, std::vector<const Tensor *>(inputs), out,
                 label ? label : "");
  return out;
}

Tensor fusedRowsParts(StepContext &ctx, const FusedRowsPlan &plan,
                      const char *label,
                      std::initializer_list<const Tensor *> inputs) {
  check(inputs.size() > 0, "fused_rows '", plan.spec, "': no inputs");
  Backend &be = ctx.backend();
  Tensor out = be.empty((*inputs.begin())->dtype, plan.outShape);
  be.fusedRows(plan, std::vector<const Tensor *>(inputs), out,
               label ? label : "");
  return out;
}

Tensor reduce(StepContext &ctx, ReduceKind kind, const ReducePlan &plan,
              const Tensor &in, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, plan.outShape);
  be.reduce(kind, plan, in, out, label);
  return out;
}

/// The first index of this rank's block of `size` along a letter split
/// over `axes` (0 when `axes` is empty).
static int64_t blockStart(Backend &be, const AxisList &axes, int64_t size) {
  if (axes.empty())
    return 0;
  int64_t start = 0;
  check(!__builtin_mul_overflow(be.mesh().positionIn(axes, be.rank()), size,
                                &start),
        "the block start of a dimension of extent ", size, " overflows int64");
  return start;
}

Tensor embed(StepContext &ctx, const EmbedPlan &plan, const Tensor &ids,
             const Tensor &table, const AxisList &vocabAxes,
             const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(table.dtype, plan.outShape);
  be.embed(plan, ids, table, out, blockStart(be, vocabAxes, plan.rows), label);
  return out;
}

Tensor scatterAdd(StepContext &ctx, const EmbedPlan &plan, const Tensor &ids,
                  const Tensor &updates, const AxisList &vocabAxes,
                  const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(updates.dtype, plan.tableShape);
  be.scatterAdd(plan, ids, updates, out, blockStart(be, vocabAxes, plan.rows),
                label);
  return out;
}

Tensor oneHot(StepContext &ctx, const OneHotPlan &plan, DType dtype,
              const Tensor &ids, const AxisList &vocabAxes, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(dtype, plan.outShape);
  be.oneHot(plan, ids, out, blockStart(be, vocabAxes, plan.columns), label);
  return out;
}

Tensor iota(StepContext &ctx, DType dtype, const Shape &shape,
            const AxisList &axes, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(dtype, shape);
  be.iota(out, blockStart(be, axes, shape.at(0)), label);
  return out;
}

Tensor random(StepContext &ctx, DType dtype, const Shape &shape,
              RandomKind kind, uint64_t seed,
              const std::vector<AxisList> &dimAxes, const char *label) {
  Backend &be = ctx.backend();
  check(dimAxes.size() == shape.size(), "random: ", dimAxes.size(),
        " axis lists for a ", shape.size(), "-D result");
  std::vector<int64_t> first(shape.size());
  for (size_t k = 0; k < shape.size(); ++k)
    first[k] = blockStart(be, dimAxes[k], shape[k]);
  Tensor out = be.empty(dtype, shape);
  be.random(out, kind, seed, first, label);
  return out;
}

Tensor random(StepContext &ctx, DType dtype, const Shape &shape,
              RandomKind kind, uint64_t seed,
              const std::vector<AxisList> &dimAxes, const Tensor &offset,
              const char *label) {
  check(offset.shape.empty(), "random: the offset of ", label,
        " must be a rank-0 tensor, got ", offset.str());
  std::optional<double> value = hostScalarValue(ctx.backend().download(offset));
  check(value.has_value(), "random: the offset of ", label,
        " must be f32, f64 or i32, not ", dtypeName(offset.dtype));
  double t = *value;
  check(ops::randomOffsetValid(t), "random: the offset of ", label, " is ", t,
        ", not an integer in [0, 2^32)");
  return random(ctx, dtype, shape, kind,
                ops::randomSeedWithOffset(seed, static_cast<uint32_t>(t)),
                dimAxes, label);
}

Tensor padFill(StepContext &ctx, const Tensor &in,
               const std::vector<int64_t> &valid,
               const std::vector<AxisList> &dimAxes, double fill,
               const char *label) {
  Backend &be = ctx.backend();
  check(dimAxes.size() == in.shape.size(), "pad_fill: ", dimAxes.size(),
        " axis lists for a ", in.shape.size(), "-D operand");
  std::vector<int64_t> first(in.shape.size());
  for (size_t k = 0; k < in.shape.size(); ++k)
    first[k] = blockStart(be, dimAxes[k], in.shape[k]);
  Tensor out = be.empty(in.dtype, in.shape);
  be.padFill(in, out, first, valid, fill, label);
  return out;
}

Tensor convert(StepContext &ctx, const Tensor &in, DType dtype,
               const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(dtype, in.shape);
  be.convert(in, out, label);
  return out;
}

Tensor cumsum(StepContext &ctx, const Tensor &in, int dim, bool exclusive,
              bool reverse, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, in.shape);
  be.cumsum(in, out, dim, exclusive, reverse, label);
  return out;
}

namespace {
Tensor topKOf(StepContext &ctx, const Tensor &x, const Tensor *payload, int dim,
              int k, const char *label) {
  Backend &be = ctx.backend();
  // planTopK's checks first, so a bad dim or k is reported as such rather
  // than indexing the shape.
  planTopK(x.dtype, x.shape, dim, k);
  Shape shape = x.shape;
  shape[dim] = k;
  Tensor out = be.empty(x.dtype, shape);
  be.topK(x, payload, out, dim, k, label);
  return out;
}
} // namespace

Tensor topK(StepContext &ctx, const Tensor &x, int dim, int k,
            const char *label) {
  return topKOf(ctx, x, nullptr, dim, k, label);
}

Tensor topK(StepContext &ctx, const Tensor &x, const Tensor &payload, int dim,
            int k, const char *label) {
  return topKOf(ctx, x, &payload, dim, k, label);
}

Tensor reshape(StepContext &ctx, const Tensor &in, const Shape &shape,
               const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, shape);
  be.copy(in, out, label);
  return out;
}

Tensor slice(StepContext &ctx, const Tensor &in, int dim, int64_t start,
             const Shape &shape, const char *label) {
  check(dim >= 0 && dim < static_cast<int>(in.shape.size()) &&
            shape.size() == in.shape.size(),
        "slice: dim ", dim, " and shape ", shapeToString(shape), " do not fit ",
        in.str());
  std::vector<int64_t> offsets(in.shape.size(), 0);
  offsets[dim] = start;
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, shape);
  be.slice(in, offsets, out, label);
  return out;
}

Tensor concatParts(StepContext &ctx, int dim, const Shape &shape,
                   const char *label,
                   std::initializer_list<const Tensor *> parts) {
  check(parts.size() > 0, "concat: no operands (", label, ")");
  check(dim >= 0 && dim < static_cast<int>(shape.size()), "concat: dim ", dim,
        " out of range for ", shapeToString(shape));
  Backend &be = ctx.backend();
  Tensor out = be.empty((*parts.begin())->dtype, shape);
  std::vector<int64_t> offsets(shape.size(), 0);
  for (const Tensor *part : parts) {
    be.insert(*part, offsets, out, label);
    offsets[dim] += part->shape.at(dim);
  }
  check(offsets[dim] == shape[dim], "concat: the parts fill ", offsets[dim],
        " of ", shape[dim], " along dim ", dim, " (", label, ")");
  return out;
}

Tensor allReduce(StepContext &ctx, const Tensor &in, const AxisList &axes,
                 ReduceKind kind, bool inPlace, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = inPlace ? in : be.empty(in.dtype, in.shape);
  be.allReduce(in, out, axes, kind, label);
  return out;
}

Tensor allGather(StepContext &ctx, const Tensor &in, int dim,
                 const AxisList &axes, const Shape &outShape,
                 const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  be.allGather(in, out, dim, axes, label);
  return out;
}

Tensor reduceScatter(StepContext &ctx, const Tensor &in, int dim,
                     const AxisList &axes, ReduceKind kind,
                     const Shape &outShape, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  be.reduceScatter(in, out, dim, axes, kind, label);
  return out;
}

Tensor allToAll(StepContext &ctx, const Tensor &in, int splitDim, int concatDim,
                const AxisList &axes, const Shape &outShape,
                const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  be.allToAll(in, out, splitDim, concatDim, axes, label);
  return out;
}

Tensor startAllReduce(StepContext &ctx, const Tensor &in, const AxisList &axes,
                      ReduceKind kind, bool inPlace, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = inPlace ? in : be.empty(in.dtype, in.shape);
  ctx.addPending(be.startAllReduce(in, out, axes, kind, label));
  return out;
}

Tensor startAllGather(StepContext &ctx, const Tensor &in, int dim,
                      const AxisList &axes, const Shape &outShape,
                      const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  ctx.addPending(be.startAllGather(in, out, dim, axes, label));
  return out;
}

Tensor startReduceScatter(StepContext &ctx, const Tensor &in, int dim,
                          const AxisList &axes, ReduceKind kind,
                          const Shape &outShape, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  ctx.addPending(be.startReduceScatter(in, out, dim, axes, kind, label));
  return out;
}

Tensor startAllToAll(StepContext &ctx, const Tensor &in, int splitDim,
                     int concatDim, const AxisList &axes, const Shape &outShape,
                     const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  ctx.addPending(be.startAllToAll(in, out, splitDim, concatDim, axes, label));
  return out;
}

Tensor wait(StepContext &ctx, const Tensor &t, const char *) {
  ctx.finishPending(t);
  return t;
}

Tensor sliceShard(StepContext &ctx, const Tensor &in, int dim,
                  const AxisList &axes, const Shape &outShape,
                  const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  be.sliceShard(in, dim, axes, out, label);
  return out;
}

//===--- Root collectives (issue 33) --------------------------------------===//

Tensor broadcast(StepContext &ctx, const Tensor &in, int64_t root,
                 const AxisList &axes, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, in.shape);
  be.broadcast(in, out, root, axes, label);
  return out;
}

Tensor reduceTo(StepContext &ctx, const Tensor &in, int64_t root,
                const AxisList &axes, ReduceKind kind, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, in.shape);
  be.reduceTo(in, out, root, axes, kind, label);
  return out;
}

Tensor gatherTo(StepContext &ctx, const Tensor &in, int dim, int64_t root,
                const AxisList &axes, const Shape &outShape,
                const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  be.gatherTo(in, out, dim, root, axes, label);
  return out;
}

Tensor scatterFrom(StepContext &ctx, const Tensor &in, int dim, int64_t root,
                   const AxisList &axes, const Shape &outShape,
                   const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  be.scatterFrom(in, out, dim, root, axes, label);
  return out;
}

Tensor startBroadcast(StepContext &ctx, const Tensor &in, int64_t root,
                      const AxisList &axes, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, in.shape);
  ctx.addPending(be.startBroadcast(in, out, root, axes, label));
  return out;
}

Tensor startReduceTo(StepContext &ctx, const Tensor &in, int64_t root,
                     const AxisList &axes, ReduceKind kind, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, in.shape);
  ctx.addPending(be.startReduceTo(in, out, root, axes, kind, label));
  return out;
}

Tensor startGatherTo(StepContext &ctx, const Tensor &in, int dim, int64_t root,
                     const AxisList &axes, const Shape &outShape,
                     const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  ctx.addPending(be.startGatherTo(in, out, dim, root, axes, label));
  return out;
}

Tensor startScatterFrom(StepContext &ctx, const Tensor &in, int dim,
                        int64_t root, const AxisList &axes,
                        const Shape &outShape, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, outShape);
  ctx.addPending(be.startScatterFrom(in, out, dim, root, axes, label));
  return out;
}

//===--- Point to point (issue 33) ----------------------------------------===//

Tensor collectivePermute(StepContext &ctx, const Tensor &in,
                         const std::vector<int64_t> &pairs,
                         const AxisList &axes, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, in.shape);
  be.collectivePermute(in, out, pairs, axes, label);
  return out;
}

Tensor startCollectivePermute(StepContext &ctx, const Tensor &in,
                              const std::vector<int64_t> &pairs,
                              const AxisList &axes, const char *label) {
  Backend &be = ctx.backend();
  Tensor out = be.empty(in.dtype, in.shape);
  ctx.addPending(be.startCollectivePermute(in, out, pairs, axes, label));
  return out;
}

} // namespace weft::rt::gen

namespace weft::rt {

void StepContext::finishPending(const Tensor &t) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if ((*it)->out.data != t.data || (*it)->out.shape != t.shape)
      continue;
    std::unique_ptr<Backend::Pending> p = std::move(*it);
    pending_.erase(it);
    backend_.finish(*p);
    return;
  }
  fail("wait: no asynchronous collective in flight has the result ",
       shapeToString(t.shape));
}

void StepContext::finishAllPending() {
  // In start order: the communication completes in that order anyway.
  std::vector<std::unique_ptr<Backend::Pending>> all;
  all.swap(pending_);
  for (auto &p : all)
    backend_.finish(*p);
}

} // namespace weft::rt

//===- Reshard.cpp - plans between two layouts of one tensor --------------===//
//
// The planner walks from the source layout to the target one, one step at a
// time, always taking the step that keeps the tensor smallest first: local
// slices, then reduce-scatters and all-to-alls, then all-reduces, then
// all-gathers (which grow the tensor) last.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/Transforms/Reshard.h"
#include "weft/Dialect/Weft/IR/Limits.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::weft;

StringRef ReshardStep::kindName() const {
  switch (kind) {
  case SliceShard:
    return "slice_shard";
  case AllGather:
    return "all_gather";
  case AllReduce:
    return "all_reduce";
  case ReduceScatter:
    return "reduce_scatter";
  case AllToAll:
    return "all_to_all";
  }
  return "";
}

double ReshardPlan::totalBytes() const {
  double total = 0;
  for (const ReshardStep &s : steps)
    total += s.bytesPerDevice;
  return total;
}

double AxisWeights::of(ArrayRef<StringRef> axes) const {
  double w = 1;
  bool first = true;
  for (StringRef a : axes) {
    auto it = weights.find(a);
    double aw = it == weights.end() ? 1.0 : it->second;
    w = first ? aw : std::max(w, aw);
    first = false;
  }
  return w;
}

double mlir::weft::planCost(const ReshardPlan &plan,
                            const AxisWeights &weights) {
  double cost = 0;
  for (const ReshardStep &s : plan.steps)
    cost += s.bytesPerDevice * weights.of(s.axes);
  return cost;
}

static bool isPrefix(ArrayRef<StringRef> prefix, ArrayRef<StringRef> of) {
  return prefix.size() <= of.size() &&
         llvm::equal(prefix, of.take_front(prefix.size()));
}

static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

namespace {
/// The walk from `from` to `to`.
class Planner {
public:
  Planner(const Layout &from, const Layout &to, ArrayRef<int64_t> global,
          int64_t elementBytes, const Mesh &mesh)
      : cur(from), to(to), global(global), elementBytes(elementBytes),
        mesh(mesh) {}

  FailureOr<ReshardPlan> run(std::string *why);

private:
  bool usedInCur(StringRef axis) const {
    return llvm::is_contained(cur.getUsedAxes(), axis);
  }
  void emit(ReshardStep::Kind kind, AxisList axes, int64_t dim,
            int64_t concatDim = -1);
  bool trySlice();
  bool tryReduceScatter();
  bool tryAllToAll();
  bool tryAllReduce();
  bool tryAllGather();

  Layout cur;
  const Layout &to;
  ArrayRef<int64_t> global;
  int64_t elementBytes;
  const Mesh &mesh;
  ReshardPlan plan;
};
} // namespace

void Planner::emit(ReshardStep::Kind kind, AxisList axes, int64_t dim,
                   int64_t concatDim) {
  ReshardStep step;
  step.kind = kind;
  step.axes = axes;
  step.dim = dim;
  step.concatDim = concatDim;
  step.reduction = cur.partialKind;
  step.inShape = cur.getLocalShape(mesh, global);
  int64_t p = mesh.getGroupSize(axes);
  switch (kind) {
  case ReshardStep::SliceShard:
    cur.dims[dim].append(axes.begin(), axes.end());
    break;
  case ReshardStep::AllGather:
    cur.dims[dim].resize(cur.dims[dim].size() - axes.size());
    break;
  case ReshardStep::AllReduce:
  case ReshardStep::ReduceScatter:
    for (StringRef a : axes)
      cur.partialAxes.erase(llvm::find(cur.partialAxes, a));
    if (kind == ReshardStep::ReduceScatter)
      cur.dims[dim].append(axes.begin(), axes.end());
    break;
  case ReshardStep::AllToAll:
    cur.dims[concatDim].resize(cur.dims[concatDim].size() - axes.size());
    cur.dims[dim].append(axes.begin(), axes.end());
    break;
  }
  step.outShape = cur.getLocalShape(mesh, global);
  double in = double(numElements(step.inShape) * elementBytes);
  double out = double(numElements(step.outShape) * elementBytes);
  switch (kind) {
  case ReshardStep::SliceShard:
    step.bytesPerDevice = 0;
    break;
  case ReshardStep::AllGather:
    step.bytesPerDevice =
        ringBytesPerDevice(::weft::rt::CollectiveKind::AllGather, p, in, out);
    break;
  case ReshardStep::AllReduce:
    step.bytesPerDevice =
        ringBytesPerDevice(::weft::rt::CollectiveKind::AllReduce, p, in, out);
    break;
  case ReshardStep::ReduceScatter:
    step.bytesPerDevice = ringBytesPerDevice(
        ::weft::rt::CollectiveKind::ReduceScatter, p, in, out);
    break;
  case ReshardStep::AllToAll:
    step.bytesPerDevice =
        ringBytesPerDevice(::weft::rt::CollectiveKind::AllToAll, p, in, out);
    break;
  }
  plan.steps.push_back(std::move(step));
}

/// Slice a dimension toward its target with axes that are free (not used
/// anywhere in the current layout).
bool Planner::trySlice() {
  for (auto [d, target] : llvm::enumerate(to.dims)) {
    AxisList &have = cur.dims[d];
    if (have.size() >= target.size() || !isPrefix(have, target))
      continue;
    AxisList extra;
    for (StringRef a : ArrayRef<StringRef>(target).drop_front(have.size())) {
      if (usedInCur(a) || llvm::is_contained(extra, a))
        break;
      extra.push_back(a);
    }
    if (!extra.empty()) {
      emit(ReshardStep::SliceShard, extra, d);
      return true;
    }
  }
  return false;
}

/// A partial axis that a target dimension wants next: reduce-scatter.
bool Planner::tryReduceScatter() {
  for (auto [d, target] : llvm::enumerate(to.dims)) {
    AxisList &have = cur.dims[d];
    if (have.size() >= target.size() || !isPrefix(have, target))
      continue;
    AxisList run;
    for (StringRef a : ArrayRef<StringRef>(target).drop_front(have.size())) {
      if (!llvm::is_contained(cur.partialAxes, a) ||
          llvm::is_contained(to.partialAxes, a))
        break;
      run.push_back(a);
    }
    if (!run.empty()) {
      emit(ReshardStep::ReduceScatter, run, d);
      return true;
    }
  }
  return false;
}

/// The last axis of a dimension that must lose it, wanted next by another
/// dimension: all-to-all.
bool Planner::tryAllToAll() {
  for (auto [i, haveI] : llvm::enumerate(cur.dims)) {
    if (haveI.empty() || isPrefix(haveI, to.dims[i]))
      continue;
    StringRef a = haveI.back();
    for (auto [j, target] : llvm::enumerate(to.dims)) {
      if (j == i)
        continue;
      AxisList &haveJ = cur.dims[j];
      if (haveJ.size() < target.size() && isPrefix(haveJ, target) &&
          target[haveJ.size()] == a) {
        emit(ReshardStep::AllToAll, {a}, j, i);
        return true;
      }
    }
  }
  return false;
}

bool Planner::tryAllReduce() {
  AxisList axes;
  for (StringRef a : cur.partialAxes)
    if (!llvm::is_contained(to.partialAxes, a))
      axes.push_back(a);
  if (axes.empty())
    return false;
  emit(ReshardStep::AllReduce, axes, -1);
  return true;
}

bool Planner::tryAllGather() {
  for (auto [d, have] : llvm::enumerate(cur.dims)) {
    const AxisList &target = to.dims[d];
    size_t common = 0;
    while (common < have.size() && common < target.size() &&
           have[common] == target[common])
      ++common;
    if (common == have.size())
      continue;
    AxisList suffix(have.begin() + common, have.end());
    emit(ReshardStep::AllGather, suffix, d);
    return true;
  }
  return false;
}

FailureOr<ReshardPlan> Planner::run(std::string *why) {
  auto fail = [&](const Twine &reason) -> FailureOr<ReshardPlan> {
    if (why)
      *why = reason.str();
    return failure();
  };
  if (cur.dims.size() != to.dims.size())
    return fail("layouts of different ranks");
  // A max or min over copies that agree is the value itself: a value
  // replicated over an axis is already partial max (min) over it, for free
  // (a weft.top_k selection asked for as the partial max it was priced as).
  if (to.isPartial() && to.partialKind != ReductionKind::Sum &&
      (!cur.isPartial() || cur.partialKind == to.partialKind)) {
    for (StringRef a : to.partialAxes) {
      bool split = llvm::any_of(cur.dims, [&](const AxisList &d) {
        return llvm::is_contained(d, a);
      });
      if (split || llvm::is_contained(cur.partialAxes, a))
        continue;
      cur.partialKind = to.partialKind;
      cur.partialAxes.push_back(a);
    }
  }
  for (StringRef a : to.partialAxes)
    if (!llvm::is_contained(cur.partialAxes, a))
      return fail("cannot make a value partial over " + a);
  if (to.isPartial() && cur.partialKind != to.partialKind)
    return fail("partial kinds differ");
  // Each step removes or places at least one axis; a plan is short.
  for (unsigned guard = 0; guard < 64 && cur != to; ++guard) {
    if (trySlice() || tryReduceScatter() || tryAllToAll() || tryAllReduce() ||
        tryAllGather())
      continue;
    return fail("no step applies from " + cur.str() + " to " + to.str());
  }
  if (cur != to)
    return fail("plan did not converge");
  return plan;
}

FailureOr<ReshardPlan>
mlir::weft::planReshard(const Layout &from, const Layout &to,
                        ArrayRef<int64_t> globalShape, int64_t elementBytes,
                        const Mesh &mesh, std::string *why) {
  return Planner(from, to, globalShape, elementBytes, mesh).run(why);
}

FailureOr<ReshardPlan> mlir::weft::planReshard(const Layout &from,
                                               const Layout &to,
                                               RankedTensorType globalType,
                                               const Mesh &mesh,
                                               std::string *why) {
  return planReshard(from, to, globalType.getShape(), elementBytes(globalType),
                     mesh, why);
}

//===- EvaluationModels.cpp - EvaluableOpInterface for the weft ops -------===//
//
// One external model per op: how the reference interpreter computes it on
// every rank. The numerics are in Kernels.cpp (compute ops) and
// Collectives.cpp (collectives); a model reads operands from the
// EvalContext, calls them, and binds the result.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FusedSteps.h"
#include "weft/Interpreter/EvaluableOpInterface.h"
#include "weft/Interpreter/Kernels.h"
#include "weft/Interpreter/Random.h"

#include "weft/rt/Philox.h"
#include <algorithm>
#include <cmath>

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

namespace {

/// The spec of an index-letter op (the verifier accepted it).
IndexSpec verifiedSpec(StringRef text, bool allowBroadcast = false) {
  std::string error;
  FailureOr<IndexSpec> spec = IndexSpec::parse(text, error, allowBroadcast);
  assert(succeeded(spec) && "the verifier accepted a malformed spec");
  return *spec;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

struct EinsumModel
    : EvaluableOpInterface::ExternalModel<EinsumModel, EinsumOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<EinsumOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec());
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      return interp::einsum(spec, ctx.get(o.getInputs(), r),
                            shapeOf(o.getResult()));
    });
    return success();
  }
};

struct MapModel : EvaluableOpInterface::ExternalModel<MapModel, MapOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<MapOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec(), /*allowBroadcast=*/true);
    double scalar = o.getScalar() ? o.getScalar()->convertToDouble() : 0.0;
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      return interp::map(o.getKind(), scalar, spec, ctx.get(o.getInputs(), r),
                         shapeOf(o.getResult()));
    });
    return success();
  }
};

/// A fused_map step chain over `operands` as the maps it replaced: each
/// step one interp::map over the result's letters, operands at their own.
Tensor evaluateChain(const IndexSpec &spec, ArrayRef<FusedMapStep> steps,
                     ArrayRef<const Tensor *> operands,
                     ArrayRef<int64_t> shape) {
  unsigned n = operands.size();
  auto letters = [&](int id) {
    return id < static_cast<int>(n) ? spec.inputs[id] : spec.result;
  };
  SmallVector<Tensor> values;
  auto valueOf = [&](int id) -> const Tensor * {
    return id < static_cast<int>(n) ? operands[id] : &values[id - n];
  };
  values.reserve(steps.size());
  for (const FusedMapStep &st : steps) {
    std::string text = letters(st.a);
    SmallVector<const Tensor *> args{valueOf(st.a)};
    if (st.b >= 0) {
      text += ','; // not "," + ...: GCC 12 warns (-Wrestrict, PR 105651)
      text += letters(st.b);
      args.push_back(valueOf(st.b));
    }
    text += "->" + spec.result;
    IndexSpec stepSpec = verifiedSpec(text, /*allowBroadcast=*/true);
    values.push_back(interp::map(st.kind, st.scalar, stepSpec, args, shape));
  }
  return values.back();
}

/// weft.fused_map as the chain of weft.map it replaced (the interpreter is
/// the unfused oracle).
struct FusedMapModel
    : EvaluableOpInterface::ExternalModel<FusedMapModel, FusedMapOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<FusedMapOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec(), /*allowBroadcast=*/true);
    SmallVector<FusedMapStep> steps;
    std::string error;
    if (!parseFusedSteps(o.getSteps(), o.getInputs().size(), steps, error))
      return o.emitOpError("steps: ") << error;
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      SmallVector<const Tensor *> operands;
      for (Value v : o.getInputs())
        operands.push_back(&ctx.get(v, r));
      return evaluateChain(spec, steps, operands, shape);
    });
    return success();
  }
};

/// weft.fused_einsum as the weft.einsum and the maps it replaced: the
/// unfused oracle of a GEMM epilogue.
struct FusedEinsumModel
    : EvaluableOpInterface::ExternalModel<FusedEinsumModel, FusedEinsumOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<FusedEinsumOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec());
    IndexSpec epilogue = verifiedSpec(o.getEpilogue(), /*allowBroadcast=*/true);
    SmallVector<FusedMapStep> steps;
    std::string error;
    unsigned n = o.getInputs().size() - 1; // the einsum's result, extras
    if (!parseFusedSteps(o.getSteps(), n, steps, error))
      return o.emitOpError("steps: ") << error;
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      Tensor acc =
          interp::einsum(spec, ctx.get(o.getInputs().take_front(2), r), shape);
      SmallVector<const Tensor *> operands{&acc};
      for (Value v : o.getInputs().drop_front(2))
        operands.push_back(&ctx.get(v, r));
      return evaluateChain(epilogue, steps, operands, shape);
    });
    return success();
  }
};

/// weft.fused_rows as the maps and reductions it replaced: each map step
/// one interp::map over its value's letters (the kept letters, then the row
/// letters when full), each row reduction one interp::reduce.
struct FusedRowsModel
    : EvaluableOpInterface::ExternalModel<FusedRowsModel, FusedRowsOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<FusedRowsOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec());
    SmallVector<FusedMapStep> steps;
    std::string error;
    FusedRowsLayout layout;
    if (!parseFusedSteps(o.getSteps(), o.getInputs().size(), steps, error,
                         /*rowReductions=*/true) ||
        !analyzeFusedRows(spec, o.getRows(), steps, layout, error))
      return o.emitOpError() << error;
    unsigned n = o.getInputs().size();
    llvm::DenseMap<char, int64_t> sizes;
    for (auto [k, v] : llvm::enumerate(o.getInputs()))
      for (auto [d, c] : llvm::enumerate(spec.inputs[k]))
        sizes[c] = shapeOf(v)[d];
    auto shapeOfLetters = [&](const std::string &letters) {
      SmallVector<int64_t> shape;
      for (char c : letters)
        shape.push_back(sizes.lookup(c));
      return shape;
    };
    auto letters = [&](int id) {
      return id < static_cast<int>(n) ? spec.inputs[id] : layout.letters(id);
    };
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      SmallVector<Tensor> values;
      SmallVector<const Tensor *> operands;
      for (Value v : o.getInputs())
        operands.push_back(&ctx.get(v, r));
      auto valueOf = [&](int id) -> const Tensor * {
        return id < static_cast<int>(n) ? operands[id] : &values[id - n];
      };
      values.reserve(steps.size());
      for (auto [j, st] : llvm::enumerate(steps)) {
        std::string out = layout.letters(n + j);
        if (st.reduce) {
          IndexSpec stepSpec = verifiedSpec(letters(st.a) + "->" + out);
          values.push_back(interp::reduce(st.reduceKind, stepSpec,
                                          *valueOf(st.a), shapeOfLetters(out)));
          continue;
        }
        std::string text = letters(st.a);
        SmallVector<const Tensor *> args{valueOf(st.a)};
        if (st.b >= 0) {
          text += ','; // not "," + ...: GCC 12 warns (-Wrestrict, PR 105651)
          text += letters(st.b);
          args.push_back(valueOf(st.b));
        }
        text += "->" + out;
        IndexSpec stepSpec = verifiedSpec(text, /*allowBroadcast=*/true);
        values.push_back(interp::map(st.kind, st.scalar, stepSpec, args,
                                     shapeOfLetters(out)));
      }
      return values.back();
    });
    return success();
  }
};

struct ReduceModel
    : EvaluableOpInterface::ExternalModel<ReduceModel, ReduceOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ReduceOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec());
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      return interp::reduce(o.getKind(), spec, ctx.get(o.getInput(), r),
                            shapeOf(o.getResult()));
    });
    return success();
  }
};

/// The block of a block-indexed op's letter each rank holds: the axes
/// splitting it (none in the global view), its local size, and the global
/// size of the letter, the local size times their group size.
struct Block {
  SmallVector<StringRef> axes;
  int64_t local = 0, global = 0;
  int64_t first(EvalContext &ctx, int64_t rank) const {
    return axes.empty() ? 0
                        : ctx.getMesh().getGroupPosition(rank, axes) * local;
  }
};

FailureOr<Block> blockOf(EvalContext &ctx, BlockIndexedOpInterface op) {
  Block b;
  if (op.getLocalBlockMesh()) {
    FailureOr<SmallVector<StringRef>> a =
        ctx.getAxes(op, op.getLocalBlockMesh(), op.getLocalBlockAxes());
    if (failed(a))
      return failure();
    b.axes = *a;
  }
  b.local = op.getLocalBlockSize();
  b.global = b.local * ctx.getMesh().getGroupSize(b.axes);
  return b;
}

/// Runs `fn(rank, first, vocab, ids, bad)` on every rank and binds the
/// results; an id outside the vocabulary is an error at `op` naming the
/// rank.
template <typename Fn>
LogicalResult evaluateIds(BlockIndexedOpInterface op, EvalContext &ctx,
                          Value ids, Fn fn) {
  FailureOr<Block> block = blockOf(ctx, op);
  if (failed(block))
    return failure();
  PerRank out;
  for (int64_t r = 0; r < ctx.getNumRanks(); ++r) {
    BadId bad;
    const Tensor &rankIds = ctx.get(ids, r);
    FailureOr<Tensor> result =
        fn(r, block->first(ctx, r), block->global, rankIds, bad);
    if (failed(result)) {
      InFlightDiagnostic diag = op.emitError()
                                << "id " << bad.value << " at index "
                                << indexToString(bad.index, rankIds.getShape())
                                << " of the ids is outside the vocabulary [0, "
                                << block->global << ")";
      ctx.noteRank(diag, r);
      return diag;
    }
    out.push_back(std::move(*result));
  }
  ctx.bind(op->getResult(0), std::move(out));
  return success();
}

/// A global embed looks rows up in the whole table; a local one (with a
/// mesh) holds a block of rows, the group position's, and ids outside it
/// contribute zero rows.
struct EmbedModel : EvaluableOpInterface::ExternalModel<EmbedModel, EmbedOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<EmbedOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec());
    return evaluateIds(o, ctx, o.getIds(),
                       [&](int64_t r, int64_t first, int64_t vocab,
                           const Tensor &ids, BadId &bad) {
                         return interp::embed(
                             spec, ids, ctx.get(o.getTable(), r),
                             o.getBlockLetter(), shapeOf(o.getResult()), first,
                             vocab, bad);
                       });
  }
};

/// The transpose of embed: a local one holds a block of rows and skips the
/// ids outside it.
struct ScatterAddModel
    : EvaluableOpInterface::ExternalModel<ScatterAddModel, ScatterAddOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ScatterAddOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec(), /*allowBroadcast=*/true);
    return evaluateIds(o, ctx, o.getIds(),
                       [&](int64_t r, int64_t first, int64_t vocab,
                           const Tensor &ids, BadId &bad) {
                         return interp::scatterAdd(
                             spec, ids, ctx.get(o.getUpdates(), r),
                             o.getBlockLetter(), shapeOf(o.getResult()), first,
                             vocab, bad);
                       });
  }
};

/// A local one_hot holds a block of the vocabulary letter's columns.
struct OneHotModel
    : EvaluableOpInterface::ExternalModel<OneHotModel, OneHotOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<OneHotOp>(op);
    IndexSpec spec = verifiedSpec(o.getSpec(), /*allowBroadcast=*/true);
    return evaluateIds(o, ctx, o.getIds(),
                       [&](int64_t, int64_t first, int64_t vocab,
                           const Tensor &ids, BadId &bad) {
                         return interp::oneHot(spec, ids,
                                               shapeOf(o.getResult()), first,
                                               vocab, bad);
                       });
  }
};

/// Each rank holds positions [first, first + n) of the letter.
struct IotaModel : EvaluableOpInterface::ExternalModel<IotaModel, IotaOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<IotaOp>(op);
    int64_t n = shapeOf(o.getResult())[0];
    FailureOr<Block> block = blockOf(ctx, o);
    if (failed(block))
      return failure();
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      Tensor t({n}, 0.0);
      int64_t first = block->first(ctx, r);
      for (int64_t i = 0; i < n; ++i)
        t.getData()[i] = static_cast<double>(first + i);
      return t;
    });
    return success();
  }
};

/// The axes splitting each dimension of weft.random or weft.pad_fill
/// (empty lists in the global view).
FailureOr<SmallVector<SmallVector<StringRef>>>
dimBlockAxes(EvalContext &ctx, Operation *op, FlatSymbolRefAttr mesh,
             ArrayAttr blockAxes, int64_t rank) {
  SmallVector<SmallVector<StringRef>> axes(rank);
  if (mesh)
    for (int64_t d = 0; d < rank; ++d) {
      FailureOr<SmallVector<StringRef>> a =
          ctx.getAxes(op, mesh, cast<ArrayAttr>(blockAxes[d]));
      if (failed(a))
        return failure();
      axes[d] = *a;
    }
  return axes;
}

/// A shape seen as [outer, n, inner] lines along dimension `d` (cumsum,
/// top_k): element i of line (a, c) is at (a * n + i) * inner + c.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
};
Lines linesAlong(ArrayRef<int64_t> shape, int64_t d) {
  Lines l;
  l.n = shape[d];
  for (int64_t j = 0; j < d; ++j)
    l.outer *= shape[j];
  for (int64_t j = d + 1; j < static_cast<int64_t>(shape.size()); ++j)
    l.inner *= shape[j];
  return l;
}

/// The global index of rank `r`'s first element along each dimension of a
/// block of `shape` split over `axes` (weft.random, weft.pad_fill).
SmallVector<int64_t> blockFirst(EvalContext &ctx,
                                ArrayRef<SmallVector<StringRef>> axes,
                                ArrayRef<int64_t> shape, int64_t r) {
  SmallVector<int64_t> first(shape.size(), 0);
  for (auto [d, a] : llvm::enumerate(axes))
    if (!a.empty())
      first[d] = ctx.getMesh().getGroupPosition(r, a) * shape[d];
  return first;
}

/// The same elements in the same (row-major) order, in the result's shape.
struct ReshapeModel
    : EvaluableOpInterface::ExternalModel<ReshapeModel, ReshapeOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ReshapeOp>(op);
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      const Tensor &in = ctx.get(o.getInput(), r);
      Tensor out(shape, 0.0);
      for (int64_t i = 0; i < out.getNumElements(); ++i)
        out[i] = in[i];
      return out;
    });
    return success();
  }
};

/// For each of `outer` lines (`inner` elements apart): elements [from,
/// from + m) of x's lines of n, into [to, to + m) of out's lines of n2.
void copyLineRange(const Tensor &x, int64_t n, int64_t from, Tensor &out,
                   int64_t n2, int64_t to, int64_t m, int64_t outer,
                   int64_t inner) {
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t c = 0; c < inner; ++c)
        out[(a * n2 + to + i) * inner + c] = x[(a * n + from + i) * inner + c];
}

/// Along dim: result line element i is input line element start + i.
struct SliceModel : EvaluableOpInterface::ExternalModel<SliceModel, SliceOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<SliceOp>(op);
    ArrayRef<int64_t> in = shapeOf(o.getInput());
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    auto [outer, n, inner] = linesAlong(in, o.getDim());
    int64_t m = shape[o.getDim()], start = o.getStart();
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      const Tensor &x = ctx.get(o.getInput(), r);
      Tensor out(shape, 0.0);
      copyLineRange(x, n, start, out, m, 0, m, outer, inner);
      return out;
    });
    return success();
  }
};

/// Along dim: line element i is input line element i - by (zero where
/// that is outside the line).
struct ShiftModel : EvaluableOpInterface::ExternalModel<ShiftModel, ShiftOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ShiftOp>(op);
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    auto [outer, n, inner] = linesAlong(shape, o.getDim());
    int64_t by = o.getByAttr().getInt();
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      const Tensor &x = ctx.get(o.getInput(), r);
      Tensor out(shape, 0.0);
      if (n > 1)
        copyLineRange(x, n, by > 0 ? 0 : 1, out, n, by > 0 ? 1 : 0, n - 1,
                      outer, inner);
      return out;
    });
    return success();
  }
};

/// Along dim: the operands' lines one after the other.
struct ConcatModel
    : EvaluableOpInterface::ExternalModel<ConcatModel, ConcatOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ConcatOp>(op);
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    auto [outer, n, inner] = linesAlong(shape, o.getDim());
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      Tensor out(shape, 0.0);
      int64_t offset = 0;
      for (Value v : o.getInputs()) {
        const Tensor &x = ctx.get(v, r);
        int64_t m = shapeOf(v)[o.getDim()];
        copyLineRange(x, m, 0, out, n, offset, m, outer, inner);
        offset += m;
      }
      return out;
    });
    return success();
  }
};

/// Per line: positions sorted by value descending (NaN first), ties by the
/// lower position; the first k values, or the payload's there.
struct TopKModel : EvaluableOpInterface::ExternalModel<TopKModel, TopKOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<TopKOp>(op);
    ArrayRef<int64_t> in = shapeOf(o.getInput());
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    int64_t k = o.getK();
    auto [outer, n, inner] = linesAlong(in, o.getDim());
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      const Tensor &x = ctx.get(o.getInput(), r);
      const Tensor &from = o.getPayload() ? ctx.get(o.getPayload(), r) : x;
      Tensor out(shape, 0.0);
      SmallVector<int64_t> order(n);
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t c = 0; c < inner; ++c) {
          auto at = [&](int64_t i) { return (a * n + i) * inner + c; };
          for (int64_t i = 0; i < n; ++i)
            order[i] = i;
          std::stable_sort(order.begin(), order.end(),
                           [&](int64_t i, int64_t j) {
                             double u = x[at(i)], v = x[at(j)];
                             if (std::isnan(u) || std::isnan(v))
                               return std::isnan(u) && !std::isnan(v);
                             return u > v;
                           });
          for (int64_t j = 0; j < k; ++j)
            out[(a * k + j) * inner + c] = from[at(order[j])];
        }
      return out;
    });
    return success();
  }
};

/// Sequential sums along `dim` of every line of each rank's tensor.
struct CumsumModel
    : EvaluableOpInterface::ExternalModel<CumsumModel, CumsumOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<CumsumOp>(op);
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    auto [outer, n, inner] = linesAlong(shape, o.getDim());
    bool exclusive = o.getExclusive(), reverse = o.getReverse();
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      const Tensor &in = ctx.get(o.getInput(), r);
      Tensor out(shape, 0.0);
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t c = 0; c < inner; ++c) {
          double sum = 0;
          for (int64_t step = 0; step < n; ++step) {
            int64_t i = reverse ? n - 1 - step : step;
            int64_t at = (a * n + i) * inner + c;
            if (exclusive) {
              out[at] = sum;
              sum += in[at];
            } else {
              sum += in[at];
              out[at] = sum;
            }
          }
        }
      return out;
    });
    return success();
  }
};

/// Each rank keeps the elements of its block whose global indices are all
/// below `valid`, and writes `fill` over the others.
struct PadFillModel
    : EvaluableOpInterface::ExternalModel<PadFillModel, PadFillOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<PadFillOp>(op);
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    int64_t rank = static_cast<int64_t>(shape.size());
    FailureOr<SmallVector<SmallVector<StringRef>>> axes =
        dimBlockAxes(ctx, op, o.getMeshAttr(), o.getBlockAxesAttr(), rank);
    if (failed(axes))
      return failure();
    ArrayRef<int64_t> valid = o.getValid();
    double fill = o.getFill().convertToDouble();
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      SmallVector<int64_t> first = blockFirst(ctx, *axes, shape, r);
      Tensor t = ctx.get(o.getInput(), r);
      int64_t n = static_cast<int64_t>(t.getData().size());
      for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i;
        bool keep = true;
        for (int64_t d = rank - 1; d >= 0; --d) {
          keep &= first[d] + rest % shape[d] < valid[d];
          rest /= shape[d];
        }
        if (!keep)
          t.getData()[i] = fill;
      }
      return t;
    });
    return success();
  }
};

/// Each rank draws its block: element (i0, ...) of rank r's block has
/// global indices first_k(r) + i_k (Philox.h, shared with the runtime).
struct RandomModel
    : EvaluableOpInterface::ExternalModel<RandomModel, RandomOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<RandomOp>(op);
    auto type = cast<RankedTensorType>(o.getType());
    SmallVector<int64_t> shape(shapeOf(o.getResult()));
    int64_t rank = type.getRank();
    FailureOr<SmallVector<SmallVector<StringRef>>> dimAxes =
        dimBlockAxes(ctx, op, o.getMeshAttr(), o.getBlockAxesAttr(), rank);
    if (failed(dimAxes))
      return failure();
    SmallVector<SmallVector<StringRef>> &axes = *dimAxes;
    bool normal = o.getKind() == RandomKind::Normal;
    bool f32 = type.getElementType().isF32();
    // The offset (a step) moves the key: an integer in [0, 2^32), the same
    // on every rank.
    SmallVector<uint64_t> seeds;
    for (int64_t r = 0; r < ctx.getNumRanks(); ++r) {
      uint64_t seed = o.getSeed();
      if (Value offset = o.getOffset()) {
        double t = ctx.get(offset, r).getData()[0];
        if (!::weft::rt::ops::randomOffsetValid(t))
          return o.emitError()
                 << "offset " << t << " is not an integer in [0, 2^32)";
        seed = ::weft::rt::ops::randomSeedWithOffset(seed,
                                                     static_cast<uint32_t>(t));
      }
      seeds.push_back(seed);
    }
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      uint64_t seed = seeds[r];
      SmallVector<int64_t> first = blockFirst(ctx, axes, shape, r);
      Tensor t(shape, 0.0);
      int64_t n = static_cast<int64_t>(t.getData().size());
      int64_t idx[4] = {0, 0, 0, 0};
      for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i;
        for (int64_t d = rank - 1; d >= 0; --d) {
          idx[d] = first[d] + rest % shape[d];
          rest /= shape[d];
        }
        t.getData()[i] =
            f32 ? static_cast<double>(
                      ::weft::rt::ops::randomValue<float>(normal, seed, idx))
                : ::weft::rt::ops::randomValue<double>(normal, seed, idx);
      }
      return t;
    });
    return success();
  }
};

struct ShardModel : EvaluableOpInterface::ExternalModel<ShardModel, ShardOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ShardOp>(op);
    if (ctx.isLocal())
      return o.emitError() << "weft.shard is a global-view op; a local-view "
                              "program has none";
    ctx.bind(o.getResult(), ctx.get(o.getInput()));
    return success();
  }
};

/// weft.stop_gradient: the operand (its zero gradient is autodiff's).
struct StopGradientModel
    : EvaluableOpInterface::ExternalModel<StopGradientModel, StopGradientOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<StopGradientOp>(op);
    ctx.bindPerRank(o.getResult(),
                    [&](int64_t r) { return ctx.get(o.getInput(), r); });
    return success();
  }
};

/// weft.convert: each element rounded once to the result's element type
/// (round to nearest even; APFloat, Random.h's roundToType), so an f16 or
/// bf16 value is exactly one the runtime stores.
struct ConvertModel
    : EvaluableOpInterface::ExternalModel<ConvertModel, ConvertOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ConvertOp>(op);
    Type element = cast<RankedTensorType>(o.getType()).getElementType();
    ctx.bindPerRank(o.getResult(), [&](int64_t r) {
      Tensor t = ctx.get(o.getInput(), r);
      for (double &x : t.getData())
        x = roundToType(x, element);
      return t;
    });
    return success();
  }
};

/// weft.wait: the asynchronous collective's result (the interpreter runs
/// every collective to completion where it stands).
struct WaitModel : EvaluableOpInterface::ExternalModel<WaitModel, WaitOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<WaitOp>(op);
    ctx.bind(o.getResult(), ctx.get(o.getInput()));
    return success();
  }
};

/// Every rank holds its block of the constant: the whole result type (local
/// in the local view) filled with the value, rounded to the element type.
struct ConstantModel
    : EvaluableOpInterface::ExternalModel<ConstantModel, ConstantOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ConstantOp>(op);
    auto type = cast<RankedTensorType>(o.getType());
    double value =
        roundToType(o.getValue().convertToDouble(), type.getElementType());
    ctx.bindPerRank(o.getResult(),
                    [&](int64_t) { return Tensor(type.getShape(), value); });
    return success();
  }
};

/// The collectives: each model checks its mesh and axes, then runs the
/// whole group at once (Collectives.h).
struct AllReduceModel
    : EvaluableOpInterface::ExternalModel<AllReduceModel, AllReduceOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<AllReduceOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(), allReduce(ctx.getMesh(), *axes, o.getKind(),
                                      ctx.get(o.getInput())));
    return success();
  }
};

struct AllGatherModel
    : EvaluableOpInterface::ExternalModel<AllGatherModel, AllGatherOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<AllGatherOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(), allGather(ctx.getMesh(), *axes, o.getDim(),
                                      ctx.get(o.getInput())));
    return success();
  }
};

struct ReduceScatterModel
    : EvaluableOpInterface::ExternalModel<ReduceScatterModel, ReduceScatterOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ReduceScatterOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(), reduceScatter(ctx.getMesh(), *axes, o.getKind(),
                                          o.getDim(), ctx.get(o.getInput())));
    return success();
  }
};

struct AllToAllModel
    : EvaluableOpInterface::ExternalModel<AllToAllModel, AllToAllOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<AllToAllOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(), allToAll(ctx.getMesh(), *axes, o.getSplitDim(),
                                     o.getConcatDim(), ctx.get(o.getInput())));
    return success();
  }
};

struct SliceShardModel
    : EvaluableOpInterface::ExternalModel<SliceShardModel, SliceShardOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<SliceShardOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(), sliceShard(ctx.getMesh(), *axes, o.getDim(),
                                       ctx.get(o.getInput())));
    return success();
  }
};

// The root collectives (issue 33).
struct BroadcastModel
    : EvaluableOpInterface::ExternalModel<BroadcastModel, BroadcastOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<BroadcastOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(),
             broadcast(ctx.getMesh(), *axes, o.getRootAttr().getInt(),
                       ctx.get(o.getInput())));
    return success();
  }
};

struct ReduceToModel
    : EvaluableOpInterface::ExternalModel<ReduceToModel, ReduceToOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ReduceToOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(),
             reduceTo(ctx.getMesh(), *axes, o.getKind(),
                      o.getRootAttr().getInt(), ctx.get(o.getInput())));
    return success();
  }
};

struct GatherToModel
    : EvaluableOpInterface::ExternalModel<GatherToModel, GatherToOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<GatherToOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(),
             gatherTo(ctx.getMesh(), *axes, o.getDim(),
                      o.getRootAttr().getInt(), ctx.get(o.getInput())));
    return success();
  }
};

struct ScatterFromModel
    : EvaluableOpInterface::ExternalModel<ScatterFromModel, ScatterFromOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<ScatterFromOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(),
             scatterFrom(ctx.getMesh(), *axes, o.getDim(),
                         o.getRootAttr().getInt(), ctx.get(o.getInput())));
    return success();
  }
};

// Point to point (issue 33).
struct CollectivePermuteModel
    : EvaluableOpInterface::ExternalModel<CollectivePermuteModel,
                                          CollectivePermuteOp> {
  LogicalResult evaluate(Operation *op, EvalContext &ctx) const {
    auto o = cast<CollectivePermuteOp>(op);
    auto axes = ctx.getAxes(o, o.getMeshAttr(), o.getAxes());
    if (failed(axes))
      return failure();
    ctx.bind(o.getResult(),
             collectivePermute(ctx.getMesh(), *axes, o.getPairList(),
                               ctx.get(o.getInput())));
    return success();
  }
};

} // namespace

void mlir::weft::interp::registerEvaluationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, WeftDialect *) {
    EinsumOp::attachInterface<EinsumModel>(*ctx);
    MapOp::attachInterface<MapModel>(*ctx);
    FusedMapOp::attachInterface<FusedMapModel>(*ctx);
    FusedRowsOp::attachInterface<FusedRowsModel>(*ctx);
    FusedEinsumOp::attachInterface<FusedEinsumModel>(*ctx);
    ReduceOp::attachInterface<ReduceModel>(*ctx);
    EmbedOp::attachInterface<EmbedModel>(*ctx);
    ScatterAddOp::attachInterface<ScatterAddModel>(*ctx);
    OneHotOp::attachInterface<OneHotModel>(*ctx);
    IotaOp::attachInterface<IotaModel>(*ctx);
    RandomOp::attachInterface<RandomModel>(*ctx);
    PadFillOp::attachInterface<PadFillModel>(*ctx);
    CumsumOp::attachInterface<CumsumModel>(*ctx);
    TopKOp::attachInterface<TopKModel>(*ctx);
    ReshapeOp::attachInterface<ReshapeModel>(*ctx);
    SliceOp::attachInterface<SliceModel>(*ctx);
    ConcatOp::attachInterface<ConcatModel>(*ctx);
    ShiftOp::attachInterface<ShiftModel>(*ctx);
    ShardOp::attachInterface<ShardModel>(*ctx);
    ConvertOp::attachInterface<ConvertModel>(*ctx);
    StopGradientOp::attachInterface<StopGradientModel>(*ctx);
    WaitOp::attachInterface<WaitModel>(*ctx);
    ConstantOp::attachInterface<ConstantModel>(*ctx);
    AllReduceOp::attachInterface<AllReduceModel>(*ctx);
    AllGatherOp::attachInterface<AllGatherModel>(*ctx);
    ReduceScatterOp::attachInterface<ReduceScatterModel>(*ctx);
    AllToAllOp::attachInterface<AllToAllModel>(*ctx);
    SliceShardOp::attachInterface<SliceShardModel>(*ctx);
    BroadcastOp::attachInterface<BroadcastModel>(*ctx);
    ReduceToOp::attachInterface<ReduceToModel>(*ctx);
    GatherToOp::attachInterface<GatherToModel>(*ctx);
    ScatterFromOp::attachInterface<ScatterFromModel>(*ctx);
    CollectivePermuteOp::attachInterface<CollectivePermuteModel>(*ctx);
  });
}

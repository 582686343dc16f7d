//===- ComputePatterns.cpp - einsum, map, reduce, embed, ... --------------===//
//
// A compute op (weft.constant included) becomes a plan constant and one call
// reading it:
//
//   static const weft::rt::EinsumPlan weft_plan0 = weft::rt::EinsumPlan{...};
//   // #0 weft.einsum at mlp.mlir:10
//   weft::rt::Tensor v5 = weft::rt::gen::einsum(v1, weft_plan0, v2, v3, "#0
//   einsum btd,df->btf");
//
// The plan is the runtime's own (planEinsum, planMap, planReduce,
// planEmbed), computed now on the op's local shapes, so nothing is planned
// when the program runs; a plan the planner rejects is an error on the op.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "weft/Dialect/Weft/IR/FusedSteps.h"

#include "weft/Conversion/WeftToRuntime/PlanToCpp.h"

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Error.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::lowering;
namespace rt = ::weft::rt;

namespace {

// One function per op: checks and plans it, then adds its arguments and
// label. The planner throws rt::Error, which ComputeOpLowering reports.

LogicalResult lowerCompute(EinsumOp op, EinsumOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  auto dtype = toDType(op.getType());
  if (!dtype)
    return op.emitError("cannot lower element type ")
           << op.getType().getElementType() << " to the runtime";
  std::string spec = op.getSpec().str();
  rt::EinsumPlan p =
      op->getNumOperands() == 1
          ? rt::planEinsum(spec, shapeOf(op->getOperand(0)), *dtype)
          : rt::planEinsum(spec, shapeOf(op->getOperand(0)),
                           shapeOf(op->getOperand(1)), *dtype);
  call.plan("weft::rt::EinsumPlan", toCpp(p));
  for (Value v : adaptor.getOperands())
    call.value(v);
  call.label("einsum " + spec);
  call.replaceOp("weft::rt::gen::einsum");
  return success();
}

LogicalResult lowerCompute(MapOp op, MapOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  std::vector<rt::Shape> shapes;
  for (Value v : op->getOperands())
    shapes.push_back(shapeOf(v));
  std::string spec = op.getSpec().str();
  // The result's shape sizes the letters a map broadcasts along.
  rt::Shape outShape = shapeOf(op.getResult());
  rt::MapPlan p = rt::planMap(spec, shapes, &outShape);
  StringRef kind = stringifyMapKind(op.getKind());
  call.lit(std::string("weft::rt::MapKind::") +
           getMapKindInfo(op.getKind()).enumName);
  call.plan("weft::rt::MapPlan", toCpp(p));
  call.value(adaptor.getOperands()[0]);
  // A binary map reads its second tensor, a unary one its scalar.
  if (adaptor.getOperands().size() == 2)
    call.value(adaptor.getOperands()[1]);
  else
    call.lit(
        formatDouble(op.getScalar() ? op.getScalar()->convertToDouble() : 0.0));
  call.label(("map " + kind + " " + spec).str());
  call.replaceOp(kMapCallee);
  return success();
}

LogicalResult lowerCompute(FusedMapOp op, FusedMapOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  std::vector<rt::Shape> shapes;
  for (Value v : op.getInputs())
    shapes.push_back(shapeOf(v));
  SmallVector<FusedMapStep> steps;
  std::string error;
  if (!parseFusedSteps(op.getSteps(), op.getInputs().size(), steps, error))
    return op.emitError("steps: ") << error; // The verifier ran: unreachable.
  std::vector<rt::FusedStep> planSteps;
  std::string kinds;
  for (const FusedMapStep &st : steps) {
    // The compiler's and the runtime's MapKind: one table, equal values.
    planSteps.push_back(
        {static_cast<rt::MapKind>(st.kind), st.a, st.b, st.scalar});
    kinds += (kinds.empty() ? "" : "+") + stringifyMapKind(st.kind).str();
  }
  std::string spec = op.getSpec().str();
  rt::FusedMapPlan p = rt::planFusedMap(spec, shapes, shapeOf(op.getResult()),
                                        std::move(planSteps));
  call.plan("weft::rt::FusedMapPlan", toCpp(p));
  call.label("fused " + kinds + " " + spec);
  for (Value v : adaptor.getInputs())
    call.value(v);
  call.replaceOp(kFusedMapCallee);
  return success();
}

LogicalResult lowerCompute(FusedEinsumOp op, FusedEinsumOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  auto dtype = toDType(op.getType());
  if (!dtype)
    return op.emitError("cannot lower element type ")
           << op.getType().getElementType() << " to the runtime";
  std::string spec = op.getSpec().str();
  rt::EinsumPlan p = rt::planEinsum(spec, shapeOf(op.getInputs()[0]),
                                    shapeOf(op.getInputs()[1]), *dtype);
  // The epilogue: in0 is the einsum's result, then the extra operands.
  std::vector<rt::Shape> shapes{shapeOf(op.getResult())};
  for (Value v : op.getInputs().drop_front(2))
    shapes.push_back(shapeOf(v));
  SmallVector<FusedMapStep> steps;
  std::string error;
  if (!parseFusedSteps(op.getSteps(), shapes.size(), steps, error))
    return op.emitError("steps: ") << error; // The verifier ran: unreachable.
  std::vector<rt::FusedStep> planSteps;
  std::string kinds;
  for (const FusedMapStep &st : steps) {
    planSteps.push_back(
        {static_cast<rt::MapKind>(st.kind), st.a, st.b, st.scalar});
    kinds += "+" + stringifyMapKind(st.kind).str();
  }
  std::string epilogue = op.getEpilogue().str();
  rt::FusedMapPlan e = rt::planFusedMap(
      epilogue, shapes, shapeOf(op.getResult()), std::move(planSteps));
  call.plan("weft::rt::EinsumPlan", toCpp(p));
  call.plan("weft::rt::FusedMapPlan", toCpp(e));
  call.label("einsum" + kinds + " " + spec + " then " + epilogue);
  for (Value v : adaptor.getInputs())
    call.value(v);
  call.replaceOp("weft::rt::gen::fusedEinsum");
  return success();
}

LogicalResult lowerCompute(FusedRowsOp op, FusedRowsOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  std::vector<rt::Shape> shapes;
  for (Value v : op.getInputs())
    shapes.push_back(shapeOf(v));
  SmallVector<FusedMapStep> steps;
  std::string error;
  if (!parseFusedSteps(op.getSteps(), op.getInputs().size(), steps, error,
                       /*rowReductions=*/true))
    return op.emitError("steps: ") << error; // The verifier ran: unreachable.
  std::vector<rt::FusedRowStep> planSteps;
  std::string kinds;
  for (const FusedMapStep &st : steps) {
    rt::FusedRowStep ps;
    ps.reduce = st.reduce;
    ps.a = st.a;
    ps.b = st.b;
    ps.scalar = st.scalar;
    std::string name;
    if (st.reduce) {
      name = stringifyReductionKind(st.reduceKind).str();
      ps.reduceKind = rt::parseReduceKind(name);
      name = "row_" + name;
    } else {
      name = stringifyMapKind(st.kind).str();
      ps.kind = static_cast<rt::MapKind>(st.kind);
    }
    planSteps.push_back(ps);
    kinds += (kinds.empty() ? "" : "+") + name;
  }
  std::string spec = op.getSpec().str(), rows = op.getRows().str();
  rt::FusedRowsPlan p =
      rt::planFusedRows(spec, rows, shapes, std::move(planSteps));
  call.plan("weft::rt::FusedRowsPlan", toCpp(p));
  call.label("fused " + kinds + " " + spec + " [" + rows + "]");
  for (Value v : adaptor.getInputs())
    call.value(v);
  call.replaceOp("weft::rt::gen::fusedRows");
  return success();
}

LogicalResult lowerCompute(ConstantOp op, ConstantOp::Adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  auto dtype = toDType(op.getType());
  if (!dtype)
    return op.emitError("cannot lower element type ")
           << op.getType().getElementType() << " to the runtime";
  double value = op.getValue().convertToDouble();
  rt::Shape shape = shapeOf(op.getResult());
  call.lit(toCpp(*dtype)).lit("weft::rt::Shape" + toCpp(shape));
  // The identity map over the elements, the fill's Shift (Backend::fill).
  call.plan("weft::rt::MapPlan",
            toCpp(rt::planMap("a->a", {rt::Shape{rt::numElements(shape)}})));
  call.lit(formatDouble(value));
  call.label("constant " + formatDouble(value));
  call.replaceOp("weft::rt::gen::constant");
  return success();
}

LogicalResult lowerCompute(ReduceOp op, ReduceOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  std::string spec = op.getSpec().str();
  rt::ReducePlan p = rt::planReduce(spec, shapeOf(op.getInput()));
  call.lit(reduceKindCpp(op.getKind()));
  call.plan("weft::rt::ReducePlan", toCpp(p));
  call.value(adaptor.getOperands()[0]);
  call.label(
      ("reduce " + stringifyReductionKind(op.getKind()) + " " + spec).str());
  call.replaceOp("weft::rt::gen::reduce");
  return success();
}

/// The `axes` argument of a block-indexed op: its block axes as mesh axis
/// indices (an empty list in a global view), appended to `what`.
FailureOr<std::string> blockAxes(BlockIndexedOpInterface op,
                                 const ProgramInfo &info, std::string &what,
                                 StringRef name) {
  ArrayAttr axes = op.getLocalBlockAxes();
  if (!axes)
    return std::string("weft::rt::AxisList{}");
  auto indices = info.axisIndices(op, axes);
  if (failed(indices))
    return failure();
  what += (" " + name + " " + axesText(axes)).str();
  return "weft::rt::AxisList" + toCpp(*indices);
}

LogicalResult lowerCompute(EmbedOp op, EmbedOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &info) {
  std::string spec = op.getSpec().str();
  // A `vocab on @mesh over [axes]` table is split over those axes.
  std::string what = "embed " + spec;
  FailureOr<std::string> axes = blockAxes(op, info, what, "vocab");
  if (failed(axes))
    return failure();
  rt::EmbedPlan p =
      rt::planEmbed(spec, shapeOf(op.getIds()), shapeOf(op.getTable()));
  call.plan("weft::rt::EmbedPlan", toCpp(p));
  call.value(adaptor.getOperands()[0]).value(adaptor.getOperands()[1]);
  call.lit(*axes);
  call.label(what);
  call.replaceOp("weft::rt::gen::embed");
  return success();
}

LogicalResult lowerCompute(ScatterAddOp op, ScatterAddOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &info) {
  std::string spec = op.getSpec().str();
  std::string what = "scatter_add " + spec;
  FailureOr<std::string> axes = blockAxes(op, info, what, "vocab");
  if (failed(axes))
    return failure();
  rt::EmbedPlan p =
      rt::planScatterAdd(spec, shapeOf(op.getIds()), shapeOf(op.getUpdates()),
                         shapeOf(op.getResult()));
  call.plan("weft::rt::EmbedPlan", toCpp(p));
  call.value(adaptor.getOperands()[0]).value(adaptor.getOperands()[1]);
  call.lit(*axes);
  call.label(what);
  call.replaceOp("weft::rt::gen::scatterAdd");
  return success();
}

LogicalResult lowerCompute(OneHotOp op, OneHotOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &info) {
  auto dtype = toDType(op.getType());
  if (!dtype)
    return op.emitError("cannot lower element type ")
           << op.getType().getElementType() << " to the runtime";
  std::string spec = op.getSpec().str();
  std::string what = "one_hot " + spec;
  FailureOr<std::string> axes = blockAxes(op, info, what, "vocab");
  if (failed(axes))
    return failure();
  rt::OneHotPlan p =
      rt::planOneHot(spec, shapeOf(op.getIds()), shapeOf(op.getResult()));
  call.plan("weft::rt::OneHotPlan", toCpp(p));
  call.lit(toCpp(*dtype));
  call.value(adaptor.getOperands()[0]);
  call.lit(*axes);
  call.label(what);
  call.replaceOp("weft::rt::gen::oneHot");
  return success();
}

/// The per-dimension axes of weft.random and weft.pad_fill as a
/// `std::vector<weft::rt::AxisList>` (empty lists in a global view); the
/// split dimensions are appended to `what`.
FailureOr<std::string> dimBlockAxes(Operation *op, ArrayAttr blockAxes,
                                    int64_t rank, const ProgramInfo &info,
                                    std::string &what) {
  std::string dims = "std::vector<weft::rt::AxisList>{";
  for (int64_t d = 0; d < rank; ++d) {
    std::vector<int> indices;
    if (blockAxes) {
      auto list = cast<ArrayAttr>(blockAxes[d]);
      FailureOr<std::vector<int>> i = info.axisIndices(op, list);
      if (failed(i))
        return failure();
      indices = *i;
      if (!list.empty())
        what += " dim " + std::to_string(d) + " " + axesText(list);
    }
    dims += (d ? ", " : "") + ("weft::rt::AxisList" + toCpp(indices));
  }
  return dims + "}";
}

LogicalResult lowerCompute(RandomOp op, RandomOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &info) {
  auto dtype = toDType(op.getType());
  if (!dtype)
    return op.emitError("cannot lower element type ")
           << op.getType().getElementType() << " to the runtime";
  std::string what = ("random " + stringifyRandomKind(op.getKind())).str() +
                     " seed " + std::to_string(op.getSeed());
  FailureOr<std::string> dims =
      dimBlockAxes(op, op.getBlockAxesAttr(),
                   cast<RankedTensorType>(op.getType()).getRank(), info, what);
  if (failed(dims))
    return failure();
  call.lit(toCpp(*dtype))
      .lit("weft::rt::Shape" + toCpp(shapeOf(op.getResult())));
  call.lit(op.getKind() == RandomKind::Normal
               ? "weft::rt::RandomKind::Normal"
               : "weft::rt::RandomKind::Uniform");
  call.lit(std::to_string(op.getSeed()) + "ull");
  call.lit(*dims);
  if (adaptor.getOffset()) {
    call.value(adaptor.getOffset());
    what += " offset";
  }
  call.label(what);
  call.replaceOp("weft::rt::gen::random");
  return success();
}

LogicalResult lowerCompute(CumsumOp op, CumsumOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  std::string what = "cumsum dim " + std::to_string(op.getDim());
  if (op.getExclusive())
    what += " exclusive";
  if (op.getReverse())
    what += " reverse";
  call.value(adaptor.getInput());
  call.lit(std::to_string(op.getDim()));
  call.lit(op.getExclusive() ? "true" : "false");
  call.lit(op.getReverse() ? "true" : "false");
  call.label(what);
  call.replaceOp("weft::rt::gen::cumsum");
  return success();
}

LogicalResult lowerCompute(ReshapeOp op, ReshapeOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  call.value(adaptor.getInput());
  call.lit("weft::rt::Shape" + toCpp(shapeOf(op.getResult())));
  call.label("reshape " + op.getSpec().str());
  call.replaceOp("weft::rt::gen::reshape");
  return success();
}

LogicalResult lowerCompute(SliceOp op, SliceOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  call.value(adaptor.getInput());
  call.lit(std::to_string(op.getDim()));
  call.lit(std::to_string(op.getStart()));
  call.lit("weft::rt::Shape" + toCpp(shapeOf(op.getResult())));
  call.label("slice dim " + std::to_string(op.getDim()) + " start " +
             std::to_string(op.getStart()));
  call.replaceOp("weft::rt::gen::slice");
  return success();
}

LogicalResult lowerCompute(ConcatOp op, ConcatOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  call.lit(std::to_string(op.getDim()));
  call.lit("weft::rt::Shape" + toCpp(shapeOf(op.getResult())));
  call.label("concat dim " + std::to_string(op.getDim()));
  for (Value v : adaptor.getInputs())
    call.value(v);
  call.replaceOp("weft::rt::gen::concat");
  return success();
}

LogicalResult lowerCompute(TopKOp op, TopKOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  std::string what = "top_k dim " + std::to_string(op.getDim()) + " k " +
                     std::to_string(op.getK());
  call.value(adaptor.getInput());
  if (adaptor.getPayload()) {
    call.value(adaptor.getPayload());
    what += " payload";
  }
  call.lit(std::to_string(op.getDim()));
  call.lit(std::to_string(op.getK()));
  call.label(what);
  call.replaceOp("weft::rt::gen::topK");
  return success();
}

LogicalResult lowerCompute(PadFillOp op, PadFillOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &info) {
  std::string what =
      "pad_fill valid " +
      toCpp(std::vector<int64_t>(op.getValid().begin(), op.getValid().end()));
  FailureOr<std::string> dims =
      dimBlockAxes(op, op.getBlockAxesAttr(),
                   cast<RankedTensorType>(op.getType()).getRank(), info, what);
  if (failed(dims))
    return failure();
  call.value(adaptor.getInput());
  call.lit(
      "std::vector<int64_t>" +
      toCpp(std::vector<int64_t>(op.getValid().begin(), op.getValid().end())));
  call.lit(*dims);
  call.lit(formatDouble(op.getFill().convertToDouble()));
  call.label(what);
  call.replaceOp("weft::rt::gen::padFill");
  return success();
}

LogicalResult lowerCompute(IotaOp op, IotaOp::Adaptor, RuntimeCallBuilder &call,
                           const ProgramInfo &info) {
  auto dtype = toDType(op.getType());
  if (!dtype)
    return op.emitError("cannot lower element type ")
           << op.getType().getElementType() << " to the runtime";
  std::string what = "iota";
  FailureOr<std::string> axes = blockAxes(op, info, what, "on");
  if (failed(axes))
    return failure();
  call.lit(toCpp(*dtype))
      .lit("weft::rt::Shape" + toCpp(shapeOf(op.getResult())));
  call.lit(*axes);
  call.label(what);
  call.replaceOp("weft::rt::gen::iota");
  return success();
}

LogicalResult lowerCompute(ConvertOp op, ConvertOp::Adaptor adaptor,
                           RuntimeCallBuilder &call, const ProgramInfo &) {
  auto from = toDType(op.getInput().getType());
  auto to = toDType(op.getType());
  if (!from || !to)
    return op.emitError("cannot lower a convert from ")
           << op.getInput().getType() << " to " << op.getType()
           << " to the runtime";
  call.value(adaptor.getInput());
  call.lit(toCpp(*to));
  call.label(std::string("convert ") + rt::dtypeName(*from) + " -> " +
             rt::dtypeName(*to));
  call.replaceOp("weft::rt::gen::convert");
  return success();
}

/// The compute family's pattern, one instance per op: the op's own
/// lowerCompute, with the planner's errors reported on the op.
template <typename OpT> class ComputeOpLowering : public RuntimeOpPattern<OpT> {
public:
  using RuntimeOpPattern<OpT>::RuntimeOpPattern;
  using OpAdaptor = typename RuntimeOpPattern<OpT>::OpAdaptor;

protected:
  LogicalResult lower(OpT op, OpAdaptor adaptor,
                      RuntimeCallBuilder &call) const override {
    try {
      return lowerCompute(op, adaptor, call, this->info());
    } catch (const rt::Error &e) {
      return op.emitError("the runtime cannot plan this op: ") << e.what();
    }
  }
};

} // namespace

bool lowering::isComputeOp(Operation *op) {
  return isa<EinsumOp, MapOp, FusedMapOp, FusedRowsOp, FusedEinsumOp, ReduceOp,
             EmbedOp, ScatterAddOp, OneHotOp, IotaOp, RandomOp, PadFillOp,
             CumsumOp, TopKOp, ReshapeOp, SliceOp, ConcatOp, ConstantOp,
             ConvertOp>(op);
}

void lowering::populateComputePatterns(const RuntimeTypeConverter &types,
                                       LoweringState &state,
                                       RewritePatternSet &patterns) {
  patterns.add<ComputeOpLowering<EinsumOp>, ComputeOpLowering<MapOp>,
               ComputeOpLowering<FusedMapOp>, ComputeOpLowering<FusedRowsOp>,
               ComputeOpLowering<FusedEinsumOp>, ComputeOpLowering<ReduceOp>,
               ComputeOpLowering<EmbedOp>, ComputeOpLowering<ScatterAddOp>,
               ComputeOpLowering<OneHotOp>, ComputeOpLowering<IotaOp>,
               ComputeOpLowering<RandomOp>, ComputeOpLowering<PadFillOp>,
               ComputeOpLowering<CumsumOp>, ComputeOpLowering<TopKOp>,
               ComputeOpLowering<ReshapeOp>, ComputeOpLowering<SliceOp>,
               ComputeOpLowering<ConcatOp>, ComputeOpLowering<ConstantOp>,
               ComputeOpLowering<ConvertOp>>(types, state);
}

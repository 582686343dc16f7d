//===- CollectivePatterns.cpp - all_reduce, all_gather, ... ---------------===//
//
// A collective becomes one call; its mesh axes become the runtime's axis
// indices and, when its shape changes, the call is told the local shape
// of its result:
//
//   // #3 weft.all_reduce at mlp.mlir:13
//   weft::rt::Tensor v8 = weft::rt::gen::allReduce(v1, v7,
//   weft::rt::AxisList{0}, weft::rt::ReduceKind::Sum, true, "#3 all_reduce sum
//   [model]");
//
// An all-reduce whose operand dies there (ProgramInfo::firstOperandDiesAt)
// runs in place, in the operand's buffer. An asynchronous collective
// (`weft.async`, --weft-schedule-collectives) calls the start form, which
// returns its result tensor before the data is there; its weft.wait calls
// gen::wait, which completes it:
//
//   weft::rt::Tensor v8 = weft::rt::gen::startAllReduce(v1, v7, ...);
//   ...
//   weft::rt::Tensor v12 = weft::rt::gen::wait(v1, v8, "#9 wait all_reduce sum
//   [data]");
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "weft/Conversion/WeftToRuntime/PlanToCpp.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::lowering;

namespace {

/// The runtime function of collective `name` ("allReduce"): its start form
/// ("startAllReduce") when the op is asynchronous.
std::string callee(Operation *op, StringRef name) {
  if (!op->hasAttr(kAsyncAttr))
    return ("weft::rt::gen::" + name).str();
  return "weft::rt::gen::start" + capitalize(name);
}

/// `weft::rt::Shape{2, 6}`: the local shape of `op`'s result.
std::string resultShape(Operation *op) {
  return "weft::rt::Shape" + toCpp(shapeOf(op->getResult(0)));
}

// One function per op: adds its arguments (`axes` is its axis list as C++)
// and label.

void lowerCollective(AllReduceOp op, AllReduceOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &info) {
  bool inPlace = info.firstOperandDiesAt(op);
  call.value(adaptor.getOperands()[0])
      .lit(axes)
      .lit(reduceKindCpp(op.getKind()))
      .lit(inPlace ? "true" : "false");
  call.label(("all_reduce " + stringifyReductionKind(op.getKind()) + " " +
              axesText(op.getAxes()))
                 .str());
  call.replaceOp(callee(op, "allReduce"));
}

void lowerCollective(AllGatherOp op, AllGatherOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  call.value(adaptor.getOperands()[0])
      .lit(std::to_string(op.getDim()))
      .lit(axes)
      .lit(resultShape(op));
  call.label("all_gather " + axesText(op.getAxes()) + " dim " +
             std::to_string(op.getDim()));
  call.replaceOp(callee(op, "allGather"));
}

void lowerCollective(ReduceScatterOp op, ReduceScatterOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  call.value(adaptor.getOperands()[0])
      .lit(std::to_string(op.getDim()))
      .lit(axes)
      .lit(reduceKindCpp(op.getKind()))
      .lit(resultShape(op));
  call.label(("reduce_scatter " + stringifyReductionKind(op.getKind()) + " " +
              axesText(op.getAxes()) + " dim " + std::to_string(op.getDim()))
                 .str());
  call.replaceOp(callee(op, "reduceScatter"));
}

void lowerCollective(AllToAllOp op, AllToAllOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  call.value(adaptor.getOperands()[0])
      .lit(std::to_string(op.getSplitDim()))
      .lit(std::to_string(op.getConcatDim()))
      .lit(axes)
      .lit(resultShape(op));
  call.label("all_to_all " + axesText(op.getAxes()) + " " +
             std::to_string(op.getSplitDim()) + "->" +
             std::to_string(op.getConcatDim()));
  call.replaceOp(callee(op, "allToAll"));
}

// The root collectives (issue 33): the root is a group position.

void lowerCollective(BroadcastOp op, BroadcastOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  call.value(adaptor.getOperands()[0])
      .lit(std::to_string(op.getRootAttr().getInt()))
      .lit(axes);
  call.label("broadcast " + axesText(op.getAxes()) + " root " +
             std::to_string(op.getRootAttr().getInt()));
  call.replaceOp(callee(op, "broadcast"));
}

void lowerCollective(ReduceToOp op, ReduceToOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  call.value(adaptor.getOperands()[0])
      .lit(std::to_string(op.getRootAttr().getInt()))
      .lit(axes)
      .lit(reduceKindCpp(op.getKind()));
  call.label(("reduce_to " + stringifyReductionKind(op.getKind()) + " " +
              axesText(op.getAxes()) + " root " +
              std::to_string(op.getRootAttr().getInt()))
                 .str());
  call.replaceOp(callee(op, "reduceTo"));
}

/// gather_to and scatter_from: operand, dim, root, axes, result shape.
template <typename OpT>
void lowerRootedDim(OpT op, typename OpT::Adaptor adaptor,
                    const std::string &axes, RuntimeCallBuilder &call,
                    StringRef name, StringRef runtimeName) {
  std::string root = std::to_string(op.getRootAttr().getInt());
  call.value(adaptor.getOperands()[0])
      .lit(std::to_string(op.getDim()))
      .lit(root)
      .lit(axes)
      .lit(resultShape(op));
  call.label(name.str() + " " + axesText(op.getAxes()) + " root " + root +
             " dim " + std::to_string(op.getDim()));
  call.replaceOp(callee(op, runtimeName));
}

void lowerCollective(GatherToOp op, GatherToOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  lowerRootedDim(op, adaptor, axes, call, "gather_to", "gatherTo");
}

void lowerCollective(ScatterFromOp op, ScatterFromOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  lowerRootedDim(op, adaptor, axes, call, "scatter_from", "scatterFrom");
}

// Point to point (issue 33): the pairs as a flat list; the runtime finds
// this rank's part from its group position.
void lowerCollective(CollectivePermuteOp op,
                     CollectivePermuteOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  std::string pairs = "std::vector<int64_t>{";
  std::string text = "[";
  for (auto [i, v] : llvm::enumerate(op.getPairs())) {
    pairs += (i ? ", " : "") + std::to_string(v);
    text += (i == 0       ? "["
             : i % 2 == 0 ? ", ["
                          : ", ") +
            std::to_string(v) + (i % 2 == 1 ? "]" : "");
  }
  call.value(adaptor.getOperands()[0]).lit(pairs + "}").lit(axes);
  call.label("collective_permute " + axesText(op.getAxes()) + " " + text + "]");
  call.replaceOp(callee(op, "collectivePermute"));
}

void lowerCollective(WaitOp op, WaitOp::Adaptor adaptor,
                     RuntimeCallBuilder &call, const ProgramInfo &) {
  Operation *c = op.getInput().getDefiningOp();
  call.value(adaptor.getInput());
  call.label("wait " + c->getName().stripDialect().str());
  call.replaceOp("weft::rt::gen::wait");
}

void lowerCollective(SliceShardOp op, SliceShardOp::Adaptor adaptor,
                     const std::string &axes, RuntimeCallBuilder &call,
                     const ProgramInfo &) {
  call.value(adaptor.getOperands()[0])
      .lit(std::to_string(op.getDim()))
      .lit(axes)
      .lit(resultShape(op));
  call.label("slice_shard " + axesText(op.getAxes()) + " dim " +
             std::to_string(op.getDim()));
  call.replaceOp("weft::rt::gen::sliceShard");
}

/// The collective family's pattern, one instance per op: the op's axes
/// as indices of the mesh (an error on the op for an unknown one), then
/// the op's own lowerCollective.
template <typename OpT>
class CollectiveOpLowering : public RuntimeOpPattern<OpT> {
public:
  using RuntimeOpPattern<OpT>::RuntimeOpPattern;
  using OpAdaptor = typename RuntimeOpPattern<OpT>::OpAdaptor;

protected:
  LogicalResult lower(OpT op, OpAdaptor adaptor,
                      RuntimeCallBuilder &call) const override {
    auto collective = cast<CollectiveOpInterface>(op.getOperation());
    FailureOr<std::vector<int>> axes =
        this->info().axisIndices(op, collective.getAxesAttr());
    if (failed(axes))
      return failure();
    lowerCollective(op, adaptor, "weft::rt::AxisList" + toCpp(*axes), call,
                    this->info());
    return success();
  }
};

class WaitOpLowering : public RuntimeOpPattern<WaitOp> {
public:
  using RuntimeOpPattern<WaitOp>::RuntimeOpPattern;

protected:
  LogicalResult lower(WaitOp op, OpAdaptor adaptor,
                      RuntimeCallBuilder &call) const override {
    lowerCollective(op, adaptor, call, this->info());
    return success();
  }
};

} // namespace

bool lowering::isCollectiveOp(Operation *op) {
  return isa<CollectiveOpInterface>(op) || op->hasTrait<CompletesCollective>();
}

void lowering::populateCollectivePatterns(const RuntimeTypeConverter &types,
                                          LoweringState &state,
                                          RewritePatternSet &patterns) {
  patterns.add<
      CollectiveOpLowering<AllReduceOp>, CollectiveOpLowering<AllGatherOp>,
      CollectiveOpLowering<ReduceScatterOp>, CollectiveOpLowering<AllToAllOp>,
      CollectiveOpLowering<SliceShardOp>, WaitOpLowering>(types, state);
  patterns.add<
      CollectiveOpLowering<BroadcastOp>, CollectiveOpLowering<ReduceToOp>,
      CollectiveOpLowering<GatherToOp>, CollectiveOpLowering<ScatterFromOp>,
      CollectiveOpLowering<CollectivePermuteOp>>(types, state);
}

//===- SignaturePatterns.cpp - The function and its return ----------------===//
//
// The function becomes the step function the harness calls once per
// iteration, its arguments calls that take the inputs from the step
// context, its return calls that hand the outputs back:
//
//   void weft_step_mlp(weft::rt::StepContext& v1) {
//     weft::rt::Tensor v2 = weft::rt::gen::input(v1, 0);
//     ...                                   (the body, one call per op)
//     weft::rt::gen::output(v1, 0, v8);
//     return;
//   }
//   weft::rt::ProgramInfo weft_program = {..., .step = weft_step_mlp};
//
// The step function's signature is fixed, so this is no signature
// conversion: the body block is moved into the new function with its
// arguments replaced by the inputs.
//
// A function the entry calls (weft-outline-layers, docs/calls.md) becomes
// a static C++ function of the context and its tensors returning its
// results in one weft::rt::gen::Results; each call, a call of it and one
// takeResult per result:
//
//   static weft::rt::gen::Results weft_call_layer_0(
//       weft::rt::StepContext& v1, weft::rt::Tensor v2, ...) {
//     ...                                   (the body, one call per op)
//     weft::rt::gen::Results v9 = weft::rt::gen::results(v5, v8);
//     return v9;
//   }
//   ...
//   weft::rt::gen::Results v20 = weft_call_layer_0(v1, v4, v6, ...);
//   weft::rt::Tensor v21 = weft::rt::gen::takeResult(v20, 0);
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::lowering;

namespace {

/// func.func -> emitc.func @weft_step_<name>(weft::rt::StepContext&), then
/// `weft::rt::ProgramInfo weft_program`, the description the harness runs.
class FuncLowering : public OpConversionPattern<func::FuncOp> {
public:
  FuncLowering(const RuntimeTypeConverter &types, LoweringState &state)
      : OpConversionPattern(types, types.getTensorType().getContext()),
        types_(types), info_(state.info) {}

  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (llvm::is_contained(info_.getCallees(), func))
      return lowerCallee(func, rewriter);
    if (func != info_.getFunc())
      return rewriter.notifyMatchFailure(func, "not the lowered function");
    MLIRContext *ctx = getContext();
    Location loc = func.getLoc();
    auto ctxType = emitc::OpaqueType::get(ctx, kStepContextType);
    rewriter.setInsertionPoint(func);
    auto step = emitc::FuncOp::create(rewriter, loc, info_.getStepName(),
                                      FunctionType::get(ctx, {ctxType}, {}));
    SmallVector<Type> argTypes{ctxType};
    SmallVector<Location> argLocs{loc};
    Block *entry = rewriter.createBlock(&step.getBody(), step.getBody().end(),
                                        argTypes, argLocs);
    Value stepCtx = entry->getArgument(0);
    SmallVector<Value> inputs;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      CallArgs args(ctx);
      args.value(stepCtx).lit(std::to_string(i));
      inputs.push_back(
          createCall(rewriter, loc, kInputCallee, args, types_.getTensorType())
              .getResult(0));
    }
    rewriter.inlineBlockBefore(&func.getBody().front(), entry, entry->end(),
                               inputs);

    rewriter.setInsertionPoint(func);
    emitc::GlobalOp::create(
        rewriter, loc, "weft_program",
        emitc::OpaqueType::get(ctx, "weft::rt::ProgramInfo"),
        emitc::OpaqueAttr::get(ctx, info_.programInitializer()),
        /*extern_specifier=*/false, /*static_specifier=*/false,
        /*const_specifier=*/false);
    rewriter.eraseOp(func);
    return success();
  }

private:
  /// A function the entry calls (weft-outline-layers) -> `static
  /// weft::rt::gen::Results weft_call_<name>(weft::rt::StepContext&,
  /// weft::rt::Tensor...)`, defined before the step function that calls it.
  LogicalResult lowerCallee(func::FuncOp func,
                            ConversionPatternRewriter &rewriter) const {
    MLIRContext *ctx = getContext();
    Location loc = func.getLoc();
    SmallVector<Type> argTypes{emitc::OpaqueType::get(ctx, kStepContextType)};
    SmallVector<Location> argLocs{loc};
    for (BlockArgument arg : func.getArguments()) {
      argTypes.push_back(types_.getTensorType());
      argLocs.push_back(arg.getLoc());
    }
    rewriter.setInsertionPoint(func);
    auto fn = emitc::FuncOp::create(
        rewriter, loc, ProgramInfo::calleeName(func.getSymName()),
        FunctionType::get(ctx, argTypes,
                          {emitc::OpaqueType::get(ctx, kResultsType)}));
    fn.setSpecifiersAttr(rewriter.getStrArrayAttr({"static"}));
    Block *entry = rewriter.createBlock(&fn.getBody(), fn.getBody().end(),
                                        argTypes, argLocs);
    rewriter.inlineBlockBefore(&func.getBody().front(), entry, entry->end(),
                               entry->getArguments().drop_front());
    rewriter.eraseOp(func);
    return success();
  }

  const RuntimeTypeConverter &types_;
  const ProgramInfo &info_;
};

/// func.call of a callee -> `Results r = weft_call_<name>(ctx, args...)`,
/// then `takeResult(r, i)` per result (it moves the tensor out: `r` holds
/// no buffer after the last).
class CallLowering : public OpConversionPattern<func::CallOp> {
public:
  CallLowering(const RuntimeTypeConverter &types, LoweringState &)
      : OpConversionPattern(types, types.getTensorType().getContext()),
        types_(types) {}

  LogicalResult
  matchAndRewrite(func::CallOp call, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value stepCtx = getStepContext(call);
    if (!stepCtx)
      return rewriter.notifyMatchFailure(call, "not in the step function");
    MLIRContext *ctx = getContext();
    CallArgs args(ctx);
    args.value(stepCtx);
    for (Value v : adaptor.getOperands())
      args.value(v);
    std::string where = shortLoc(call.getLoc());
    emitc::VerbatimOp::create(
        rewriter, call.getLoc(),
        rewriter.getStringAttr("// call @" + call.getCallee().str() +
                               (where.empty() ? "" : " at " + where)));
    Value results = createCall(rewriter, call.getLoc(),
                               ProgramInfo::calleeName(call.getCallee()), args,
                               emitc::OpaqueType::get(ctx, kResultsType))
                        .getResult(0);
    SmallVector<Value> tensors;
    for (unsigned i = 0; i < call.getNumResults(); ++i) {
      CallArgs take(ctx);
      take.value(results).lit(std::to_string(i));
      tensors.push_back(createCall(rewriter, call.getLoc(), kTakeResultCallee,
                                   take, types_.getTensorType())
                            .getResult(0));
    }
    rewriter.replaceOp(call, tensors);
    return success();
  }

private:
  const RuntimeTypeConverter &types_;
};

/// func.return -> `output(ctx, i, v)` per result, then emitc.return.
class ReturnLowering : public OpConversionPattern<func::ReturnOp> {
public:
  ReturnLowering(const RuntimeTypeConverter &types, LoweringState &)
      : OpConversionPattern(types, types.getTensorType().getContext()) {}

  LogicalResult
  matchAndRewrite(func::ReturnOp ret, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value stepCtx = getStepContext(ret);
    if (!stepCtx)
      return rewriter.notifyMatchFailure(ret, "not in the step function");
    // A callee's return: its tensors in one Results.
    auto fn = ret->getParentOfType<emitc::FuncOp>();
    if (fn.getFunctionType().getNumResults() == 1) {
      CallArgs args(getContext());
      for (Value v : adaptor.getOperands())
        args.value(v);
      Value results =
          createCall(rewriter, ret.getLoc(), kResultsCallee, args,
                     emitc::OpaqueType::get(getContext(), kResultsType))
              .getResult(0);
      rewriter.replaceOpWithNewOp<emitc::ReturnOp>(ret, results);
      return success();
    }
    for (auto [i, v] : llvm::enumerate(adaptor.getOperands())) {
      CallArgs args(getContext());
      args.value(stepCtx).lit(std::to_string(i)).value(v);
      createCall(rewriter, ret.getLoc(), kOutputCallee, args);
    }
    rewriter.replaceOpWithNewOp<emitc::ReturnOp>(ret, Value());
    return success();
  }
};

} // namespace

void lowering::populateSignaturePatterns(const RuntimeTypeConverter &types,
                                         LoweringState &state,
                                         RewritePatternSet &patterns) {
  patterns.add<FuncLowering, ReturnLowering, CallLowering>(types, state);
}

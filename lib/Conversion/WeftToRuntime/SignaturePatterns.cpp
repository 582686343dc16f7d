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
    if (func != info_.getFunc())
      return rewriter.notifyMatchFailure(func, "not the lowered function");
    MLIRContext *ctx = getContext();
    Location loc = func.getLoc();
    auto ctxType = emitc::OpaqueType::get(ctx, "weft::rt::StepContext&");
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
      inputs.push_back(createCall(rewriter, loc, kInputCallee, args,
                                  types_.getTensorType())
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
  const RuntimeTypeConverter &types_;
  const ProgramInfo &info_;
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
  patterns.add<FuncLowering, ReturnLowering>(types, state);
}

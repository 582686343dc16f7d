//===- RuntimeCall.h - One op, one call of the runtime ----------*- C++ -*-===//
//
// What every pattern of the lowering shares: the type converter (a tensor
// becomes an opaque weft::rt::Tensor handle), the builder of one
// `emitc.call_opaque` of a `weft::rt::gen::` helper with its comment, plan
// constant and label, and RuntimeOpPattern, the base of the compute and
// collective patterns.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_LIB_CONVERSION_WEFTTORUNTIME_RUNTIMECALL_H
#define WEFT_LIB_CONVERSION_WEFTTORUNTIME_RUNTIMECALL_H

#include "ProgramInfo.h"

#include "weft/rt/DType.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>
#include <string>

namespace mlir::weft::lowering {

//===--- Callees the post-pass recognizes ---------------------------------===//

inline constexpr llvm::StringLiteral kInputCallee = "weft::rt::gen::input";
inline constexpr llvm::StringLiteral kOutputCallee = "weft::rt::gen::output";
inline constexpr llvm::StringLiteral kReleaseCallee = "weft::rt::gen::release";
inline constexpr llvm::StringLiteral kMapCallee = "weft::rt::gen::map";
inline constexpr llvm::StringLiteral kFusedMapCallee =
    "weft::rt::gen::fusedMap";

//===--- Calls of functions (weft-outline-layers)
//---------------------------===//

inline constexpr llvm::StringLiteral kStepContextType =
    "weft::rt::StepContext&";
/// What a lowered callee returns, and its helpers (docs/calls.md).
inline constexpr llvm::StringLiteral kResultsType = "weft::rt::gen::Results";
inline constexpr llvm::StringLiteral kResultsCallee = "weft::rt::gen::results";
inline constexpr llvm::StringLiteral kTakeResultCallee =
    "weft::rt::gen::takeResult";

//===--- Types ------------------------------------------------------------===//

/// `tensor<...>` becomes `!emitc.opaque<"weft::rt::Tensor">`, a reference
/// counted handle; every other type is left as it is. Local shapes and
/// element types are not part of the handle's type: the patterns read them
/// from the op being lowered and put them in the call's plan or literals.
class RuntimeTypeConverter : public TypeConverter {
public:
  explicit RuntimeTypeConverter(MLIRContext *ctx);
  emitc::OpaqueType getTensorType() const { return tensorType_; }

private:
  emitc::OpaqueType tensorType_;
};

//===--- Text -------------------------------------------------------------===//

/// The runtime's dtype of `type`'s elements, if it has one.
std::optional<::weft::rt::DType> toDType(Type type);
/// The static shape of a ranked tensor value.
::weft::rt::Shape shapeOf(Value v);
/// `Relu` for `relu` (the runtime's enumerator names).
std::string capitalize(StringRef s);
/// `weft::rt::ReduceKind::Sum`.
std::string reduceKindCpp(ReductionKind kind);
/// `[data,model]`, for labels.
std::string axesText(ArrayAttr axes);
/// A double as a C++ literal that round-trips (`0.5`, `2.0`).
std::string formatDouble(double v);
/// "p1.mlir:12" for the innermost file location of `loc`, else "".
std::string shortLoc(Location loc);

//===--- Calls ------------------------------------------------------------===//

/// Operands and literal arguments of one emitc.call_opaque, in order.
class CallArgs {
public:
  explicit CallArgs(MLIRContext *ctx) : ctx_(ctx) {}
  CallArgs &value(Value v);
  CallArgs &lit(const std::string &text);
  ArrayAttr attr() const { return ArrayAttr::get(ctx_, attrs_); }
  ValueRange operands() const { return operands_; }

private:
  MLIRContext *ctx_;
  SmallVector<Attribute> attrs_;
  SmallVector<Value> operands_;
};

/// `callee(args...)` at the builder's insertion point, with one result of
/// `resultType`, or none when it is null.
emitc::CallOpaqueOp createCall(OpBuilder &b, Location loc, StringRef callee,
                               const CallArgs &args, Type resultType = {});

/// The `weft::rt::StepContext&` of the step function or callee function
/// that holds `op` (the signature pattern moved the body there), or null.
Value getStepContext(Operation *op);

/// What the op patterns share while the conversion runs: the program, and
/// the number of the next plan constant. Plans are numbered in the order
/// the patterns make them, which is the body's order: the driver converts
/// the function's ops in order.
struct LoweringState {
  explicit LoweringState(const ProgramInfo &info) : info(info) {}
  const ProgramInfo &info;
  int nextPlan = 0;
};

/// The call one op of the body lowers to. A pattern adds the arguments
/// after the StepContext in order, then `replaceOp` emits the op's comment
/// and the call and replaces the op with the call's result. A pattern
/// checks everything before it adds a plan: nothing it creates is left
/// behind by a failure.
class RuntimeCallBuilder {
public:
  RuntimeCallBuilder(Operation *op, Value stepCtx,
                     ConversionPatternRewriter &rewriter,
                     const RuntimeTypeConverter &types, LoweringState &state);

  RuntimeCallBuilder &value(Value v) {
    args_.value(v);
    return *this;
  }
  RuntimeCallBuilder &lit(const std::string &text) {
    args_.lit(text);
    return *this;
  }
  /// Emits `static const <type> weft_plan<N> = <init>;` before the step
  /// function and passes its name.
  RuntimeCallBuilder &plan(StringRef type, const std::string &init);
  /// Passes the op's label as a string literal: `#<index> [<weft.name> =]
  /// <what> [(<weft.reason>)]`, what `--profile` prints.
  RuntimeCallBuilder &label(const std::string &what);
  /// `// <label of the op's name> at <file:line>`, then `callee(...)`;
  /// replaces the op with the call's tensor.
  void replaceOp(StringRef callee);

private:
  std::string labelText(const std::string &what) const;

  Operation *op_;
  ConversionPatternRewriter &rewriter_;
  const RuntimeTypeConverter &types_;
  LoweringState &state_;
  CallArgs args_;
};

/// The base of the patterns that lower one op of the body to one runtime
/// call (the compute and collective families): checks what every such op
/// needs (it sits in the step function, its result is a local type), then
/// lets the family build the call.
template <typename OpT>
class RuntimeOpPattern : public OpConversionPattern<OpT> {
public:
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;

  RuntimeOpPattern(const RuntimeTypeConverter &types, LoweringState &state)
      : OpConversionPattern<OpT>(types, types.getTensorType().getContext()),
        types_(types), state_(state) {}

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Value stepCtx = getStepContext(op);
    if (!stepCtx)
      return rewriter.notifyMatchFailure(op, "not in the step function");
    if (cast<RankedTensorType>(op->getResult(0).getType()).getEncoding())
      return op->emitError("the result still has a sharding encoding: lower "
                           "the local view, after --weft-partition");
    RuntimeCallBuilder call(op, stepCtx, rewriter, types_, state_);
    return lower(op, adaptor, call);
  }

protected:
  /// Adds the op's arguments and label to `call` and calls
  /// `call.replaceOp`; or emits an error on the op and fails, before
  /// creating anything, when the op cannot be lowered. `adaptor` holds the
  /// operands as runtime tensors; the op's own operands keep their tensor
  /// types (the driver replaces uses when the conversion commits).
  virtual LogicalResult lower(OpT op, OpAdaptor adaptor,
                              RuntimeCallBuilder &call) const = 0;

  const ProgramInfo &info() const { return state_.info; }

private:
  const RuntimeTypeConverter &types_;
  LoweringState &state_;
};

} // namespace mlir::weft::lowering

#endif // WEFT_LIB_CONVERSION_WEFTTORUNTIME_RUNTIMECALL_H

//===- RuntimeCall.cpp - One op, one call of the runtime ------------------===//

#include "RuntimeCall.h"

#include "weft/Conversion/WeftToRuntime/PlanToCpp.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/SourceLines.h"

#include "llvm/Support/Path.h"

#include <cctype>
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::lowering;
namespace rt = ::weft::rt;

RuntimeTypeConverter::RuntimeTypeConverter(MLIRContext *ctx)
    : tensorType_(emitc::OpaqueType::get(ctx, "weft::rt::Tensor")) {
  // Tried last to first: tensors become handles, the rest stays.
  addConversion([](Type type) { return type; });
  addConversion([this](RankedTensorType) -> Type { return tensorType_; });
}

std::optional<rt::DType> lowering::toDType(Type type) {
  Type e = cast<ShapedType>(type).getElementType();
  if (e.isF32())
    return rt::DType::F32;
  if (e.isF64())
    return rt::DType::F64;
  if (e.isF16())
    return rt::DType::F16;
  if (e.isBF16())
    return rt::DType::BF16;
  if (e.isInteger(32))
    return rt::DType::I32;
  return std::nullopt;
}

rt::Shape lowering::shapeOf(Value v) {
  auto s = cast<RankedTensorType>(v.getType()).getShape();
  return rt::Shape(s.begin(), s.end());
}

std::string lowering::capitalize(StringRef s) {
  std::string r = s.str();
  if (!r.empty())
    r[0] = static_cast<char>(toupper(r[0]));
  return r;
}

std::string lowering::reduceKindCpp(ReductionKind kind) {
  return "weft::rt::ReduceKind::" + capitalize(stringifyReductionKind(kind));
}

std::string lowering::axesText(ArrayAttr axes) {
  std::string s = "[";
  for (auto [i, a] : llvm::enumerate(axes)) {
    if (i)
      s += ",";
    s += cast<StringAttr>(a).getValue();
  }
  return s + "]";
}

std::string lowering::formatDouble(double v) {
  // Non-finite values as GCC and Clang builtins: "inf" is no C++ literal.
  if (std::isnan(v))
    return "__builtin_nan(\"\")";
  if (std::isinf(v))
    return v > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

std::string lowering::shortLoc(Location loc) { return fileAndLine(loc); }

CallArgs &CallArgs::value(Value v) {
  attrs_.push_back(IntegerAttr::get(IndexType::get(ctx_), operands_.size()));
  operands_.push_back(v);
  return *this;
}

CallArgs &CallArgs::lit(const std::string &text) {
  attrs_.push_back(emitc::OpaqueAttr::get(ctx_, text));
  return *this;
}

emitc::CallOpaqueOp lowering::createCall(OpBuilder &b, Location loc,
                                         StringRef callee, const CallArgs &args,
                                         Type resultType) {
  TypeRange results = resultType ? TypeRange(resultType) : TypeRange();
  return emitc::CallOpaqueOp::create(b, loc, results, callee, args.operands(),
                                     args.attr());
}

Value lowering::getStepContext(Operation *op) {
  auto step = op->getParentOfType<emitc::FuncOp>();
  // The step function, or a callee's (its context first, then tensors).
  if (!step || step.getBody().empty() || step.getNumArguments() < 1 ||
      step.getArgument(0).getType() !=
          emitc::OpaqueType::get(op->getContext(), kStepContextType))
    return Value();
  return step.getArgument(0);
}

RuntimeCallBuilder::RuntimeCallBuilder(Operation *op, Value stepCtx,
                                       ConversionPatternRewriter &rewriter,
                                       const RuntimeTypeConverter &types,
                                       LoweringState &state)
    : op_(op), rewriter_(rewriter), types_(types), state_(state),
      args_(op->getContext()) {
  args_.value(stepCtx);
}

RuntimeCallBuilder &RuntimeCallBuilder::plan(StringRef type,
                                             const std::string &init) {
  std::string name = "weft_plan" + std::to_string(state_.nextPlan++);
  OpBuilder::InsertionGuard guard(rewriter_);
  rewriter_.setInsertionPoint(op_->getParentOfType<emitc::FuncOp>());
  // One small cold function per plan, its constant a function-local static:
  // as namespace-scope constants, hundreds of plans made one static
  // initializer that g++ -O3 took minutes to optimize (T2's training step:
  // 112 s; as functions, 18 s). The plan is built on the first call.
  std::string text = "[[gnu::noinline, gnu::cold]] static const " + type.str() +
                     " &" + name + "() {\n  static const " + type.str() +
                     " plan = " + init + ";\n  return plan;\n}";
  emitc::VerbatimOp::create(rewriter_, op_->getLoc(),
                            rewriter_.getStringAttr(text));
  return lit(name + "()");
}

std::string RuntimeCallBuilder::labelText(const std::string &what) const {
  std::string s = "#";
  s += std::to_string(state_.info.opIndex(op_));
  s += " ";
  if (auto name = op_->getAttrOfType<StringAttr>(kNameAttr))
    s += name.getValue().str() + " = ";
  s += what;
  if (auto reason = op_->getAttrOfType<StringAttr>(kReasonAttr))
    s += " (" + reason.getValue().str() + ")";
  if (op_->hasAttr(kRecomputedAttr))
    s += " [recomputed]"; // weft-remat: a layer's op run again.
  return s;
}

RuntimeCallBuilder &RuntimeCallBuilder::label(const std::string &what) {
  return lit(cppString(labelText(what)));
}

void RuntimeCallBuilder::replaceOp(StringRef callee) {
  std::string where = shortLoc(op_->getLoc());
  emitc::VerbatimOp::create(
      rewriter_, op_->getLoc(),
      rewriter_.getStringAttr("// " +
                              labelText(op_->getName().getStringRef().str()) +
                              (where.empty() ? "" : " at " + where)));
  auto call = createCall(rewriter_, op_->getLoc(), callee, args_,
                         types_.convertType(op_->getResult(0).getType()));
  rewriter_.replaceOp(op_, call.getResult(0));
}

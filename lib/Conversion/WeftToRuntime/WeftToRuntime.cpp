//===- WeftToRuntime.cpp - Lower the local view to runtime calls ----------===//
//
// One local-view function becomes an EmitC module: plan constants, a step
// function calling weft::rt::gen helpers, and the ProgramInfo the harness
// runs. Plans come from the runtime's planner, called here at compile time.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Conversion/WeftToRuntime/Passes.h"
#include "weft/Conversion/WeftToRuntime/PlanToCpp.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Interpreter/IdBound.h"

#include "weft/rt/EinsumPlan.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Error.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <cstdio>

#define DEBUG_TYPE "weft-lower-to-runtime"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTLOWERTORUNTIME
#include "weft/Conversion/WeftToRuntime/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;
namespace rt = ::weft::rt;

namespace {


/// The mesh the function runs on, as names and sizes.
struct MeshDesc {
  SmallVector<std::string> axes;
  SmallVector<int64_t> sizes;

  int index(StringRef axis) const {
    for (auto [i, a] : llvm::enumerate(axes))
      if (a == axis)
        return static_cast<int>(i);
    return -1;
  }
};

/// An input or output: its global type and layout, as the harness sees it.
struct Signature {
  std::string name;
  RankedTensorType global;
  rt::DType dtype = rt::DType::F32;
  std::vector<std::vector<int>> dims;
  std::vector<int> partial;
  ReductionKind partialKind = ReductionKind::Sum;
  int64_t intBound = 1;
};

/// The runtime's dtype of `type`'s elements, if it has one.
std::optional<rt::DType> toDType(Type type) {
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

rt::Shape shapeOf(Value v) {
  auto s = cast<RankedTensorType>(v.getType()).getShape();
  return rt::Shape(s.begin(), s.end());
}

std::string capitalize(StringRef s) {
  std::string r = s.str();
  if (!r.empty())
    r[0] = static_cast<char>(toupper(r[0]));
  return r;
}

std::string identifier(StringRef s) {
  std::string r;
  for (char c : s)
    r += isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return r;
}

/// "p1.mlir:12" for the innermost file location of `loc`, else "".
std::string shortLoc(Location loc) {
  std::string out;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      out = (llvm::sys::path::filename(f.getFilename().getValue()) + ":" +
             Twine(f.getLine()))
                .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return out;
}

std::string formatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

/// Operands and literal arguments of one emitc.call_opaque, in order.
class CallArgs {
public:
  explicit CallArgs(MLIRContext *ctx) : ctx_(ctx) {}
  CallArgs &value(Value v) {
    attrs_.push_back(IntegerAttr::get(IndexType::get(ctx_), operands_.size()));
    operands_.push_back(v);
    return *this;
  }
  CallArgs &lit(const std::string &text) {
    attrs_.push_back(emitc::OpaqueAttr::get(ctx_, text));
    return *this;
  }
  ArrayAttr attr() const { return ArrayAttr::get(ctx_, attrs_); }
  ValueRange operands() const { return operands_; }

private:
  MLIRContext *ctx_;
  SmallVector<Attribute> attrs_;
  SmallVector<Value> operands_;
};

class FunctionLowering {
public:
  FunctionLowering(func::FuncOp func, MeshDesc mesh)
      : func_(func), mesh_(std::move(mesh)), ctx_(func.getContext()), b_(func) {
    tensorType_ = emitc::OpaqueType::get(ctx_, "weft::rt::Tensor");
  }
  LogicalResult lower();

private:
  FailureOr<std::vector<int>> axisIndices(Operation *op, ArrayAttr axes);
  FailureOr<Signature> signature(Type local, Attribute globalAttr,
                                 StringAttr name, const Twine &what,
                                 bool isInput);
  std::string label(Operation *op, const std::string &what);
  std::string plan(StringRef type, const std::string &init);
  Value call(StringRef callee, const CallArgs &args, bool hasResult);
  LogicalResult lowerOp(Operation *op, bool lastUseOfOperand0);
  std::string programInfo(StringRef stepName);

  func::FuncOp func_;
  MeshDesc mesh_;
  MLIRContext *ctx_;
  OpBuilder b_;
  Type tensorType_;
  Value stepCtx_;
  Operation *stepFn_ = nullptr;
  DenseMap<Value, Value> values_;
  SmallVector<Signature> inputs_, outputs_;
  int opIndex_ = 0;
  int planIndex_ = 0;
};

FailureOr<std::vector<int>> FunctionLowering::axisIndices(Operation *op,
                                                          ArrayAttr axes) {
  std::vector<int> out;
  for (Attribute a : axes) {
    StringRef name = cast<StringAttr>(a).getValue();
    int i = mesh_.index(name);
    if (i < 0)
      return op->emitError("axis \"")
             << name << "\" is not an axis of the mesh";
    out.push_back(i);
  }
  return out;
}

FailureOr<Signature>
FunctionLowering::signature(Type local, Attribute globalAttr, StringAttr name,
                            const Twine &what, bool isInput) {
  Signature sig;
  auto localType = dyn_cast<RankedTensorType>(local);
  if (!localType || !localType.hasStaticShape())
    return func_.emitError()
           << what << " has type " << local << ", expected a static tensor";
  if (localType.getEncoding())
    return func_.emitError()
           << what << " still has a sharding encoding (" << local
           << "): lower the local view, after --weft-partition";
  if (name)
    sig.name = name.getValue().str();
  sig.global = localType;
  ShardingAttr sharding;
  if (globalAttr) {
    auto typeAttr = dyn_cast<TypeAttr>(globalAttr);
    auto global =
        typeAttr ? dyn_cast<RankedTensorType>(typeAttr.getValue()) : nullptr;
    if (!global || !global.hasStaticShape())
      return func_.emitError()
             << what << ": `weft.global_type` must be a static tensor type";
    sig.global =
        RankedTensorType::get(global.getShape(), global.getElementType());
    sharding = getSharding(global);
  }
  unsigned rank = sig.global.getRank();
  sig.dims.resize(rank);
  SmallVector<int64_t> expected(sig.global.getShape());
  if (sharding) {
    if (sharding.getRank() != rank)
      return func_.emitError() << what << ": sharding rank mismatch";
    for (unsigned d = 0; d < rank; ++d) {
      for (StringRef axis : sharding.getDimAxes(d)) {
        int i = mesh_.index(axis);
        if (i < 0)
          return func_.emitError() << what << ": axis \"" << axis
                                   << "\" is not an axis of the mesh";
        sig.dims[d].push_back(i);
        if (expected[d] % mesh_.sizes[i] != 0)
          return func_.emitError()
                 << what << ": dim " << d << " is not divisible by its axes";
        expected[d] /= mesh_.sizes[i];
      }
    }
    for (StringRef axis : sharding.getPartialAxisNames()) {
      int i = mesh_.index(axis);
      if (i < 0)
        return func_.emitError() << what << ": axis \"" << axis
                                 << "\" is not an axis of the mesh";
      sig.partial.push_back(i);
    }
    sig.partialKind = sharding.getPartialKind();
    if (isInput && !sig.partial.empty())
      return func_.emitError()
             << what << " is partial; inputs must not be partial";
  }
  if (sig.global.getElementType() != localType.getElementType() ||
      ArrayRef<int64_t>(expected) != localType.getShape())
    return func_.emitError()
           << what << ": local type " << local
           << " is not the per-device block of the global type " << sig.global
           << " (expected shape "
           << RankedTensorType::get(expected, localType.getElementType())
           << ")";
  auto dtype = toDType(localType);
  if (!dtype)
    return func_.emitError()
           << what << " has element type " << localType.getElementType()
           << ", which the runtime does not support";
  sig.dtype = *dtype;
  return sig;
}

std::string FunctionLowering::label(Operation *op, const std::string &what) {
  std::string s = "#" + std::to_string(opIndex_) + " ";
  if (auto name = op->getAttrOfType<StringAttr>(kNameAttr))
    s += name.getValue().str() + " = ";
  s += what;
  if (auto reason = op->getAttrOfType<StringAttr>(kReasonAttr))
    s += " (" + reason.getValue().str() + ")";
  return s;
}

std::string FunctionLowering::plan(StringRef type, const std::string &init) {
  std::string name = "weft_plan" + std::to_string(planIndex_++);
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPoint(stepFn_);
  emitc::GlobalOp::create(b_, func_.getLoc(), name,
                          emitc::OpaqueType::get(ctx_, type),
                          emitc::OpaqueAttr::get(ctx_, init),
                          /*extern_specifier=*/false,
                          /*static_specifier=*/true,
                          /*const_specifier=*/true);
  return name;
}

Value FunctionLowering::call(StringRef callee, const CallArgs &args,
                             bool hasResult) {
  TypeRange results = hasResult ? TypeRange(tensorType_) : TypeRange();
  auto op = emitc::CallOpaqueOp::create(b_, func_.getLoc(), results, callee,
                                        args.operands(), args.attr());
  return hasResult ? op.getResult(0) : Value();
}

LogicalResult FunctionLowering::lowerOp(Operation *op, bool inPlace) {
  CallArgs args(ctx_);
  args.value(stepCtx_);
  auto operand = [&](unsigned i) { return values_.lookup(op->getOperand(i)); };
  auto axisList = [&](ArrayAttr axes) -> FailureOr<std::string> {
    auto idx = axisIndices(op, axes);
    if (failed(idx))
      return failure();
    return "weft::rt::AxisList" + toCpp(*idx);
  };
  auto outShape = [&]() {
    return "weft::rt::Shape" + toCpp(shapeOf(op->getResult(0)));
  };
  auto axesStr = [](ArrayAttr axes) {
    std::string s = "[";
    for (auto [i, a] : llvm::enumerate(axes)) {
      if (i)
        s += ",";
      s += cast<StringAttr>(a).getValue();
    }
    return s + "]";
  };
  auto reduceKind = [](ReductionKind k) {
    return "weft::rt::ReduceKind::" + capitalize(stringifyReductionKind(k));
  };
  auto planError = [&](const rt::Error &e) {
    return op->emitError("the runtime cannot plan this op: ") << e.what();
  };
  std::string callee;

  try {
    if (auto einsum = dyn_cast<EinsumOp>(op)) {
      auto dtype = toDType(einsum.getType());
      if (!dtype)
        return op->emitError("cannot lower element type ")
               << einsum.getType().getElementType() << " to the runtime";
      std::string spec = einsum.getSpec().str();
      rt::EinsumPlan p =
          op->getNumOperands() == 1
              ? rt::planEinsum(spec, shapeOf(op->getOperand(0)), *dtype)
              : rt::planEinsum(spec, shapeOf(op->getOperand(0)),
                               shapeOf(op->getOperand(1)), *dtype);
      args.lit(plan("weft::rt::EinsumPlan", toCpp(p)));
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        args.value(operand(i));
      args.lit(cppString(label(op, "einsum " + spec)));
      callee = "weft::rt::gen::einsum";
    } else if (auto map = dyn_cast<MapOp>(op)) {
      std::vector<rt::Shape> shapes;
      for (Value v : op->getOperands())
        shapes.push_back(shapeOf(v));
      std::string spec = map.getSpec().str();
      rt::MapPlan p = rt::planMap(spec, shapes);
      StringRef kind = stringifyMapKind(map.getKind());
      args.lit("weft::rt::MapKind::" + capitalize(kind));
      args.lit(plan("weft::rt::MapPlan", toCpp(p)));
      args.value(operand(0));
      if (op->getNumOperands() == 2)
        args.value(operand(1));
      else
        args.lit(formatDouble(
            map.getScalar() ? map.getScalar()->convertToDouble() : 0.0));
      args.lit(cppString(label(op, ("map " + kind + " " + spec).str())));
      callee = "weft::rt::gen::map";
    } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
      std::string spec = reduce.getSpec().str();
      rt::ReducePlan p = rt::planReduce(spec, shapeOf(reduce.getInput()));
      args.lit(reduceKind(reduce.getKind()));
      args.lit(plan("weft::rt::ReducePlan", toCpp(p)));
      args.value(operand(0));
      args.lit(cppString(label(
          op,
          ("reduce " + stringifyReductionKind(reduce.getKind()) + " " + spec)
              .str())));
      callee = "weft::rt::gen::reduce";
    } else if (auto embed = dyn_cast<EmbedOp>(op)) {
      std::string spec = embed.getSpec().str();
      rt::EmbedPlan p = rt::planEmbed(spec, shapeOf(embed.getIds()),
                                      shapeOf(embed.getTable()));
      args.lit(plan("weft::rt::EmbedPlan", toCpp(p)));
      args.value(operand(0)).value(operand(1));
      std::string axes = "weft::rt::AxisList{}";
      std::string what = "embed " + spec;
      if (auto vocab = embed.getVocabAxesAttr()) {
        auto list = axisList(vocab);
        if (failed(list))
          return failure();
        axes = *list;
        what += " vocab " + axesStr(vocab);
      }
      args.lit(axes);
      args.lit(cppString(label(op, what)));
      callee = "weft::rt::gen::embed";
    } else if (auto ar = dyn_cast<AllReduceOp>(op)) {
      auto axes = axisList(ar.getAxes());
      if (failed(axes))
        return failure();
      args.value(operand(0)).lit(*axes).lit(reduceKind(ar.getKind()));
      args.lit(inPlace ? "true" : "false");
      args.lit(cppString(
          label(op, ("all_reduce " + stringifyReductionKind(ar.getKind()) +
                     " " + axesStr(ar.getAxes()))
                        .str())));
      callee = "weft::rt::gen::allReduce";
    } else if (auto ag = dyn_cast<AllGatherOp>(op)) {
      auto axes = axisList(ag.getAxes());
      if (failed(axes))
        return failure();
      args.value(operand(0)).lit(std::to_string(ag.getDim())).lit(*axes);
      args.lit(outShape());
      args.lit(cppString(label(op, "all_gather " + axesStr(ag.getAxes()) +
                                       " dim " + std::to_string(ag.getDim()))));
      callee = "weft::rt::gen::allGather";
    } else if (auto rs = dyn_cast<ReduceScatterOp>(op)) {
      auto axes = axisList(rs.getAxes());
      if (failed(axes))
        return failure();
      args.value(operand(0)).lit(std::to_string(rs.getDim())).lit(*axes);
      args.lit(reduceKind(rs.getKind())).lit(outShape());
      args.lit(cppString(label(
          op, ("reduce_scatter " + stringifyReductionKind(rs.getKind()) + " " +
               axesStr(rs.getAxes()) + " dim " + std::to_string(rs.getDim()))
                  .str())));
      callee = "weft::rt::gen::reduceScatter";
    } else if (auto a2a = dyn_cast<AllToAllOp>(op)) {
      auto axes = axisList(a2a.getAxes());
      if (failed(axes))
        return failure();
      args.value(operand(0))
          .lit(std::to_string(a2a.getSplitDim()))
          .lit(std::to_string(a2a.getConcatDim()))
          .lit(*axes)
          .lit(outShape());
      args.lit(
          cppString(label(op, "all_to_all " + axesStr(a2a.getAxes()) + " " +
                                  std::to_string(a2a.getSplitDim()) + "->" +
                                  std::to_string(a2a.getConcatDim()))));
      callee = "weft::rt::gen::allToAll";
    } else if (auto ss = dyn_cast<SliceShardOp>(op)) {
      auto axes = axisList(ss.getAxes());
      if (failed(axes))
        return failure();
      args.value(operand(0)).lit(std::to_string(ss.getDim())).lit(*axes);
      args.lit(outShape());
      args.lit(cppString(label(op, "slice_shard " + axesStr(ss.getAxes()) +
                                       " dim " + std::to_string(ss.getDim()))));
      callee = "weft::rt::gen::sliceShard";
    } else if (isa<ShardOp>(op)) {
      return op->emitError("weft.shard belongs to the global view: run "
                           "--weft-partition before --weft-lower-to-runtime");
    } else {
      return op->emitError("cannot lower '")
             << op->getName() << "' to the runtime";
    }
  } catch (const rt::Error &e) {
    return planError(e);
  }
  if (auto enc =
          cast<RankedTensorType>(op->getResult(0).getType()).getEncoding())
    return op->emitError("the result still has a sharding encoding: lower the "
                         "local view, after --weft-partition");
  std::string where = shortLoc(op->getLoc());
  emitc::VerbatimOp::create(
      b_, op->getLoc(),
      b_.getStringAttr("// " + label(op, op->getName().getStringRef().str()) +
                       (where.empty() ? "" : " at " + where)));
  values_[op->getResult(0)] = call(callee, args, /*hasResult=*/true);
  ++opIndex_;
  return success();
}

std::string FunctionLowering::programInfo(StringRef stepName) {
  auto tensors = [&](ArrayRef<Signature> sigs) {
    std::string s = "{";
    for (auto [i, sig] : llvm::enumerate(sigs)) {
      std::string layout = "weft::rt::Layout{.dims = {";
      for (auto [d, axes] : llvm::enumerate(sig.dims))
        layout += (d ? ", " : "") + ("weft::rt::AxisList" + toCpp(axes));
      layout += "}}";
      s += (i ? ",\n    " : "\n    ");
      s += "weft::rt::ProgramTensor{.name = " + cppString(sig.name) +
           ", .dtype = " + toCpp(sig.dtype) +
           ", .globalShape = " +
           toCpp(std::vector<int64_t>(sig.global.getShape().begin(),
                                      sig.global.getShape().end())) +
           ", .layout = " + layout + ", .partialAxes = weft::rt::AxisList" +
           toCpp(sig.partial) + ", .partialKind = weft::rt::ReduceKind::" +
           capitalize(stringifyReductionKind(sig.partialKind)) +
           ", .intBound = " + std::to_string(sig.intBound) + "}";
    }
    return s + "}";
  };
  std::string mesh = "{";
  for (auto [i, a] : llvm::enumerate(mesh_.axes))
    mesh += (i ? ", " : "") + ("weft::rt::MeshAxis{" + cppString(a) + ", " +
                               std::to_string(mesh_.sizes[i]) + "}");
  mesh += "}";
  std::string source;
  std::string where = shortLoc(func_.getLoc());
  source = where.substr(0, where.rfind(':'));
  return "{.name = " + cppString(func_.getSymName().str()) +
         ", .source = " + cppString(source) + ", .mesh = " + mesh +
         ",\n  .inputs = " + tensors(inputs_) +
         ",\n  .outputs = " + tensors(outputs_) +
         ",\n  .step = " + stepName.str() + "}";
}

LogicalResult FunctionLowering::lower() {
  if (!func_.getBody().hasOneBlock())
    return func_.emitError("expected a function with one block");
  Block &body = func_.getBody().front();

  // The signature: names, global types and layouts.
  for (unsigned i = 0; i < func_.getNumArguments(); ++i) {
    auto name = getArgName(func_, i);
    auto sig = signature(func_.getArgument(i).getType(),
                         getArgGlobalType(func_, i), name,
                         "argument #" + Twine(i), /*isInput=*/true);
    if (failed(sig))
      return failure();
    if (sig->global.getElementType().isInteger(32))
      sig->intBound = getIdBound(func_, i);
    inputs_.push_back(*sig);
  }
  for (unsigned i = 0; i < func_.getNumResults(); ++i) {
    auto name = getResultName(func_, i);
    auto sig = signature(func_.getResultTypes()[i],
                         getResultGlobalType(func_, i), name,
                         "result #" + Twine(i), /*isInput=*/false);
    if (failed(sig))
      return failure();
    outputs_.push_back(*sig);
  }
  // Names: the given ones must be unique (they name .npy files); an unnamed
  // input or output is arg<i> / result<i>, with a suffix _<k> when a given
  // name (or an earlier fallback) already took that.
  llvm::StringSet<> names;
  for (const Signature &s : llvm::concat<Signature>(inputs_, outputs_))
    if (!s.name.empty() && !names.insert(s.name).second)
      return func_.emitError("two inputs or outputs are named '")
             << s.name << "'; names must be unique (they name .npy files)";
  auto fallback = [&](Signature &s, const std::string &base) {
    if (!s.name.empty())
      return;
    s.name = base;
    for (int k = 1; !names.insert(s.name).second; ++k)
      s.name = base + "_" + std::to_string(k);
  };
  for (auto [i, s] : llvm::enumerate(inputs_))
    fallback(s, "arg" + std::to_string(i));
  for (auto [i, s] : llvm::enumerate(outputs_))
    fallback(s, "result" + std::to_string(i));

  // Last use of every value, by op position.
  DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  DenseMap<Value, unsigned> lastUse;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      lastUse[v] = std::max(lastUse.lookup(v), position[&op]);

  // The step function.
  std::string stepName = "weft_step_" + identifier(func_.getSymName());
  auto ctxType = emitc::OpaqueType::get(ctx_, "weft::rt::StepContext&");
  auto fnType = FunctionType::get(ctx_, {ctxType}, {});
  auto step = emitc::FuncOp::create(b_, func_.getLoc(), stepName, fnType);
  stepFn_ = step;
  Block *entry = step.addEntryBlock();
  b_.setInsertionPointToStart(entry);
  stepCtx_ = entry->getArgument(0);

  for (unsigned i = 0; i < func_.getNumArguments(); ++i) {
    CallArgs args(ctx_);
    args.value(stepCtx_).lit(std::to_string(i));
    values_[func_.getArgument(i)] =
        call("weft::rt::gen::input", args, /*hasResult=*/true);
  }
  for (Operation &op : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        CallArgs args(ctx_);
        args.value(stepCtx_).lit(std::to_string(i)).value(values_.lookup(v));
        call("weft::rt::gen::output", args, /*hasResult=*/false);
      }
    } else {
      if (op.getNumResults() != 1)
        return op.emitError("cannot lower '")
               << op.getName() << "' to the runtime";
      Value in0 = op.getNumOperands() ? op.getOperand(0) : Value();
      bool inPlace = in0 && !isa<BlockArgument>(in0) &&
                     lastUse.lookup(in0) == position[&op] &&
                     llvm::count(op.getOperands(), in0) == 1;
      if (failed(lowerOp(&op, inPlace)))
        return failure();
    }
    // Free what died here (arguments stay alive in the step context).
    llvm::SetVector<Value> dead;
    for (Value v : op.getOperands())
      if (!isa<BlockArgument>(v) && lastUse.lookup(v) == position[&op])
        dead.insert(v);
    for (Value r : op.getResults())
      if (r.use_empty())
        dead.insert(r);
    for (Value v : dead) {
      CallArgs args(ctx_);
      args.value(values_.lookup(v));
      call("weft::rt::gen::release", args, /*hasResult=*/false);
    }
  }
  emitc::ReturnOp::create(b_, func_.getLoc(), Value());

  // The program description the harness runs.
  b_.setInsertionPoint(func_);
  emitc::GlobalOp::create(b_, func_.getLoc(), "weft_program",
                          emitc::OpaqueType::get(ctx_, "weft::rt::ProgramInfo"),
                          emitc::OpaqueAttr::get(ctx_, programInfo(stepName)),
                          false, false, false);
  return success();
}

/// The mesh `func` runs on (getFunctionMesh), as names and sizes.
FailureOr<MeshDesc> findMesh(func::FuncOp func) {
  SymbolTableCollection tables;
  FailureOr<MeshOp> mesh = getFunctionMesh(func, tables);
  if (failed(mesh))
    return failure();
  MeshDesc desc;
  if (*mesh) {
    for (Attribute a : mesh->getAxisNames())
      desc.axes.push_back(cast<StringAttr>(a).getValue().str());
    desc.sizes.assign(mesh->getAxisSizes().begin(), mesh->getAxisSizes().end());
  }
  return desc;
}

struct WeftLowerToRuntimePass
    : public mlir::weft::impl::WeftLowerToRuntimeBase<WeftLowerToRuntimePass> {
  using WeftLowerToRuntimeBase::WeftLowerToRuntimeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> selected =
        selectFunction(module, entry, "weft-lower-to-runtime", "entry=NAME");
    if (failed(selected))
      return signalPassFailure();
    func::FuncOp func = *selected;
    auto mesh = findMesh(func);
    if (failed(mesh))
      return signalPassFailure();

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    std::string source = shortLoc(func.getLoc());
    emitc::VerbatimOp::create(
        b, module.getLoc(),
        b.getStringAttr("// Generated by weft-lower-to-runtime from " +
                        (source.empty() ? std::string("<unknown>") : source) +
                        " (function @" + func.getSymName().str() +
                        "). Do not edit."));
    emitc::IncludeOp::create(b, module.getLoc(), "weft/rt/Program.h", false);

    if (failed(FunctionLowering(func, *mesh).lower()))
      return signalPassFailure();

    // The module is now one C++ translation unit: drop everything weft.
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      if (isa<func::FuncOp, MeshOp>(op))
        op.erase();
  }
};

} // namespace

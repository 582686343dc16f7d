//===- StageCalls.cpp - the weft-stage-calls pass -------------------------===//
//
// Pipeline parallelism from layer calls (weftc --pipeline-stages=N,
// docs/pipeline.md "Stages from layer calls"). The entry's chain of K calls
// of one layer function becomes the GPipe rolling buffer that
// bench/pipeline/make_pipeline_*.py write by hand:
//
//   1. The chain: every call of the entry is of one function @f with one
//      result; call i + 1 reads call i's result at one operand position a
//      (the activation). Every other operand position is either the same
//      value at every call (shared: it must not depend on the entry's
//      arguments, so it is the same for every micro-batch) or a distinct
//      entry argument per call, used once (a weight).
//   2. Stages: stage s runs calls s*K/N .. (s+1)*K/N - 1 (the calls are of
//      one function, so the equal split is the balanced one), or the calls
//      say so (`weft.stage = s` on every call of the chain: consecutive
//      calls, from stage 0, the same number on every stage). The weights
//      of local layer k become one entry argument stacked over the stages,
//      [N, ...] split over the stage axis, named "<stage 0's name>.stages".
//   3. Ticks: the chain's input [B, ...] is reshaped into M micro-batches
//      of B / M rows (rows i, i + M, ...: a split of B over "data" stays on
//      the micro-batch's rows); tick t (0 .. M + N - 2) shifts the buffer
//      one stage on, injects micro-batch t into stage 0's slot (t < M),
//      calls @f.stages once per local layer (@f's ops once per stage: a
//      leading letter on einsum, map and reduce specs, a leading axis on
//      weft.shard's layout), and reads the last stage's slot (t >= N - 1). The
//      M results are put back into the batch, which replaces the last call's
//      result.
//
//===----------------------------------------------------------------------===//

#include "StageCalls.h"

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/IndexSpec.h"
#include "weft/Dialect/Weft/IR/WeftBuilders.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"

#include <string>

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTSTAGECALLS
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// `type` with a leading dimension of size `n`; split over `axis` of `mesh`
/// if `type` has a layout or `annotate` is set (then the other dimensions
/// keep theirs, or are replicated).
RankedTensorType stackedType(Type type, int64_t n, FlatSymbolRefAttr mesh,
                             StringRef axis, bool annotate) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape{n};
  llvm::append_range(shape, t.getShape());
  ShardingAttr old = getSharding(t);
  if (!old && !annotate)
    return RankedTensorType::get(shape, t.getElementType());
  SmallVector<SmallVector<StringRef>> dims{{axis}};
  ReductionKind kind = ReductionKind::Sum;
  SmallVector<StringRef> partial;
  if (old) {
    for (unsigned d = 0; d < old.getRank(); ++d)
      dims.push_back(old.getDimAxes(d));
    kind = old.getPartialKind();
    partial = old.getPartialAxisNames();
  } else {
    dims.append(t.getRank(), {});
  }
  auto enc = ShardingAttr::get(old ? old.getMesh() : mesh, dims, kind, partial);
  return RankedTensorType::get(shape, t.getElementType(), enc);
}

/// Whether `type`'s layout uses the mesh axis `axis` (a dimension's or
/// partial).
bool usesAxis(Type type, StringRef axis) {
  ShardingAttr layout = getSharding(type);
  if (!layout)
    return false;
  bool uses = llvm::is_contained(layout.getPartialAxisNames(), axis);
  for (unsigned d = 0; d < layout.getRank(); ++d)
    uses |= llvm::is_contained(layout.getDimAxes(d), axis);
  return uses;
}

/// Puts a fresh letter in front of the letter spec of `copy` (an einsum,
/// map or reduce, parsed with IndexSpec, the verifiers' parser) on the
/// operands marked in `stacked` and on the result, and returns the
/// result's shape in `shape`: each result letter's extent where an operand
/// has it (a micro-batch has fewer rows than the batch the layer was
/// written for). On failure, `error` says why.
LogicalResult stackLetterSpec(Operation *copy, ArrayRef<bool> stacked,
                              SmallVectorImpl<int64_t> &shape,
                              std::string &error) {
  auto attr = copy->getAttrOfType<StringAttr>("spec");
  FailureOr<IndexSpec> spec =
      IndexSpec::parse(attr.getValue(), error, /*allowBroadcast=*/true);
  if (failed(spec))
    return failure();
  std::string used = spec->allLetters();
  char letter = 0;
  for (char c :
       StringRef("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    if (!StringRef(used).contains(c)) {
      letter = c;
      break;
    }
  if (!letter) {
    error = "no free letter for the stage dimension";
    return failure();
  }
  for (auto [i, in] : llvm::enumerate(spec->inputs))
    if (i < stacked.size() && stacked[i])
      in.insert(in.begin(), letter);
  spec->result.insert(spec->result.begin(), letter);
  copy->setAttr("spec", StringAttr::get(copy->getContext(), spec->str()));
  if (succeeded(stage::resultShapeOf(*spec, copy->getOperands(), shape)))
    return success();
  error = "a result letter is not an operand's: no per-stage form";
  return failure();
}

/// `count` letters for the dimensions after the batch, avoiding the ones
/// the pass's own specs use (s, b, j, m).
std::string restLetters(int64_t count) {
  std::string s;
  for (char c : StringRef("cdefghiklnopqrtuvwxyz"))
    if ((int64_t)s.size() < count)
      s += c;
  return s;
}

/// @<callee>.stages: `callee`'s ops once per stage, on a leading stage
/// dimension of size `n` (split over `axis`): the activation (argument
/// `act`) as `bufType`, each weight (isWeight) stacked like `weights[j][0]`,
/// the other arguments as they are. einsum, map and reduce get a leading
/// letter on the stacked operands and the result, weft.shard a leading
/// axis; an op that reads no stacked value is copied; any other op is an
/// error at the op. Result shapes follow the operands' (a micro-batch has
/// fewer rows than the batch the layer was written for).
FailureOr<func::FuncOp> buildStackedLayer(func::FuncOp callee, int64_t act,
                                          ArrayRef<bool> isWeight,
                                          ArrayRef<SmallVector<Value>> weights,
                                          RankedTensorType bufType, int64_t n,
                                          FlatSymbolRefAttr mesh,
                                          StringRef axis, ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  auto fail = [&](Operation *at) {
    return at->emitError() << "weft-stage-calls: ";
  };
  unsigned numArgs = callee.getNumArguments();
  SmallVector<Type> argTypes;
  for (unsigned j = 0; j < numArgs; ++j)
    argTypes.push_back((int64_t)j == act ? Type(bufType)
                       : isWeight[j]     ? weights[j][0].getType()
                                         : callee.getArgumentTypes()[j]);
  OpBuilder mb(ctx);
  mb.setInsertionPointAfter(callee);
  auto fn = func::FuncOp::create(mb, callee.getLoc(),
                                 (callee.getSymName() + ".stages").str(),
                                 FunctionType::get(ctx, argTypes, {bufType}));
  fn.setPrivate();
  SymbolTable(module).insert(fn);
  Block *body = fn.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(body);
  IRMapping map;
  DenseSet<Value> isStacked;
  for (unsigned j = 0; j < numArgs; ++j) {
    map.map(callee.getArgument(j), body->getArgument(j));
    if ((int64_t)j == act || isWeight[j])
      isStacked.insert(body->getArgument(j));
  }
  auto abandon = [&]() {
    fn.erase();
    return failure();
  };
  for (Operation &op : callee.getBody().front()) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      Value r = map.lookup(op.getOperand(0));
      if (!isStacked.contains(r)) {
        fail(&op) << "@" << callee.getSymName()
                  << "'s result does not depend on its input or "
                     "weights";
        return abandon();
      }
      if (r.getType() != bufType) {
        fail(&op) << "@" << callee.getSymName() << "'s result, stacked, "
                  << "is " << r.getType() << ", not the buffer's " << bufType;
        return abandon();
      }
      func::ReturnOp::create(b, op.getLoc(), r);
      return fn;
    }
    SmallVector<bool> stacked;
    for (Value v : op.getOperands())
      stacked.push_back(isStacked.contains(map.lookupOrDefault(v)));
    if (!llvm::is_contained(stacked, true)) {
      b.clone(op, map);
      continue;
    }
    if (op.getNumRegions() != 0 || op.getNumResults() != 1 ||
        !isa<EinsumOp, MapOp, ReduceOp, ShardOp>(op)) {
      fail(&op) << "cannot run once per pipeline stage: "
                   "weft-stage-calls stacks weft.einsum, weft.map, "
                   "weft.reduce and weft.shard (and copies ops that "
                   "read no activation or weight)";
      return abandon();
    }
    // weft.shard keeps its operand's shape; the others' follows their
    // stacked spec.
    Operation *copy = b.clone(op, map);
    Value res = copy->getResult(0);
    RankedTensorType stackedRes =
        stackedType(res.getType(), n, mesh, axis, false);
    SmallVector<int64_t> shape;
    if (copy->hasAttr("spec")) {
      std::string error;
      if (failed(stackLetterSpec(copy, stacked, shape, error))) {
        fail(&op) << error;
        return abandon();
      }
    } else {
      llvm::append_range(
          shape,
          cast<RankedTensorType>(copy->getOperand(0).getType()).getShape());
    }
    res.setType(RankedTensorType::get(shape, stackedRes.getElementType(),
                                      stackedRes.getEncoding()));
    isStacked.insert(res);
  }
  fail(callee) << "has no return";
  return abandon();
}

} // namespace

namespace mlir::weft::stage {

LogicalResult resultShapeOf(const IndexSpec &spec, ValueRange operands,
                            SmallVectorImpl<int64_t> &shape) {
  llvm::DenseMap<char, int64_t> extent;
  for (auto [in, v] : llvm::zip(spec.inputs, operands)) {
    auto t = cast<RankedTensorType>(v.getType());
    for (auto [d, c] : llvm::enumerate(in))
      if ((int64_t)d < t.getRank())
        extent[c] = t.getDimSize(d);
  }
  for (char c : spec.result) {
    auto it = extent.find(c);
    if (it == extent.end())
      return failure();
    shape.push_back(it->second);
  }
  return success();
}

Ticks::Ticks(OpBuilder &b, Location loc, const Chain &chain)
    : b(b), loc(loc), c(chain) {
  Type elt = c.h0Type.getElementType();
  vecType = RankedTensorType::get(
      {c.n}, elt,
      ShardingAttr::get(c.mesh, SmallVector<SmallVector<StringRef>>{{c.axis}}));
  pos = IotaOp::create(b, loc, vecType, FlatSymbolRefAttr(), ArrayAttr());
  npos = MapOp::create(b, loc, vecType, MapKind::Neg, "s->s", ValueRange{pos},
                       FloatAttr());
  first = stageMask(0, 0);
  last = stageMask(c.n - 1, c.n - 1);
}

Value Ticks::stageMask(int64_t s0, int64_t s1) {
  // step(x + by): 1 where x + by > 0.
  auto stepOf = [&](Value x, double by) -> Value {
    Value shifted = MapOp::create(b, loc, vecType, MapKind::Shift, "s->s",
                                  ValueRange{x}, b.getF64FloatAttr(by));
    return MapOp::create(b, loc, vecType, MapKind::Step, "s->s",
                         ValueRange{shifted}, FloatAttr());
  };
  // step(s - s0 + 1/2) x step(s1 - s + 1/2); one factor where the other is
  // 1 everywhere.
  Value lo = s0 > 0 ? stepOf(pos, 0.5 - double(s0)) : Value();
  Value hi = s1 < c.n - 1 ? stepOf(npos, double(s1) + 0.5) : Value();
  if (lo && hi)
    return MapOp::create(b, loc, vecType, MapKind::Mul, "s,s->s",
                         ValueRange{lo, hi}, FloatAttr());
  if (lo || hi)
    return lo ? lo : hi;
  return ConstantOp::create(b, loc, vecType, b.getF64FloatAttr(1.0));
}

Value Ticks::forwardInput(Value prev, Value h0, int64_t t) {
  Value in;
  if (t < c.m)
    in = inject(first, microBatch(h0, t));
  if (!prev)
    return in;
  Value sh = shift(prev, 1);
  return in ? addSlots(sh, in) : sh;
}

Value Ticks::microBatch(Value v, int64_t j) {
  auto t = cast<RankedTensorType>(v.getType());
  std::string x = restLetters(t.getRank() - 1);
  auto typeOf = [&](ArrayRef<int64_t> lead) {
    SmallVector<int64_t> shape(lead);
    llvm::append_range(shape, t.getShape().drop_front());
    return RankedTensorType::get(shape, t.getElementType());
  };
  // The reshape at the first micro-batch's slice (the ticks are in one
  // block, in order).
  Value &r = split[v];
  if (!r)
    r = ReshapeOp::create(b, loc, typeOf({c.rows, c.m}),
                          "(bm)" + x + "->bm" + x, v);
  Value xs = SliceOp::create(b, loc, typeOf({c.rows, 1}), r,
                             b.getI64IntegerAttr(1), b.getI64IntegerAttr(j));
  return ReshapeOp::create(b, loc, typeOf({c.rows}), "bj" + x + "->(bj)" + x,
                           xs);
}

Value Ticks::column(Value slot) {
  auto t = cast<RankedTensorType>(slot.getType());
  std::string x = restLetters(t.getRank() - 1);
  SmallVector<int64_t> shape{c.rows, 1};
  llvm::append_range(shape, t.getShape().drop_front());
  return ReshapeOp::create(b, loc,
                           RankedTensorType::get(shape, t.getElementType()),
                           "(bj)" + x + "->bj" + x, slot);
}

Value Ticks::join(ArrayRef<Value> columns, RankedTensorType batchType) {
  std::string x = restLetters(batchType.getRank() - 1);
  auto typeOf = [&](ArrayRef<int64_t> lead) {
    SmallVector<int64_t> shape(lead);
    llvm::append_range(shape, batchType.getShape().drop_front());
    return RankedTensorType::get(shape, batchType.getElementType());
  };
  SmallVector<Value> parts(columns);
  // Concatenate in groups of at most the op's operand limit.
  unsigned maxOps = getMaxConcatOperands();
  while (parts.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i < parts.size(); i += maxOps) {
      size_t e = std::min(parts.size(), i + maxOps);
      if (e - i == 1) {
        next.push_back(parts[i]);
        continue;
      }
      int64_t len = 0;
      for (size_t q = i; q < e; ++q)
        len += cast<RankedTensorType>(parts[q].getType()).getDimSize(1);
      SmallVector<Value> group(parts.begin() + i, parts.begin() + e);
      next.push_back(
          buildConcat(b, loc, typeOf({c.rows, len}), group, /*dim=*/1));
    }
    parts = next;
  }
  return ReshapeOp::create(b, loc, batchType, "bm" + x + "->(bm)" + x,
                           parts.front());
}

Value Ticks::inject(Value mask, Value slot) {
  std::string x = restLetters(c.h0Type.getRank() - 1);
  return MapOp::create(b, loc, c.bufType, MapKind::Mul, "s,b" + x + "->sb" + x,
                       ValueRange{mask, slot}, FloatAttr());
}

Value Ticks::readSlot(Value mask, Value buf) {
  std::string x = restLetters(c.h0Type.getRank() - 1);
  SmallVector<int64_t> shape{c.rows};
  llvm::append_range(shape, c.h0Type.getShape().drop_front());
  return EinsumOp::create(
      b, loc, RankedTensorType::get(shape, c.h0Type.getElementType()),
      "s,sb" + x + "->b" + x, ValueRange{mask, buf});
}

Value Ticks::shift(Value buf, int64_t by) {
  return ShiftOp::create(b, loc, c.bufType, buf, b.getI64IntegerAttr(0),
                         b.getI64IntegerAttr(by));
}

Value Ticks::maskSlots(Value mask, Value buf) {
  std::string x = "sb" + restLetters(c.h0Type.getRank() - 1);
  return MapOp::create(b, loc, c.bufType, MapKind::Mul, "s," + x + "->" + x,
                       ValueRange{mask, buf}, FloatAttr());
}

Value Ticks::addSlots(Value x, Value y) {
  std::string l = "sb" + restLetters(c.h0Type.getRank() - 1);
  return MapOp::create(b, loc, c.bufType, MapKind::Add, l + "," + l + "->" + l,
                       ValueRange{x, y}, FloatAttr());
}

Value Ticks::add(Value x, Value y) {
  std::string l = placeholderLetters(x.getType());
  return MapOp::create(b, loc, withoutSharding(x.getType()), MapKind::Add,
                       l + "," + l + "->" + l, ValueRange{x, y}, FloatAttr());
}

} // namespace mlir::weft::stage

namespace {

struct StageCallsPass : public weft::impl::WeftStageCallsBase<StageCallsPass> {
  using WeftStageCallsBase::WeftStageCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (schedule != "gpipe" && schedule != "1f1b") {
      mlir::emitError(module.getLoc())
          << "weft-stage-calls: schedule=" << schedule << ": gpipe or 1f1b";
      return signalPassFailure();
    }
    if (stages < 0 || microBatches < 0) {
      // At the module's location with no op attached: nothing is dumped.
      mlir::emitError(module.getLoc())
          << "weft-stage-calls: stages=" << int64_t(stages)
          << " micro-batches=" << int64_t(microBatches)
          << ": neither may be negative (stages=0: off, "
             "micro-batches=0: 2 x stages)";
      return signalPassFailure();
    }
    // Off unless stages are asked for, by the option or by a call's
    // weft.stage.
    SmallVector<func::CallOp> annotated;
    module.walk([&](func::CallOp c) {
      if (c->hasAttr(kStageAttr))
        annotated.push_back(c);
    });
    if (stages == 0 && annotated.empty())
      return;
    FailureOr<func::FuncOp> entry =
        selectFunction(module, "", "weft-stage-calls", "weftc --entry NAME");
    if (failed(entry))
      return signalPassFailure();
    // Only the entry's calls are stages.
    for (func::CallOp c : annotated)
      if (c->getParentOfType<func::FuncOp>() != *entry) {
        c->emitError() << "weft-stage-calls: " << kStageAttr
                       << " on a call in @"
                       << c->getParentOfType<func::FuncOp>().getSymName()
                       << ": only the layer calls of the entry, @"
                       << entry->getSymName() << ", are pipeline stages";
        return signalPassFailure();
      }
    if (failed(run(*entry, module)))
      signalPassFailure();
  }

  LogicalResult run(func::FuncOp entry, ModuleOp module);
};

/// The stages the calls' weft.stage annotations give (0: none), checked:
/// every call of the chain has one, starting at stage 0, each call on the
/// previous one's stage or the next, every stage the same number of calls.
/// `option` is weft-stage-calls' stages (0: not given).
FailureOr<int64_t> annotatedStages(ArrayRef<func::CallOp> calls,
                                   int64_t option) {
  if (llvm::none_of(calls,
                    [](func::CallOp c) { return c->hasAttr(kStageAttr); }))
    return int64_t(0);
  auto fail = [&](Operation *at) {
    return at->emitError() << "weft-stage-calls: ";
  };
  SmallVector<int64_t> perStage;
  for (auto [i, c] : llvm::enumerate(calls)) {
    if (c->hasAttr(kStageAttr) && !c->getAttrOfType<IntegerAttr>(kStageAttr))
      return fail(c) << kStageAttr << " = " << c->getAttr(kStageAttr)
                     << ": a stage is an integer (weft.stage = 1 : i64)";
    auto attr = c->getAttrOfType<IntegerAttr>(kStageAttr);
    if (!attr)
      return fail(c) << "has no integer " << kStageAttr
                     << " while other calls of the chain have one: "
                        "annotate every layer call with its stage, or "
                        "none (weftc --pipeline-stages=N splits them "
                        "evenly)";
    int64_t s = attr.getInt();
    int64_t prev = perStage.size() - 1;
    if (i == 0 ? s != 0 : (s != prev && s != prev + 1))
      return fail(c) << kStageAttr << " = " << s
                     << (i == 0
                             ? " on the first call"
                             : " after a call on stage " + std::to_string(prev))
                     << ": the stages run the chain's calls in order, from "
                        "stage 0, each stage a run of consecutive calls";
    if (s > prev)
      perStage.push_back(0);
    ++perStage.back();
  }
  int64_t n = perStage.size();
  for (auto [s, count] : llvm::enumerate(perStage))
    if (count != perStage.front()) {
      func::CallOp first = *llvm::find_if(calls, [&](func::CallOp c) {
        return c->getAttrOfType<IntegerAttr>(kStageAttr).getInt() == int64_t(s);
      });
      return fail(first) << "stage " << s << " has " << count
                         << " call(s) and stage 0 has " << perStage.front()
                         << ": the rolling buffer runs one layer function "
                            "per stage and tick, so every stage runs the "
                            "same number of calls";
    }
  if (option > 0 && option != n)
    return fail(calls.front()) << "the calls' " << kStageAttr << " give " << n
                               << " stage(s), stages=" << option
                               << " (weftc --pipeline-stages) another number";
  return n;
}

LogicalResult StageCallsPass::run(func::FuncOp entry, ModuleOp module) {
  SmallVector<func::CallOp> calls;
  entry.walk([&](func::CallOp c) { calls.push_back(c); });
  auto fail = [&](Operation *at) {
    return at->emitError() << "weft-stage-calls: ";
  };
  FailureOr<int64_t> fromCalls = annotatedStages(calls, stages);
  if (failed(fromCalls))
    return failure();
  const int64_t n = *fromCalls > 0 ? *fromCalls : int64_t(stages);
  const int64_t m = microBatches > 0 ? int64_t(microBatches) : 2 * n;
  if (calls.empty())
    return mlir::emitError(entry.getLoc())
           << "weft-stage-calls: --pipeline-stages=" << n << " needs layer "
           << "calls: @" << entry.getSymName()
           << " calls no function (docs/pipeline.md, \"Stages from layer "
              "calls\")";
  StringRef calleeName = calls.front().getCallee();
  for (func::CallOp c : calls) {
    if (c->getBlock() != &entry.getBody().front())
      return fail(c) << "a layer call inside a region cannot be pipelined";
    if (c.getCallee() != calleeName)
      return fail(c) << "the entry calls @" << calleeName << " and @"
                     << c.getCallee()
                     << "; a pipeline's stages are calls of one layer "
                        "function";
  }
  SymbolTable symbols(module);
  auto callee = symbols.lookup<func::FuncOp>(calleeName);
  if (!callee || callee.isExternal())
    return fail(calls.front())
           << "@" << calleeName << " has no body to run in the stages";
  if (callee.getNumResults() != 1)
    return fail(calls.front())
           << "@" << calleeName << " returns " << callee.getNumResults()
           << " values; a stage passes one activation to the next";
  int64_t k = calls.size();
  if (k < n || k % n != 0)
    return fail(calls.front())
           << k << " calls of @" << calleeName << " do not divide into " << n
           << " stages of equal length";

  // The layer runs once per stage on a leading dimension split over the
  // stage axis: none of its values may be laid out over that axis already.
  for (BlockArgument a : callee.getArguments())
    if (usesAxis(a.getType(), axis))
      return fail(calls.front())
             << "@" << calleeName << "'s argument #" << a.getArgNumber() << " ("
             << a.getType() << ") is laid out over the mesh axis \"" << axis
             << "\", which the stages are split over";
  WalkResult overStage = callee.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (usesAxis(t, axis)) {
        fail(op) << "a value of the layer (" << t
                 << ") is laid out over the mesh axis \"" << axis
                 << "\", which the stages are split over";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (overStage.wasInterrupted())
    return failure();

  // 1. The activation's position: the operand of call i + 1 that is call
  //    i's result.
  int64_t act = -1;
  unsigned numArgs = callee.getNumArguments();
  if (k == 1)
    return fail(calls.front()) << "one call is not a pipeline";
  for (unsigned j = 0; j < numArgs; ++j)
    if (calls[1].getOperand(j) == calls[0].getResult(0)) {
      if (act >= 0)
        return fail(calls[1]) << "reads the previous call's result twice";
      act = j;
    }
  if (act < 0)
    return fail(calls[1]) << "does not read the previous call's result: the "
                             "calls of @"
                          << calleeName << " must form one chain";
  for (int64_t i = 1; i < k; ++i) {
    if (calls[i].getOperand(act) != calls[i - 1].getResult(0))
      return fail(calls[i]) << "operand " << act
                            << " is not the previous call's result: the "
                               "calls must form one chain";
    if (!calls[i - 1].getResult(0).hasOneUse())
      return fail(calls[i - 1])
             << "its result is read outside the chain; only the last "
                "call's result may be (the stages hold the others)";
  }

  // Weights (a distinct entry argument per call) and shared values.
  Block &body = entry.getBody().front();
  SmallVector<bool> isWeight(numArgs, false);
  for (unsigned j = 0; j < numArgs; ++j) {
    if ((int64_t)j == act)
      continue;
    Value first = calls[0].getOperand(j);
    bool same = llvm::all_of(
        calls, [&](func::CallOp c) { return c.getOperand(j) == first; });
    if (same) {
      // Shared: must not depend on the entry's arguments.
      SmallVector<Value> work{first};
      DenseSet<Value> seen;
      while (!work.empty()) {
        Value v = work.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        if (isa<BlockArgument>(v))
          return fail(calls[0])
                 << "operand " << j
                 << " is passed to every call and depends on the function's "
                    "argument "
                 << getArgNameOr(entry, cast<BlockArgument>(v).getArgNumber())
                 << "; a pipeline passes a layer only the activation, its "
                    "own weights and values computed from constants";
        if (Operation *def = v.getDefiningOp())
          llvm::append_range(work, def->getOperands());
      }
      continue;
    }
    isWeight[j] = true;
    Type t0 = calls[0].getOperand(j).getType();
    for (func::CallOp c : calls) {
      auto arg = dyn_cast<BlockArgument>(c.getOperand(j));
      if (!arg || arg.getOwner() != &body || !arg.hasOneUse())
        return fail(c) << "operand " << j
                       << " differs between calls, so it is a layer's "
                          "weight, and must be an argument of @"
                       << entry.getSymName() << " used by this call alone";
      if (arg.getType() != t0)
        return fail(c) << "operand " << j << " has type " << arg.getType()
                       << " but the first call's has " << t0
                       << "; stacked weights have one type";
      // The stacked weight is split over the stage axis in its new leading
      // dimension, so its own layout cannot use that axis too.
      if (usesAxis(arg.getType(), axis))
        return fail(c) << "operand " << j << " (a weight, " << arg.getType()
                       << ") is laid out over the mesh axis \"" << axis
                       << "\": its layers are stacked over that axis, so "
                          "each stage holds its own; lay the weight out "
                          "over the other axes";
    }
  }

  // The batch.
  Value h0 = calls[0].getOperand(act);
  auto h0Type = cast<RankedTensorType>(h0.getType());
  if (h0Type.getRank() < 1 ||
      !isa<Float32Type, Float64Type>(h0Type.getElementType()))
    return fail(calls[0]) << "the activation " << h0Type
                          << " is not an f32 or f64 tensor with a batch "
                             "dimension";
  int64_t batch = h0Type.getDimSize(0);
  if (m < 1 || batch % m != 0)
    return fail(calls[0]) << "the batch (dimension 0 of the activation, "
                          << batch << " rows) does not divide into " << m
                          << " micro-batches";
  int64_t rows = batch / m;
  if (schedule == "1f1b" &&
      failed(stage::checkOneFOneB(entry, calls, act, batch)))
    return failure();
  // Where each stage's calls are, for the remark: "stage 0: lines 12-13".
  std::string where;
  {
    auto lineOf = [](func::CallOp c) -> int64_t {
      Location l = c.getLoc();
      while (auto name = dyn_cast<NameLoc>(l))
        l = name.getChildLoc();
      auto file = dyn_cast<FileLineColLoc>(l);
      return file ? int64_t(file.getLine()) : -1;
    };
    const int64_t perStage = k / n;
    llvm::raw_string_ostream os(where);
    for (int64_t s = 0; s < n; ++s) {
      if (s == 4 && n > 6) {
        os << ", ..., ";
        s = n - 1;
      } else if (s > 0) {
        os << ", ";
      }
      int64_t a = lineOf(calls[s * perStage]),
              b = lineOf(calls[(s + 1) * perStage - 1]);
      os << "stage " << s << ": ";
      if (a < 0 || b < 0)
        os << "calls " << s * perStage << "-" << (s + 1) * perStage - 1;
      else if (a == b)
        os << "line " << a;
      else
        os << "lines " << a << "-" << b;
    }
  }

  FailureOr<MeshOp> meshOp = [&]() -> FailureOr<MeshOp> {
    SymbolTableCollection tables;
    return getFunctionMesh(entry, tables);
  }();
  if (failed(meshOp))
    return failure();
  if (!*meshOp || !meshOp->getAxisSize(axis))
    return mlir::emitError(entry.getLoc())
           << "weft-stage-calls: the mesh has no axis \"" << axis
           << "\" to split the stages over (weft.mesh @mesh [\"" << axis
           << "\" = " << n << ", ...])";
  if (n % *meshOp->getAxisSize(axis) != 0)
    return mlir::emitError(entry.getLoc())
           << "weft-stage-calls: " << n << " stages do not divide over the "
           << "mesh axis \"" << axis << "\" of size "
           << *meshOp->getAxisSize(axis);
  auto mesh = FlatSymbolRefAttr::get(meshOp->getSymNameAttr());

  // 2. Stacked weight arguments, at the first weight's position.
  int64_t per = k / n;
  MLIRContext *ctx = module.getContext();
  // weights[j][kk]: the stacked argument of position j, local layer kk.
  SmallVector<SmallVector<Value>> weights(numArgs);
  llvm::BitVector erase(entry.getNumArguments());
  unsigned insertAt = entry.getNumArguments();
  for (unsigned j = 0; j < numArgs; ++j)
    if (isWeight[j])
      for (func::CallOp c : calls) {
        auto arg = cast<BlockArgument>(c.getOperand(j));
        erase.set(arg.getArgNumber());
        insertAt = std::min(insertAt, arg.getArgNumber());
      }
  {
    unsigned pos = insertAt;
    for (int64_t kk = 0; kk < per; ++kk)
      for (unsigned j = 0; j < numArgs; ++j) {
        if (!isWeight[j])
          continue;
        auto first = cast<BlockArgument>(calls[kk].getOperand(j));
        unsigned firstIndex = first.getArgNumber();
        NamedAttrList attrs(entry.getArgAttrDict(firstIndex));
        std::string name = getArgNameOr(entry, firstIndex) + ".stages";
        attrs.set(kNameAttr, StringAttr::get(ctx, name));
        Type t = stackedType(first.getType(), n, mesh, axis, true);
        if (failed(entry.insertArgument(pos, t, attrs.getDictionary(ctx),
                                        first.getLoc())))
          return failure();
        // The old arguments at or after pos moved one on.
        llvm::BitVector moved(erase.size() + 1);
        for (unsigned e = 0; e < erase.size(); ++e)
          if (erase.test(e))
            moved.set(e < pos ? e : e + 1);
        erase = moved;
        weights[j].push_back(entry.getArgument(pos));
        ++pos;
      }
  }

  // 3. The ticks, at the first call.
  // The buffer: the activation's type with the stage dimension in front
  // and a micro-batch's rows (its layout, if the layer's signature gives
  // one, with the stage axis in front).
  RankedTensorType actType =
      cast<RankedTensorType>(callee.getArgumentTypes()[act]);
  RankedTensorType bufType = [&] {
    RankedTensorType t = stackedType(actType, n, mesh, axis, false);
    SmallVector<int64_t> shape(t.getShape());
    shape[1] = rows;
    return RankedTensorType::get(shape, t.getElementType(), t.getEncoding());
  }();

  // The layer once per stage: a private function @<f>.stages of the buffer,
  // the local layer's stacked weights and the shared values, called once
  // per tick and local layer, so weft-inline-calls flattens it as any
  // layer call (locations through the user's call, --remat-layers).
  FailureOr<func::FuncOp> stagesFn = buildStackedLayer(
      callee, act, isWeight, weights, bufType, n, mesh, axis, module);
  if (failed(stagesFn))
    return failure();
  stage::Chain chain;
  chain.entry = entry;
  chain.module = module;
  chain.calls = calls;
  chain.callee = callee;
  chain.act = act;
  chain.isWeight = isWeight;
  chain.weights = weights;
  chain.n = n;
  chain.m = m;
  chain.per = per;
  chain.rows = rows;
  chain.h0Type = h0Type;
  chain.bufType = bufType;
  chain.mesh = mesh;
  chain.axis = axis;
  chain.stagesFn = *stagesFn;
  chain.erase = erase;
  Location loc = calls[0].getLoc();
  const bool oneFOneB = schedule == "1f1b";
  if (oneFOneB) {
    if (failed(stage::buildOneFOneB(chain)))
      return failure();
  } else {
    OpBuilder b(calls[0]);
    stage::Ticks ticks(b, calls[0].getLoc(), chain);
    auto stackedLayer = [&](Value in, int64_t kk) -> Value {
      SmallVector<Value> operands;
      for (unsigned j = 0; j < numArgs; ++j)
        operands.push_back((int64_t)j == act ? in
                           : isWeight[j]     ? weights[j][kk]
                                             : calls[0].getOperand(j));
      auto call =
          func::CallOp::create(b, calls[kk].getLoc(), *stagesFn, operands);
      // A layer the user marked for recomputation stays marked.
      if (Attribute remat = calls[kk]->getAttr("weft.remat"))
        call->setAttr("weft.remat", remat);
      return call.getResult(0);
    };
    Value buf;
    SmallVector<Value> outs;
    for (int64_t t = 0; t < m + n - 1; ++t) {
      Value in = ticks.forwardInput(buf, h0, t);
      for (int64_t kk = 0; kk < per; ++kk)
        in = stackedLayer(in, kk);
      buf = in;
      if (t >= n - 1)
        outs.push_back(ticks.column(ticks.readSlot(ticks.lastMask(), buf)));
    }
    Value hk = ticks.join(outs, h0Type);
    calls.back().getResult(0).replaceAllUsesWith(hk);
    for (func::CallOp c : llvm::reverse(calls))
      c.erase();
    if (failed(entry.eraseArguments(erase)))
      return failure();
  }
  if (symbols.symbolKnownUseEmpty(callee, module) && callee.isPrivate())
    callee.erase();
  // At the first call's line, with no op attached (an op's remark would
  // print the whole rewritten function after it).
  InFlightDiagnostic remark = mlir::emitRemark(loc);
  remark << "weft-stage-calls: " << k << " calls of @" << calleeName << " over "
         << n << " stages (\"" << axis << "\"), " << per << " per stage ("
         << (*fromCalls > 0 ? "as the calls' weft.stage say"
                            : "calls of one function cost the same: the equal "
                              "split is the balanced one")
         << "; " << where << "); " << m << " micro-batches of " << rows
         << " rows, ";
  if (oneFOneB)
    remark << "1F1B: " << (m + 2 * n - 2) << " ticks (" << (m + n - 1)
           << " forward, " << (m + n - 1) << " backward), at most "
           << (2 * n - 1) << " stage inputs held per stage, bubble " << (n - 1)
           << "/" << (m + n - 1);
  else
    remark << (m + n - 1) << " ticks, bubble " << (n - 1) << "/" << (m + n - 1);
  return success();
}

} // namespace

//===- StageCalls1F1B.cpp - 1F1B ticks from layer calls
//--------------------===//
//
// weft-stage-calls schedule=1f1b (weftc --pipeline-schedule=1f1b,
// docs/pipeline.md "1F1B from layer calls"): the entry's chain, once its
// weights are stacked and its layer runs once per stage (StageCalls.cpp),
// becomes the 1F1B ticks that bench/pipeline/make_pipeline_lm.py writes by
// hand, and the entry returns its own gradients:
//
//   1. The loss after the chain is checked to be a sum over the batch's
//      rows (analyzeTail), and becomes @<entry>.loss, the same ops on one
//      micro-batch. The values it reads with the batch's rows (labels) are
//      split into micro-batches as the chain's input is.
//   2. @<entry>.stage runs a stage's layers (calls of @<f>.stages) on the
//      buffer; the ops before the chain (the embedding) become
//      @<entry>.input. Each gets a weft.vjp_of declaration: weft-inline-calls
//      writes their backward.
//   3. Tick t (0 .. M + 2N - 3): stage s forwards micro-batch t - s (the
//      last stage's slot goes through @<entry>.loss and its vjp, whose
//      cotangent is injected into the backward buffer) and backwards
//      micro-batch t - 2(N - 1) + s from its saved stage input
//      (@<entry>.stage_vjp); stage 0's input cotangents, put back into the
//      batch, go through @<entry>.input_vjp after the last tick.
//   4. The entry returns the sum of the micro-batches' losses and one
//      gradient per parameter (weft.grad_of), the sums over the ticks.
//
//===----------------------------------------------------------------------===//

#include "StageCalls.h"

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/IndexSpec.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Vjp.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::stage;

namespace {

InFlightDiagnostic fail(Operation *at) {
  return at->emitError() << "weft-stage-calls (1f1b): ";
}

bool isFloatTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && isa<FloatType>(rt.getElementType());
}

bool isParam(func::FuncOp entry, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &entry.getBody().front() &&
         entry.getArgAttr(arg.getArgNumber(), kParamAttr);
}

/// The ops of `entry`'s block that `roots` depend on, in block order.
SmallVector<Operation *> backwardSlice(func::FuncOp entry, ValueRange roots) {
  llvm::DenseSet<Operation *> in;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !in.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ops;
  for (Operation &op : entry.getBody().front())
    if (in.contains(&op))
      ops.push_back(&op);
  return ops;
}

/// How a value of the loss holds the batch: its rows at dimension `dim`,
/// or summed over them (`summed`).
struct Rows {
  bool summed = false;
  int64_t dim = 0;
};

/// The ops after the chain, checked to compute a sum over the batch's rows.
struct Tail {
  SmallVector<Operation *> ops;
  /// The values the ops read from before them (not the chain's result), in
  /// the order first read, and whether each is split into micro-batches.
  llvm::SetVector<Value> frees;
  llvm::DenseMap<Value, bool> split;
};

FailureOr<Tail> analyzeTail(func::FuncOp entry, Value hk, func::ReturnOp ret,
                            int64_t batch) {
  Tail tail;
  llvm::DenseMap<Value, Rows> rows;
  rows[hk] = Rows{false, 0};
  // A value read from before the loss's ops: split (it has the batch's rows
  // at dimension 0) or whole; the same at every read.
  auto noteFree = [&](Operation *op, unsigned i, bool split) -> LogicalResult {
    Value v = op->getOperand(i);
    auto [it, inserted] = tail.split.try_emplace(v, split);
    if (!inserted && it->second != split)
      return fail(op) << "reads operand #" << i
                      << (split ? " with" : " without")
                      << " the batch's rows, and another op of the loss the "
                         "other way: 1F1B splits a value into micro-batches "
                         "or passes it whole";
    tail.frees.insert(v);
    if (split) {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getDimSize(0) != batch)
        return fail(op) << "reads operand #" << i << " (" << t
                        << ") with the batch's rows at dimension 0, which has "
                        << t.getDimSize(0) << " rows, not the batch's "
                        << batch;
      if (isParam(entry, v))
        return fail(op) << "reads a parameter with the batch's rows";
    }
    if (!isa<BlockArgument>(v))
      for (Operation *def : backwardSlice(entry, v))
        for (Value x : def->getOperands())
          if (isParam(entry, x))
            return fail(op)
                   << "reads operand #" << i << ", computed from the "
                   << "parameter "
                   << getArgNameOr(entry, cast<BlockArgument>(x).getArgNumber())
                   << " outside the layers: under 1F1B the loss reads "
                      "parameters only as they are (its vjp gives their "
                      "gradients)";
    return success();
  };
  for (Operation *op = hk.getDefiningOp()->getNextNode(); op && op != ret;
       op = op->getNextNode()) {
    if (llvm::none_of(op->getOperands(),
                      [&](Value v) { return rows.contains(v); }))
      continue;
    tail.ops.push_back(op);
    // Ops that keep their operand's shape, element for element.
    if (isa<ShardOp, StopGradientOp, ConvertOp>(op)) {
      rows[op->getResult(0)] = rows[op->getOperand(0)];
      continue;
    }
    if (op->getNumResults() != 1 || !isa<EinsumOp, MapOp, ReduceOp>(op))
      return fail(op) << "reads the chain's result: 1F1B takes the loss one "
                         "micro-batch at a time, and follows the batch's "
                         "rows through weft.einsum, weft.map, weft.reduce, "
                         "weft.shard, weft.stop_gradient and weft.convert "
                         "only";
    std::string error;
    FailureOr<IndexSpec> spec =
        IndexSpec::parse(op->getAttrOfType<StringAttr>("spec").getValue(),
                         error, /*allowBroadcast=*/true);
    if (failed(spec))
      return fail(op) << error;
    char letter = 0;
    unsigned summed = 0;
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      auto it = rows.find(v);
      if (it == rows.end())
        continue;
      if (it->second.summed) {
        ++summed;
        continue;
      }
      char l = spec->inputs[i][it->second.dim];
      if (letter && l != letter)
        return fail(op) << "holds the batch's rows as '" << letter << "' and '"
                        << l << "'";
      letter = l;
    }
    Value res = op->getResult(0);
    if (letter && summed)
      return fail(op) << "combines a value summed over the batch's rows "
                         "with one that has them: the loss of one "
                         "micro-batch would need the whole batch";
    if (letter) {
      for (auto [i, v] : llvm::enumerate(op->getOperands())) {
        if (rows.contains(v))
          continue;
        size_t at = spec->inputs[i].find(letter);
        if (at != std::string::npos && at != 0)
          return fail(op) << "reads operand #" << i
                          << " with the batch's rows at dimension " << at
                          << ": 1F1B splits the values the loss reads along "
                             "dimension 0";
        if (failed(noteFree(op, i, at == 0)))
          return failure();
      }
      size_t at = spec->result.find(letter);
      if (at != std::string::npos) {
        rows[res] = Rows{false, int64_t(at)};
        continue;
      }
      auto reduce = dyn_cast<ReduceOp>(op);
      if (!isa<EinsumOp>(op) &&
          !(reduce && reduce.getKind() == ReductionKind::Sum))
        return fail(op) << "drops the batch's rows other than by a sum: the "
                           "loss must be a sum over them (an einsum or a sum "
                           "reduce), so that the micro-batches' losses add "
                           "up to it";
      rows[res] = Rows{true, 0};
      continue;
    }
    // After the sum over the rows: linear ops only.
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (!rows.contains(v) && failed(noteFree(op, i, false)))
        return failure();
    bool linear = false;
    if (isa<EinsumOp>(op)) {
      linear = summed == 1;
    } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
      linear = reduce.getKind() == ReductionKind::Sum;
    } else {
      auto map = cast<MapOp>(op);
      switch (map.getKind()) {
      case MapKind::Add:
      case MapKind::Sub:
        linear = summed == op->getNumOperands();
        break;
      case MapKind::Neg:
      case MapKind::Scale:
        linear = true;
        break;
      case MapKind::Mul:
        linear = summed == 1;
        break;
      case MapKind::Div:
        linear = summed == 1 && rows.contains(op->getOperand(0));
        break;
      default:
        break;
      }
    }
    if (!linear)
      return fail(op) << "is not linear in the sum over the batch's rows: "
                         "after the sum only add and sub of such sums, neg, "
                         "scale, mul or einsum by a value that does not "
                         "depend on the batch, and div by one keep the loss "
                         "the sum of the micro-batches' losses";
    rows[res] = Rows{true, 0};
  }
  if (!rows.contains(ret.getOperand(0)))
    return fail(ret) << "the loss does not depend on the chain's result";
  return tail;
}

/// A private function of `argTypes` named `name` (renamed if taken),
/// before `entry`, with an empty body.
func::FuncOp createFunction(func::FuncOp entry, SymbolTable &symbols,
                            StringRef name, TypeRange argTypes,
                            TypeRange results) {
  OpBuilder mb(entry);
  auto fn = func::FuncOp::create(
      mb, entry.getLoc(), name,
      FunctionType::get(entry.getContext(), argTypes, results));
  fn.setPrivate();
  symbols.insert(fn);
  fn.addEntryBlock();
  return fn;
}

/// The vjp declaration of `fn` (one result): its arguments and the
/// cotangent in, one gradient per float argument out (layouts left open,
/// except `keep`'s, whose declared type is kept).
func::FuncOp declareVjp(func::FuncOp fn, SymbolTable &symbols,
                        int64_t keep = -1) {
  SmallVector<Type> inputs(fn.getArgumentTypes());
  inputs.push_back(fn.getResultTypes()[0]);
  SmallVector<Type> grads;
  for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
    if (isFloatTensor(t))
      grads.push_back((int64_t)i == keep ? t : Type(withoutSharding(t)));
  OpBuilder mb(fn);
  mb.setInsertionPointAfter(fn);
  auto decl =
      func::FuncOp::create(mb, fn.getLoc(), (fn.getSymName() + "_vjp").str(),
                           FunctionType::get(fn.getContext(), inputs, grads));
  decl.setPrivate();
  symbols.insert(decl);
  decl->setAttr(kVjpOfAttr, FlatSymbolRefAttr::get(fn));
  return decl;
}

/// The loss's ops on one micro-batch: arguments (tail.frees..., y), each
/// split value and y with the micro-batch's rows; result shapes follow
/// the operands' letters.
FailureOr<func::FuncOp> buildLoss(Chain &c, const Tail &tail, Value hk,
                                  Value loss, Type yType,
                                  SymbolTable &symbols) {
  SmallVector<Type> argTypes;
  for (Value v : tail.frees) {
    auto t = cast<RankedTensorType>(v.getType());
    if (!tail.split.lookup(v)) {
      argTypes.push_back(t);
      continue;
    }
    SmallVector<int64_t> shape(t.getShape());
    shape[0] = c.rows;
    argTypes.push_back(RankedTensorType::get(shape, t.getElementType()));
  }
  argTypes.push_back(yType);
  func::FuncOp fn =
      createFunction(c.entry, symbols, (c.entry.getSymName() + ".loss").str(),
                     argTypes, {loss.getType()});
  Block *body = &fn.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(body);
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(tail.frees))
    map.map(v, body->getArgument(i));
  map.map(hk, body->getArguments().back());
  for (Operation *op : tail.ops) {
    Operation *copy = b.clone(*op, map);
    auto old = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> shape;
    if (auto spec = copy->getAttrOfType<StringAttr>("spec")) {
      // analyzeTail parsed every spec, and a verified op's result letters
      // are its operands'.
      std::string error;
      FailureOr<IndexSpec> parsed =
          IndexSpec::parse(spec.getValue(), error, /*allowBroadcast=*/true);
      if (failed(parsed) ||
          failed(resultShapeOf(*parsed, copy->getOperands(), shape))) {
        fn.erase();
        return fail(op) << "cannot run on one micro-batch: " << spec;
      }
    } else {
      llvm::append_range(
          shape,
          cast<RankedTensorType>(copy->getOperand(0).getType()).getShape());
    }
    copy->getResult(0).setType(
        RankedTensorType::get(shape, old.getElementType(), old.getEncoding()));
  }
  func::ReturnOp::create(b, loss.getLoc(), map.lookup(loss));
  return fn;
}

} // namespace

LogicalResult mlir::weft::stage::checkOneFOneB(func::FuncOp entry,
                                               ArrayRef<func::CallOp> calls,
                                               int64_t act, int64_t batch) {
  auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1 ||
      cast<RankedTensorType>(ret.getOperand(0).getType()).getRank() != 0)
    return fail(ret) << "1F1B needs the entry to return its scalar loss "
                        "alone: the pipelined entry returns the loss and "
                        "its own gradients";
  // The ops before the chain become a function with a vjp: its arguments
  // are float tensors (differentiated) or integer ones (passed).
  func::CallOp first = calls.front();
  Value h0 = first.getOperand(act);
  if (isParam(entry, h0))
    return fail(first) << "the chain's input is a parameter";
  for (Operation *op : backwardSlice(entry, h0))
    for (Value v : op->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (isa<BlockArgument>(v) &&
          !(t && (isa<FloatType>(t.getElementType()) ||
                  t.getElementType().isSignlessInteger())))
        return fail(op) << "reads " << v.getType()
                        << " before the chain: the ops before it get a vjp, "
                           "which passes float and integer tensors only";
    }
  func::CallOp last = calls.back();
  return analyzeTail(entry, last.getResult(0), ret, batch);
}

LogicalResult mlir::weft::stage::buildOneFOneB(Chain &c) {
  func::FuncOp entry = c.entry;
  MLIRContext *ctx = entry.getContext();
  SymbolTable symbols(c.module);
  Block &block = entry.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  Location loc = c.calls[0].getLoc();
  Value hk = c.calls.back().getResult(0);
  Value lossValue = ret.getOperand(0);
  // checkOneFOneB passed before the weights were stacked.
  FailureOr<Tail> tail = analyzeTail(entry, hk, ret, c.h0Type.getDimSize(0));
  if (failed(tail))
    return failure();

  // The chain's input: the ops before it become @<entry>.input (checked
  // by checkOneFOneB).
  Value h0 = c.calls[0].getOperand(c.act);
  SmallVector<Operation *> preOps;
  SmallVector<BlockArgument> preArgs;
  func::FuncOp inputFn, inputVjp;
  if (!isa<BlockArgument>(h0)) {
    preOps = backwardSlice(entry, h0);
    llvm::SetVector<unsigned> used;
    for (Operation *op : preOps)
      for (Value v : op->getOperands())
        if (auto a = dyn_cast<BlockArgument>(v))
          used.insert(a.getArgNumber());
    SmallVector<unsigned> sorted(used.begin(), used.end());
    llvm::sort(sorted);
    for (unsigned i : sorted)
      preArgs.push_back(entry.getArgument(i));
    bool trained = llvm::any_of(
        preArgs, [&](BlockArgument a) { return isParam(entry, a); });
    if (trained) {
      SmallVector<Type> types;
      for (BlockArgument a : preArgs)
        types.push_back(a.getType());
      inputFn =
          createFunction(entry, symbols, (entry.getSymName() + ".input").str(),
                         types, {h0.getType()});
      Block *body = &inputFn.getBody().front();
      OpBuilder b = OpBuilder::atBlockBegin(body);
      IRMapping map;
      for (auto [i, a] : llvm::enumerate(preArgs))
        map.map(a, body->getArgument(i));
      for (Operation *op : preOps)
        b.clone(*op, map);
      func::ReturnOp::create(b, loc, map.lookup(h0));
      inputVjp = declareVjp(inputFn, symbols);
    }
  }

  // @<entry>.stage: a stage's layers on the buffer; the values every call
  // shares (computed from constants) recomputed inside.
  SmallVector<Value> wargs;
  SmallVector<Type> stageTypes;
  for (int64_t kk = 0; kk < c.per; ++kk)
    for (unsigned j = 0; j < c.isWeight.size(); ++j)
      if (c.isWeight[j]) {
        wargs.push_back(c.weights[j][kk]);
        stageTypes.push_back(c.weights[j][kk].getType());
      }
  stageTypes.push_back(c.bufType);
  func::FuncOp stageFn =
      createFunction(entry, symbols, (entry.getSymName() + ".stage").str(),
                     stageTypes, {c.bufType});
  SmallVector<Value> shared;
  for (unsigned j = 0; j < c.isWeight.size(); ++j)
    if ((int64_t)j != c.act && !c.isWeight[j])
      shared.push_back(c.calls[0].getOperand(j));
  SmallVector<Operation *> sharedOps = backwardSlice(entry, shared);
  {
    Block *body = &stageFn.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    IRMapping map;
    for (Operation *op : sharedOps)
      b.clone(*op, map);
    Value in = body->getArguments().back();
    unsigned w = 0;
    for (int64_t kk = 0; kk < c.per; ++kk) {
      SmallVector<Value> operands;
      for (unsigned j = 0; j < c.isWeight.size(); ++j) {
        if ((int64_t)j == c.act)
          operands.push_back(in);
        else if (c.isWeight[j])
          operands.push_back(body->getArgument(w++));
        else
          operands.push_back(map.lookupOrDefault(c.calls[0].getOperand(j)));
      }
      in = func::CallOp::create(b, c.calls[kk].getLoc(), c.stagesFn, operands)
               .getResult(0);
    }
    func::ReturnOp::create(b, loc, in);
  }
  // The buffer's cotangent keeps the buffer's layout (the permutes').
  func::FuncOp stageVjp =
      declareVjp(stageFn, symbols, stageFn.getNumArguments() - 1);

  // @<entry>.loss on one micro-batch's slot of the last stage.
  Type yType = [&] {
    SmallVector<int64_t> shape{c.rows};
    llvm::append_range(shape, c.h0Type.getShape().drop_front());
    return RankedTensorType::get(shape, c.h0Type.getElementType());
  }();
  FailureOr<func::FuncOp> lossFn =
      buildLoss(c, *tail, hk, lossValue, yType, symbols);
  if (failed(lossFn))
    return failure();
  func::FuncOp lossVjp = declareVjp(*lossFn, symbols);

  // 3. The ticks, before the return.
  OpBuilder b(ret);
  Ticks ticks(b, loc, c);
  const int64_t n = c.n, m = c.m;
  llvm::DenseMap<Value, Value> grad;
  auto accumulate = [&](Value param, Value g) {
    auto [it, inserted] = grad.try_emplace(param, g);
    if (!inserted)
      it->second = ticks.add(it->second, g);
  };
  SmallVector<Value> onehot(n);
  auto onehotOf = [&](int64_t s) {
    if (!onehot[s])
      onehot[s] = s == 0       ? ticks.firstMask()
                  : s == n - 1 ? ticks.lastMask()
                               : ticks.stageMask(s, s);
    return onehot[s];
  };
  Value seed = ConstantOp::create(b, loc, withoutSharding(lossValue.getType()),
                                  b.getF64FloatAttr(1.0));
  Value lossSum, prevH, prevD;
  llvm::DenseMap<int64_t, Value> ins;
  SmallVector<Value> dx(m);
  for (int64_t t = 0; t < m + 2 * n - 2; ++t) {
    Value fromLoss;
    if (t < m + n - 1) {
      // Forward half: stage s runs micro-batch t - s.
      Value in = ticks.forwardInput(prevH, h0, t);
      ins[t] = in;
      SmallVector<Value> operands(wargs);
      operands.push_back(in);
      prevH = func::CallOp::create(b, loc, stageFn, operands).getResult(0);
      int64_t j = t - n + 1;
      if (j >= 0 && j < m) {
        // The last stage's slot holds micro-batch j's output: its loss,
        // and the loss's vjp (seeded with 1).
        SmallVector<Value> args;
        for (Value v : tail->frees)
          args.push_back(tail->split.lookup(v) ? ticks.microBatch(v, j) : v);
        args.push_back(ticks.readSlot(ticks.lastMask(), prevH));
        Value lj = func::CallOp::create(b, loc, *lossFn, args).getResult(0);
        lossSum = lossSum ? ticks.add(lossSum, lj) : lj;
        args.push_back(seed);
        auto back = func::CallOp::create(b, loc, lossVjp, args);
        unsigned r = 0;
        for (unsigned i = 0; i + 1 < args.size(); ++i) {
          if (!isFloatTensor(args[i].getType()))
            continue;
          Value g = back.getResult(r++);
          if (i + 1 == args.size() - 1)
            fromLoss = ticks.inject(ticks.lastMask(), g);
          else if (isParam(entry, tail->frees[i]))
            accumulate(tail->frees[i], g);
        }
      }
    }
    if (t < n - 1)
      continue;
    // Backward half: stage s runs micro-batch t - 2(N - 1) + s from its
    // input of tick t - 2(N - 1 - s).
    Value g = prevD ? ticks.shift(prevD, -1) : Value();
    if (fromLoss)
      g = g ? ticks.addSlots(g, fromLoss) : fromLoss;
    Value saved;
    for (int64_t s = 0; s < n; ++s) {
      int64_t jb = t - 2 * (n - 1) + s;
      if (jb < 0 || jb >= m)
        continue;
      Value term = ticks.maskSlots(onehotOf(s), ins[t - 2 * (n - 1 - s)]);
      saved = saved ? ticks.addSlots(saved, term) : term;
    }
    SmallVector<Value> operands(wargs);
    operands.push_back(saved);
    operands.push_back(g);
    auto back = func::CallOp::create(b, loc, stageVjp, operands);
    for (auto [w, dw] : llvm::zip(wargs, back.getResults().drop_back()))
      accumulate(w, dw);
    prevD = back.getResults().back();
    // Stage 0's input cotangent, for the input's vjp (none without one).
    int64_t jb = t - 2 * (n - 1);
    if (inputFn && jb >= 0 && jb < m)
      dx[jb] = ticks.column(ticks.readSlot(ticks.firstMask(), prevD));
  }
  // The embedding's gradients, from stage 0's input cotangents.
  if (inputFn) {
    auto h0Type = cast<RankedTensorType>(h0.getType());
    Value dh0 = ticks.join(
        dx, RankedTensorType::get(h0Type.getShape(), h0Type.getElementType()));
    if (dh0.getType() != h0Type)
      dh0 = ShardOp::create(b, loc, h0Type, dh0);
    SmallVector<Value> args(preArgs.begin(), preArgs.end());
    args.push_back(dh0);
    auto back = func::CallOp::create(b, loc, inputVjp, args);
    unsigned r = 0;
    for (BlockArgument a : preArgs) {
      if (!isFloatTensor(a.getType()))
        continue;
      Value g = back.getResult(r++);
      if (isParam(entry, a))
        accumulate(a, g);
    }
  }

  // 4. The old chain and loss go; the entry returns the loss and the
  // gradients.
  SmallVector<DictionaryAttr> oldResultAttrs;
  entry.getAllResultAttrs(oldResultAttrs);
  ret.erase();
  for (Operation *op : llvm::reverse(tail->ops))
    op->erase();
  for (func::CallOp call : llvm::reverse(c.calls))
    call.erase();
  for (Operation *op : llvm::reverse(sharedOps))
    if (op->use_empty())
      op->erase();
  if (failed(entry.eraseArguments(c.erase)))
    return failure();
  b.setInsertionPointToEnd(&block);
  SmallVector<Value> results{lossSum};
  SmallVector<DictionaryAttr> resultAttrs{
      oldResultAttrs.empty() || !oldResultAttrs[0] ? DictionaryAttr::get(ctx)
                                                   : oldResultAttrs[0]};
  for (BlockArgument a : entry.getArguments()) {
    if (!entry.getArgAttr(a.getArgNumber(), kParamAttr))
      continue;
    Value g = grad.lookup(a);
    if (!g)
      g = ConstantOp::create(b, loc, withoutSharding(a.getType()),
                             b.getF64FloatAttr(0.0));
    results.push_back(g);
    NamedAttrList attrs;
    attrs.set(kGradOfAttr, b.getI64IntegerAttr(a.getArgNumber()));
    attrs.set(kNameAttr,
              b.getStringAttr("grad_" + getArgNameOr(entry, a.getArgNumber())));
    resultAttrs.push_back(attrs.getDictionary(ctx));
  }
  func::ReturnOp::create(b, loc, results);
  entry.setFunctionType(FunctionType::get(ctx, entry.getArgumentTypes(),
                                          ValueRange(results).getTypes()));
  entry.setAllResultAttrs(resultAttrs);
  return success();
}

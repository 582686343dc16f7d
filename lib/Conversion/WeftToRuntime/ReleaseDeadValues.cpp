//===- ReleaseDeadValues.cpp - Free each tensor after its last use --------===//
//
// A post-pass over the converted step function rather than part of the
// patterns: where a value dies depends on every later use of it, which a
// pattern converting one op does not see. Over the converted body the
// order of uses is plain: one call per op, in the body's order, then the
// outputs.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVectorExtras.h"

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::lowering;

static bool isCallTo(Operation *op, StringRef callee) {
  auto call = dyn_cast_or_null<emitc::CallOpaqueOp>(op);
  return call && call.getCallee() == callee;
}

void lowering::releaseDeadValues(emitc::FuncOp step,
                                 const RuntimeTypeConverter &types) {
  Block &body = step.getBody().front();
  // Inputs too: the step context keeps an input alive across iterations
  // (releasing the step's reference only drops a count), except a donated
  // one (a training step's parameter or state), whose buffer the step then
  // frees at its last use instead of at the end of the step: an updated
  // parameter does not coexist with its old value for the rest of the step.
  auto releasable = [&](Value v) {
    return v.getType() == types.getTensorType();
  };
  DenseMap<Value, Operation *> lastUser;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      lastUser[v] = &op;

  OpBuilder b(step.getContext());
  auto release = [&](Value v, Location loc) {
    CallArgs args(step.getContext());
    args.value(v);
    createCall(b, loc, kReleaseCallee, args);
  };
  // What the outputs use dies at the end, released after the last output
  // in the order the outputs first use it.
  llvm::SetVector<Value> atEnd;
  SmallVector<Operation *> ops = llvm::map_to_vector(
      body.without_terminator(), [](Operation &op) { return &op; });
  for (Operation *op : ops) {
    if (isCallTo(op, kOutputCallee)) {
      for (Value v : op->getOperands())
        if (releasable(v))
          atEnd.insert(v);
      continue;
    }
    // Operands whose last use this is, in order, then results nobody uses.
    llvm::SetVector<Value> dead;
    for (Value v : op->getOperands())
      if (releasable(v) && lastUser.lookup(v) == op)
        dead.insert(v);
    for (Value r : op->getResults())
      if (releasable(r) && r.use_empty())
        dead.insert(r);
    b.setInsertionPointAfter(op);
    for (Value v : dead)
      release(v, op->getLoc());
  }
  b.setInsertionPoint(body.getTerminator());
  for (Value v : atEnd)
    release(v, body.getTerminator()->getLoc());
}

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

/// Marks the tensor operands of a map or fused map call that are their
/// value's last use: `weft::rt::gen::Dying{0b...}` right after the step
/// context (bit i: the i-th tensor operand). The runtime writes the result
/// into one of them when its buffer is held by nothing else and is read
/// element for element (StepOps.cpp); whether the shapes allow it is the
/// runtime's check, which sees the plan (a value passed twice is marked at
/// each place; the runtime reuses it only when both read it element for
/// element).
static void markDyingOperands(emitc::CallOpaqueOp call,
                              const DenseMap<Value, Operation *> &lastUser,
                              const RuntimeTypeConverter &types) {
  if (call.getCallee() != kMapCallee && call.getCallee() != kFusedMapCallee)
    return;
  unsigned mask = 0, bit = 0;
  for (Value v : call.getOperands()) {
    if (v.getType() != types.getTensorType())
      continue;
    if (bit >= 32)
      return;
    if (lastUser.lookup(v) == call.getOperation())
      mask |= 1u << bit;
    ++bit;
  }
  ArrayAttr args = call.getArgsAttr();
  if (mask == 0 || !args || args.empty())
    return;
  std::string bits;
  for (unsigned i = bit; i-- > 0;)
    bits += (mask >> i) & 1 ? '1' : '0';
  SmallVector<Attribute> marked(args.begin(), args.end());
  marked.insert(marked.begin() + 1,
                emitc::OpaqueAttr::get(call.getContext(),
                                       "weft::rt::gen::Dying{0b" + bits + "}"));
  call.setArgsAttr(ArrayAttr::get(call.getContext(), marked));
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
    if (auto call = dyn_cast<emitc::CallOpaqueOp>(op))
      markDyingOperands(call, lastUser, types);
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

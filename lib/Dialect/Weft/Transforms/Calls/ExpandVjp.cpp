//===- ExpandVjp.cpp - bodies of weft.vjp_of declarations -----------------===//
//
// A declaration marked `weft.vjp_of = @f` stands for the vector-Jacobian
// product of @f: called with f's arguments and the cotangent of f's one
// result, it returns the gradient of <f(args), cotangent> with respect to
// each float argument (integer ones, token ids, have none). weft-inline-calls
// asks for its body here once every other call is flattened: a copy of f's
// body, differentiated by the autodiff rules seeded with the cotangent
// (differentiateWithCotangent). So the backward of one call, recomputing its
// forward from its arguments, can sit anywhere in a forward program: a 1F1B
// pipeline's ticks (docs/pipeline.md).
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Vjp.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::weft;

bool mlir::weft::isVjpDeclaration(func::FuncOp f) {
  return f.isExternal() && f->hasAttr(kVjpOfAttr);
}

/// Writes the body of `decl`, the vjp of the function it names.
static LogicalResult expandOne(func::FuncOp decl, SymbolTable &symbols) {
  auto of = decl->getAttrOfType<FlatSymbolRefAttr>(kVjpOfAttr);
  if (!of)
    return decl.emitError() << kVjpOfAttr << " must name a function (@f), not "
                            << decl->getAttr(kVjpOfAttr);
  if (!decl.isExternal())
    return decl.emitError()
           << "@" << decl.getSymName() << " is marked " << kVjpOfAttr
           << ": the compiler writes its body, so declare it without one";
  auto f = symbols.lookup<func::FuncOp>(of.getValue());
  if (!f)
    return decl.emitError() << kVjpOfAttr << " names " << of
                            << ", which the module does not define";
  if (f.isExternal())
    return decl.emitError()
           << kVjpOfAttr << " names " << of << ", a declaration without a body";
  if (f.getNumResults() != 1)
    return decl.emitError() << kVjpOfAttr << " names " << of
                            << ", which returns " << f.getNumResults()
                            << " values: a vjp is of a function of one result";
  // One gradient per float argument: an integer argument (token ids, a
  // label) has none, as jax.vjp gives it a float0.
  SmallVector<Type> inputs(f.getArgumentTypes());
  inputs.push_back(f.getResultTypes()[0]);
  SmallVector<Type> gradTypes;
  for (auto [i, type] : llvm::enumerate(f.getArgumentTypes())) {
    auto t = dyn_cast<RankedTensorType>(type);
    if (!t)
      return decl.emitError()
             << "argument #" << i << " of " << of << " has type " << type
             << ": a vjp's function takes tensors";
    if (isa<FloatType>(t.getElementType()))
      gradTypes.push_back(type);
    else if (!t.getElementType().isSignlessInteger())
      return decl.emitError()
             << "argument #" << i << " of " << of << " has type " << type
             << ": a vjp differentiates float tensors and passes integer "
                "ones";
  }
  auto expected = FunctionType::get(decl.getContext(), inputs, gradTypes);
  // A gradient's declared type may leave out its argument's layout (then
  // propagation picks it: a pipeline keeps each tick's partial sum).
  auto sameUpToLayout = [](TypeRange a, TypeRange b) {
    return a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [](auto p) {
             return withoutSharding(std::get<0>(p)) ==
                    withoutSharding(std::get<1>(p));
           });
  };
  if (decl.getFunctionType().getInputs() != expected.getInputs() ||
      !sameUpToLayout(decl.getResultTypes(), expected.getResults()))
    return decl.emitError()
           << "the vjp of " << of
           << " takes its arguments and the cotangent of its result, and "
              "returns one gradient per float argument (its layout may be "
              "left out): "
           << expected << ", not " << decl.getFunctionType();
  WalkResult calls = f.walk([&](func::CallOp call) {
    call.emitError() << "a call inside " << of << ", whose vjp @"
                     << decl.getSymName()
                     << " is asked for: a vjp's function calls nothing but "
                        "layer functions, and no vjp";
    return WalkResult::interrupt();
  });
  if (calls.wasInterrupted())
    return failure();

  // A copy of f with the cotangent as its last argument, differentiated.
  OpBuilder b(decl);
  func::FuncOp copy = f.clone();
  copy.setSymName((decl.getSymName() + "_body").str());
  symbols.insert(copy, Block::iterator(decl));
  if (failed(copy.insertArgument(copy.getNumArguments(), f.getResultTypes()[0],
                                 DictionaryAttr(), decl.getLoc()))) {
    copy.erase();
    return decl.emitError() << "cannot add the cotangent argument to a copy "
                               "of "
                            << of;
  }
  for (unsigned i = 0; i < copy.getNumArguments(); ++i)
    copy.setArgAttrs(i, DictionaryAttr::get(decl.getContext()));
  if (failed(differentiateWithCotangent(copy))) {
    copy.erase();
    return decl.emitError() << "cannot build the vjp of " << of;
  }
  // Its results are (f's result, the gradients): the body returns the
  // gradients, each in its declared type (a layout declared is a
  // constraint).
  auto ret = cast<func::ReturnOp>(copy.getBody().front().getTerminator());
  SmallVector<Value> grads(ret.getOperands().drop_front());
  b.setInsertionPoint(ret);
  for (auto [g, type] : llvm::zip_equal(grads, decl.getResultTypes()))
    if (g.getType() != type)
      g = ShardOp::create(b, ret.getLoc(), type, g);
  func::ReturnOp::create(b, ret.getLoc(), grads);
  ret.erase();
  decl.getBody().takeBody(copy.getBody());
  decl->removeAttr(kVjpOfAttr);
  copy.erase();
  return success();
}

LogicalResult mlir::weft::expandVjpDeclarations(ModuleOp module) {
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> decls;
  for (auto f : module.getOps<func::FuncOp>())
    if (f->hasAttr(kVjpOfAttr))
      decls.push_back(f);
  bool ok = true;
  for (func::FuncOp decl : decls)
    ok &= succeeded(expandOne(decl, symbols));
  return success(ok);
}

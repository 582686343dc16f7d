//===- EvaluableOpInterface.td - how the interpreter runs an op -*- tablegen -*-===//
//
// The interpreter's per-op contract. It is declared here, beside the
// interpreter, not in the dialect: the dialect does not depend on the
// interpreter's tensors. Every weft op gets its implementation as an external
// model (lib/Interpreter/EvaluationModels.cpp), attached by
// registerEvaluationModels; a new op is one more model there.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_EVALUABLEOPINTERFACE_TD
#define WEFT_INTERPRETER_EVALUABLEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def Weft_EvaluableOpInterface : OpInterface<"EvaluableOpInterface"> {
  let cppNamespace = "::mlir::weft::interp";
  let description = [{
    An op the reference interpreter (weft-interp) can run. `evaluate` reads
    the op's operands, one tensor per rank, from the EvalContext, and binds
    every result for every rank. In the global view there is one rank; in
    the local view every rank of the mesh runs in lockstep, so a collective
    sees all of its group's blocks at once. Errors are emitted at the op.
  }];
  let methods = [
    InterfaceMethod<[{
      Evaluates the op on every rank of `ctx` and binds its results.
    }], "::llvm::LogicalResult", "evaluate",
    (ins "::mlir::weft::interp::EvalContext &":$ctx)>
  ];
}

#endif // WEFT_INTERPRETER_EVALUABLEOPINTERFACE_TD

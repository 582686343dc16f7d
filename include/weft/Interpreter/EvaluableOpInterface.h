//===- EvaluableOpInterface.h - how the interpreter runs an op --*- C++ -*-===//
//
// EvalContext holds the values of the function being interpreted, one tensor
// per rank, and the mesh it runs on; EvaluableOpInterface (the .td beside
// this header) is the per-op method that reads and binds them. The models
// for the weft ops live in lib/Interpreter/EvaluationModels.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_EVALUABLEOPINTERFACE_H
#define WEFT_INTERPRETER_EVALUABLEOPINTERFACE_H

#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Interpreter/Collectives.h"
#include "weft/Interpreter/Tensor.h"

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::weft::interp {

/// The state of one interpreted function: every value's tensor on every rank
/// (one rank in the global view), and the mesh of a local-view function.
class EvalContext {
public:
  EvalContext(bool local, MeshOp meshOp)
      : local(local), meshName(meshOp ? meshOp.getSymName() : StringRef()),
        mesh(meshOp), numRanks(mesh.getNumDevices()) {}

  /// True for a local-view (per-rank) program.
  bool isLocal() const { return local; }
  const Mesh &getMesh() const { return mesh; }
  int64_t getNumRanks() const { return numRanks; }

  bool isDefined(Value v) const { return values.count(v) != 0; }
  /// The tensors of a defined value, one per rank.
  const PerRank &get(Value v) const { return values.find(v)->second; }
  const Tensor &get(Value v, int64_t rank) const { return get(v)[rank]; }
  /// Rank `rank`'s tensors of `vs`, in order.
  SmallVector<const Tensor *> get(ValueRange vs, int64_t rank) const {
    SmallVector<const Tensor *> ts;
    for (Value v : vs)
      ts.push_back(&get(v, rank));
    return ts;
  }

  void bind(Value v, PerRank tensors) { values[v] = std::move(tensors); }
  /// Binds `result` to `fn(rank)` for every rank.
  template <typename Fn> void bindPerRank(Value result, Fn fn) {
    PerRank out;
    for (int64_t r = 0; r < numRanks; ++r)
      out.push_back(fn(r));
    bind(result, std::move(out));
  }

  /// The axes of a local-view op, after checking that the program is in the
  /// local view and that `meshRef` is the mesh the function runs on.
  FailureOr<SmallVector<StringRef>>
  getAxes(Operation *op, FlatSymbolRefAttr meshRef, ArrayAttr axes) const;

  /// Appends " (rank r)" to a diagnostic about one rank's tensor, in the
  /// local view.
  void noteRank(InFlightDiagnostic &diag, int64_t rank) const {
    if (local)
      diag << " (rank " << rank << ")";
  }

private:
  bool local;
  /// The symbol name of the function's mesh; empty on a single rank.
  StringRef meshName;
  Mesh mesh;
  int64_t numRanks;
  llvm::DenseMap<Value, PerRank> values;
};

/// Attaches the evaluation models to the weft ops (through a dialect
/// extension, so it works before or after the dialect is loaded).
void registerEvaluationModels(DialectRegistry &registry);

} // namespace mlir::weft::interp

#include "weft/Interpreter/EvaluableOpInterface.h.inc"

#endif // WEFT_INTERPRETER_EVALUABLEOPINTERFACE_H

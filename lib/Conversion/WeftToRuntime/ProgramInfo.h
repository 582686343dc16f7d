//===- ProgramInfo.h - What the lowering reads first -----------*- C++ -*-===//
//
// Everything about the lowered function that is decided before any op is
// rewritten: the local-view contract is checked here (one block, local
// types that are the blocks of their global types, ops the patterns lower,
// unique names), and the result is what the harness needs (mesh, inputs and
// outputs with their names, dtypes, global shapes, layouts, partial axes and
// id bounds) plus what the op patterns share (each op's index in the step,
// which ops see their first operand die). Computed once; the patterns only
// read it.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_LIB_CONVERSION_WEFTTORUNTIME_PROGRAMINFO_H
#define WEFT_LIB_CONVERSION_WEFTTORUNTIME_PROGRAMINFO_H

#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "weft/rt/DType.h"
#include "weft/rt/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <string>
#include <vector>

namespace mlir::weft::lowering {

/// The mesh the function runs on, as names and sizes (no mesh: no axes).
struct MeshDesc {
  SmallVector<std::string> axes;
  SmallVector<int64_t> sizes;

  /// The index of `axis`, or -1.
  int index(StringRef axis) const;
};

/// An input or output as the harness sees it (a weft::rt::ProgramTensor).
struct TensorSignature {
  std::string name;
  /// The global type, without encoding.
  RankedTensorType global;
  ::weft::rt::DType dtype = ::weft::rt::DType::F32;
  /// Per dimension, the mesh axes (indices) it is split over.
  std::vector<std::vector<int>> dims;
  std::vector<int> partial;
  ReductionKind partialKind = ReductionKind::Sum;
  /// Random i32 inputs are drawn in [0, intBound) (getIdBound).
  int64_t intBound = 1;
  /// A training step's roles (--weft-optimizer's attributes): an input's
  /// role, the input an output updates (-1: none).
  ::weft::rt::TensorRole role = ::weft::rt::TensorRole::Data;
  int updates = -1;
  /// `weft.micro_batch` (--weft-accumulate): copies k > 0 share the name of
  /// their input.
  int microBatch = 0;
  /// `weft.logical_shape` (--weft-pad-uneven): the shape files hold; empty
  /// when it is the global shape.
  std::vector<int64_t> logicalShape;
};

class ProgramInfo {
public:
  /// Reads `func` and checks it against the local-view contract
  /// (docs/lowering.md). Emits an error on the function, or on the first op
  /// no pattern lowers, and fails otherwise.
  static FailureOr<ProgramInfo> get(func::FuncOp func);

  func::FuncOp getFunc() const { return func_; }
  const MeshDesc &getMesh() const { return mesh_; }
  ArrayRef<TensorSignature> getInputs() const { return inputs_; }
  ArrayRef<TensorSignature> getOutputs() const { return outputs_; }
  /// `weft_step_<function name>`.
  const std::string &getStepName() const { return stepName_; }

  /// The initializer of `weft::rt::ProgramInfo weft_program`.
  std::string programInitializer() const;

  /// The index of `op` among the ops of the body that become calls: the
  /// `#<index>` of its label.
  int opIndex(Operation *op) const { return opIndex_.lookup(op); }

  /// Whether the first operand of `op` is made in the body (not an
  /// argument), used by `op` once and never after: it dies at `op`.
  bool firstOperandDiesAt(Operation *op) const {
    return firstOperandDies_.contains(op);
  }

  /// The functions the entry calls (weft-outline-layers), each once, in
  /// the order of their first call; checked as the entry's body is, their
  /// ops numbered after the entry's.
  ArrayRef<func::FuncOp> getCallees() const { return callees_; }
  /// The C++ function a callee becomes: `weft_call_<symbol>`.
  static std::string calleeName(StringRef symbol);

  /// The mesh axis indices of `axes`, in order. Emits an error on `op` and
  /// fails when one is not an axis of the mesh.
  FailureOr<std::vector<int>> axisIndices(Operation *op, ArrayAttr axes) const;

private:
  ProgramInfo(func::FuncOp func, MeshDesc mesh)
      : func_(func), mesh_(std::move(mesh)) {}
  FailureOr<TensorSignature> readSignature(Type local, Attribute globalAttr,
                                           StringAttr name, const Twine &what,
                                           bool isInput);
  LogicalResult readSignatures();
  /// The roles of a training step's inputs and outputs, checked: an
  /// updated input has its output's global type and layout.
  LogicalResult readTrainingRoles();
  LogicalResult checkBody();
  /// Checks one function's body and numbers its ops from `index` on;
  /// records which ops see their first operand die.
  LogicalResult checkBlock(Block &body, int &index);

  func::FuncOp func_;
  MeshDesc mesh_;
  SmallVector<TensorSignature> inputs_, outputs_;
  std::string stepName_;
  std::string optimizer_; // weft.optimizer's kind (empty: forward program)
  double defaultLr_ = 0;
  int microBatches_ = 1;
  DenseMap<Operation *, int> opIndex_;
  DenseSet<Operation *> firstOperandDies_;
  SmallVector<func::FuncOp> callees_;
};

} // namespace mlir::weft::lowering

#endif // WEFT_LIB_CONVERSION_WEFTTORUNTIME_PROGRAMINFO_H

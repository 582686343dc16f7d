//===- ProgramTensor.h - One input or output of a program -------*- C++ -*-===//
//
// How the harness sees one input or output of a compiled program: name,
// global type, layout, and its role in a training step. Dependency-free
// (weft_rt_plan), so the compiler that writes these descriptions (the
// tensor table, TensorTable.h) and the harness that reads them share it.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_PROGRAMTENSOR_H
#define WEFT_RT_PROGRAMTENSOR_H

#include "weft/rt/DType.h"
#include "weft/rt/Kinds.h"
#include "weft/rt/Mesh.h"

#include <cstdint>
#include <string>
#include <vector>

namespace weft::rt {

/// What an input is to a training step (--weft-optimizer); every input of
/// a forward program is Data.
enum class TensorRole : int {
  Data = 0,         // read from --input or drawn (a training batch: per step)
  Param = 1,        // a trained parameter: loaded once, then updated in place
  State = 2,        // optimizer state: zeros or loaded, then updated in place
  Step = 3,         // the rank-0 step count 1, 2, ... the harness supplies
  LearningRate = 4, // the rank-0 learning rate of the step's schedule
  LossScale = 5,    // dynamic loss scaling's rank-0 scale (the harness's)
  FiniteGrads = 6,  // output: 1 if every gradient was finite, else 0
};

/// One input or output of the program: its global type and layout.
struct ProgramTensor {
  std::string name;
  DType dtype = DType::F32;
  Shape globalShape;
  /// Per dim, the mesh axes splitting it (major to minor).
  Layout layout;
  /// Axes over which the value is partial (outputs only; reduced with
  /// `partialKind` before gathering).
  AxisList partialAxes;
  ReduceKind partialKind = ReduceKind::Sum;
  /// i32 inputs: random ids are drawn in [0, intBound) (the rows of the
  /// table the ids index).
  int64_t intBound = 1;
  /// Inputs: what the value is to a training step (outputs: Data, or
  /// FiniteGrads).
  TensorRole role = TensorRole::Data;
  /// Outputs of a training step: the input this output replaces after
  /// every step (-1: none; the input is donated to it).
  int updates = -1;
  /// Data inputs of a step with gradient accumulation: which micro-batch
  /// this input is (its copies share the name, so one file feeds them).
  int microBatch = 0;
  /// Uneven shards: the logical (unpadded) global shape when `globalShape`
  /// is padded (a dim of logical size n split over k devices is padded to a
  /// multiple of k, the pads at the end of the dim). Empty: the same as
  /// `globalShape`. Otherwise it has globalShape's rank and
  /// logicalShape[d] <= globalShape[d] (checkProgramTensors). Files on disk
  /// (--input, outputs, checkpoints) hold the logical shape; pads of the
  /// local blocks are zero on input and dropped on output.
  Shape logicalShape = {};
};

/// `t.logicalShape`, or `t.globalShape` when that is empty.
inline const Shape &logicalShapeOf(const ProgramTensor &t) {
  return t.logicalShape.empty() ? t.globalShape : t.logicalShape;
}
/// Whether `t`'s global shape is padded (its logical shape differs).
inline bool isPadded(const ProgramTensor &t) {
  return logicalShapeOf(t) != t.globalShape;
}

} // namespace weft::rt

#endif // WEFT_RT_PROGRAMTENSOR_H

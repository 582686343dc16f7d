//===- TensorTable.h - Inputs and outputs as one compact text ---*- C++ -*-===//
//
// A program's inputs and outputs written as a text table, one row per
// tensor, and runs of rows that repeat with a counter written once
// (docs/lowering.md, "The tensor table"). The lowering writes it
// (encodeTensorTable) into the generated C++ as one string literal; the
// harness reads it (decodeTensorTable) when the program starts. A deep
// model's parameters (w1_0, w1_1, ..., each with its m and v, in and out)
// are then a few rows whatever the depth, and a string literal costs the
// C++ compiler almost nothing, where one designated initializer per tensor
// cost it a std::vector construction each.
//
// A row: `NAME DTYPE SHAPE LAYOUT [FIELD=VALUE]...`, fields at their
// defaults left out:
//
//   x f32 [16,32] [{},{1}]
//   "odd name" i32 [8] [{0}] bound=10
//   step f32 [] [] role=3
//   y f32 [4,6] [{},{}] partial={0} kind=max updates=2 micro=1 logical=[3,6]
//
// A repeated run: `repeat N`, K rows, `end`: the K rows N times, the i-th
// time (i = 0 .. N-1) with each name's counter `{FIRST,STRIDE}` written
// FIRST + i * STRIDE, and `updates=FIRST,STRIDE` likewise:
//
//   repeat 4
//   w1_{0,1} f32 [32,64] [{},{1}] role=1
//   new_w1_{0,1} f32 [32,64] [{},{1}] updates={2,2}
//   end
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_TENSORTABLE_H
#define WEFT_RT_TENSORTABLE_H

#include "weft/rt/ProgramTensor.h"

#include <string>
#include <string_view>
#include <vector>

namespace weft::rt {

/// The table of `tensors`, lines separated by '\n'; runs that repeat with
/// arithmetic name counters and `updates` are folded into `repeat` blocks.
std::string encodeTensorTable(const std::vector<ProgramTensor> &tensors);

/// The tensors of a table encodeTensorTable wrote. Throws Error naming the
/// line on malformed text.
std::vector<ProgramTensor> decodeTensorTable(std::string_view table);

/// Whether every field of `a` equals `b`'s.
bool sameProgramTensor(const ProgramTensor &a, const ProgramTensor &b);

} // namespace weft::rt

#endif // WEFT_RT_TENSORTABLE_H

//===- PlanLayers.h - One sharding plan per layer call ----------*- C++ -*-===//
//
// weft-plan-layers (docs/calls.md, "One plan per layer"): the front of the
// pipeline (inlining, training, mesh, propagation) run so that propagation
// sees three calls of a layer however many the program makes. Private to
// lib/Pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_LIB_PIPELINE_PLANLAYERS_H
#define WEFT_LIB_PIPELINE_PLANLAYERS_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <memory>

namespace mlir::weft {

/// Parts of the pipeline's front: all of it (inlining, training, the mesh,
/// propagation), all but propagation, propagation alone.
enum class FrontPart { Whole, UpToPropagation, Propagation };

/// Adds a part of the front to a builtin.module pass manager.
using FrontBuilder = std::function<void(OpPassManager &, FrontPart)>;

/// The pass runs the whole front on the module. Where the entry calls one layer
/// function four times or more, it first runs the whole front on a copy that
/// keeps the first, second and last call of it, then the front but propagation
/// on the module, and gives every op of the module the layouts and letter map
/// of its op in the copy: every middle call gets the second call's plan. Where
/// an op has no counterpart, the module is propagated as usual.
std::unique_ptr<Pass> createPlanLayersPass(FrontBuilder front);

} // namespace mlir::weft

#endif // WEFT_LIB_PIPELINE_PLANLAYERS_H

//===- Pipeline.cpp - The whole compile pipeline as one unit --------------===//
//
// The one place the order of the passes is written (docs/weftc.md, "The
// pipeline"; test/Pipeline/doc-order.test checks the doc's picture against
// it). Passes are created with their generated typed options, never from
// pipeline text, so an option value (a path with a space) needs no quoting.
//
//===----------------------------------------------------------------------===//

#include "weft/Pipeline/Pipeline.h"

#include "PlanLayers.h"

#include "weft/Conversion/WeftToRuntime/Passes.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/Transforms/MachineProfile.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::weft;

/// The profile that prices plans: the backend's unless one is given.
static std::string resolvedProfile(const WeftPipelineOptions &o) {
  if (!o.machineProfile.empty())
    return o.machineProfile;
  return o.backend == "cuda" ? MachineProfile::kBuiltinGpu
                             : MachineProfile::kBuiltinCpu;
}

/// The precision policy (docs/precision.md): on the gradients, before the
/// optimizer step, which it leaves f32.
static void addPrecision(OpPassManager &pm, const WeftPipelineOptions &o) {
  if (o.precision == "f32" && o.gradReduceDtype == "bf16")
    return; // the default: nothing to do
  WeftPrecisionOptions precision;
  precision.policy = o.precision;
  precision.gradReduceDtype = o.gradReduceDtype;
  pm.addNestedPass<func::FuncOp>(createWeftPrecision(precision));
}

/// Training: gradients, accumulation, the precision policy, the optimizer
/// step.
static void addTraining(OpPassManager &pm, const WeftPipelineOptions &o) {
  // weft-remat right after the gradients (before the micro-batch copies):
  // it recomputes the layers weft-inline-calls marked, and removes the
  // marks (in a forward program, that is all it does).
  if (o.training == TrainingKind::None) {
    pm.addNestedPass<func::FuncOp>(createWeftRemat());
    return addPrecision(pm, o);
  }
  pm.addNestedPass<func::FuncOp>(createWeftAutodiff());
  pm.addNestedPass<func::FuncOp>(createWeftRemat());
  if (o.microBatches != 1) {
    WeftAccumulateOptions accumulate;
    accumulate.microBatches = o.microBatches;
    pm.addNestedPass<func::FuncOp>(createWeftAccumulate(accumulate));
  }
  addPrecision(pm, o);
  if (o.training == TrainingKind::Grad)
    return;
  WeftOptimizerOptions optimizer;
  optimizer.kind = o.training == TrainingKind::Sgd ? "sgd" : "adamw";
  optimizer.lr = o.lr;
  optimizer.beta1 = o.beta1;
  optimizer.beta2 = o.beta2;
  optimizer.eps = o.eps;
  optimizer.weightDecay = o.weightDecay;
  optimizer.momentum = o.momentum;
  optimizer.clipNorm = o.clipNorm;
  optimizer.zeroAxis = o.zero1Axis;
  pm.addNestedPass<func::FuncOp>(createWeftOptimizer(optimizer));
}

/// The front: calls inlined, training, the mesh, propagation (a part of it
/// for weft-plan-layers).
static void addFront(OpPassManager &pm, const WeftPipelineOptions &o,
                     FrontPart part) {
  if (part != FrontPart::Propagation) {
    // A pipeline from the layer calls, while they are calls
    // (docs/pipeline.md, "Stages from layer calls").
    if (o.pipelineStages > 0)
      pm.addPass(createWeftStageCalls(
          WeftStageCallsOptions{o.pipelineStages, o.pipelineMicroBatches,
                                "stage", o.pipelineSchedule}));
    // Calls first: every later pass sees one flat function (docs/calls.md).
    pm.addPass(createWeftInlineCalls(WeftInlineCallsOptions{o.rematLayers}));
    // Under 1F1B each loss tick calls the loss and its vjp, which computes
    // the loss's forward again from the same operands: CSE keeps one copy
    // (docs/pipeline.md, "1F1B from layer calls").
    if (o.pipelineStages > 0 && o.pipelineSchedule == "1f1b")
      pm.addNestedPass<func::FuncOp>(mlir::createCSEPass());
    // The training passes see the mesh as declared (the optimizer's ZeRO-1
    // split picks a dimension the axis divides), then the mesh is
    // rewritten.
    addTraining(pm, o);
    // --unsharded gives every axis size 1 whatever --mesh says, so the
    // resize would change nothing it keeps.
    if (o.unsharded)
      pm.addPass(createWeftUnsharded());
    else if (!o.mesh.empty())
      pm.addPass(createWeftResizeMesh(WeftResizeMeshOptions{o.mesh}));
  }
  if (part == FrontPart::UpToPropagation || o.inputView != InputView::Global)
    return;
  // The profile that prices plans follows the backend unless one is given
  // (docs/machine-profile.md, "Which profile prices a plan").
  WeftPropagateOptions propagate;
  propagate.search = o.search;
  propagate.profile = resolvedProfile(o);
  propagate.memoryBudget = o.memoryBudget;
  propagate.reshardAnnotated = o.reshardAnnotated;
  propagate.combineBytes = o.combineBytes;
  propagate.combinePerCall = o.combinePerCall;
  pm.addNestedPass<func::FuncOp>(createWeftPropagate(propagate));
}

void mlir::weft::buildWeftPipeline(OpPassManager &pm,
                                   const WeftPipelineOptions &o) {
  // With layer calls, one plan per layer (docs/calls.md, "One plan per
  // layer"): propagation sees three calls of a layer. Not under a memory
  // budget, which bounds the whole program's footprint, nor when the calls
  // become pipeline stages (weft-stage-calls leaves no call to plan).
  if (o.planLayers && o.inputView == InputView::Global && o.memoryBudget == 0 &&
      o.pipelineStages == 0)
    pm.addPass(createPlanLayersPass(
        [&o](OpPassManager &p, FrontPart part) { addFront(p, o, part); }));
  else
    addFront(pm, o, FrontPart::Whole);
  if (o.showSharding) {
    WeftShowShardingOptions show;
    show.values.assign(o.showShardingValues.begin(),
                       o.showShardingValues.end());
    show.output = o.showShardingOutput;
    pm.addPass(createWeftShowSharding(show));
  }
  if (o.stopAfter == PipelineStop::Global)
    return;
  if (o.inputView == InputView::Global) {
    pm.addNestedPass<func::FuncOp>(createWeftPadUneven());
    pm.addNestedPass<func::FuncOp>(createWeftPartition());
  }

  // The local view: collectives.
  pm.addPass(createWeftOptimizeCollectives());
  if (o.combineBytes != 0)
    pm.addPass(createWeftCombineCollectives(
        WeftCombineCollectivesOptions{o.combineBytes, o.combinePerCall}));
  if (o.rematGathers)
    pm.addNestedPass<func::FuncOp>(createWeftRematGathers());
  if (o.schedule)
    pm.addNestedPass<func::FuncOp>(createWeftScheduleCollectives());
  if (o.commReport != CommReportFormat::Off) {
    WeftCommReportOptions report;
    report.json = o.commReport == CommReportFormat::Json;
    report.output = o.commReportOutput;
    // The profile's name as the search's remark prints it (a file that
    // does not load fails weft-propagate first).
    if (o.inputView == InputView::Global && o.search != "greedy") {
      std::string profile = resolvedProfile(o), error;
      FailureOr<MachineProfile> p = MachineProfile::resolve(profile, error);
      report.profile = succeeded(p) ? p->name : profile;
    }
    pm.addPass(createWeftCommReport(report));
  }
  if (o.stopAfter == PipelineStop::Local)
    return;

  // Layers outlined again (docs/calls.md): the lowering and the C++ compile
  // see each distinct layer body once. After the comm report, which counts
  // every call's collectives; before the fusion, whose fused ops keep no
  // call site.
  if (o.outlineLayers)
    pm.addPass(createWeftOutlineLayers());
  // Fusion and the lowering. Epilogues first: a bias add or an activation
  // after an einsum would otherwise join a fused_map chain.
  if (o.fuseEpilogues)
    pm.addNestedPass<func::FuncOp>(createWeftFuseEpilogues());
  if (o.fuse) {
    pm.addNestedPass<func::FuncOp>(createWeftFuseRows());
    pm.addNestedPass<func::FuncOp>(createWeftFuseElementwise());
  }
  WeftLowerToRuntimeOptions lowering;
  lowering.callLoops = o.callLoops;
  pm.addPass(createWeftLowerToRuntime(lowering));
}

int64_t mlir::weft::annotatedPipelineStages(ModuleOp module) {
  // At least 1 where any call carries the attribute, whatever its value:
  // weft-stage-calls then runs and checks every annotation (a negative
  // or non-integer stage, a call outside the entry) instead of the
  // annotations being dropped unread.
  int64_t n = 0;
  module.walk([&](func::CallOp call) {
    if (!call->hasAttr(kStageAttr))
      return;
    n = std::max<int64_t>(n, 1);
    if (auto s = call->getAttrOfType<IntegerAttr>(kStageAttr))
      n = std::max<int64_t>(n, s.getInt() + 1);
  });
  return n;
}

void mlir::weft::registerWeftPipeline() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  PassPipelineRegistration<WeftPipelineOptions>(
      "weft-pipeline",
      "The whole compile pipeline of weftc, from a global-view program to "
      "the EmitC module (docs/weftc.md, \"The pipeline\")",
      buildWeftPipeline);
}

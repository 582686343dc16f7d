//===- Pipeline.h - The whole compile pipeline as one unit ------*- C++ -*-===//
//
// weft-pipeline: every pass from a global-view program to the EmitC module
// weftc translates to C++, in order, built from one typed options struct
// (docs/weftc.md, "The pipeline"). weftc runs it in one PassManager;
// weft-opt runs it as --weft-pipeline="...".
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_PIPELINE_PIPELINE_H
#define WEFT_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::weft {

/// What the pipeline builds before propagation (docs/training.md).
enum class TrainingKind {
  None,  ///< the program as written
  Grad,  ///< the loss and the gradient of every weft.param (weft-autodiff)
  Sgd,   ///< a training step with SGD (weft-autodiff, weft-optimizer)
  AdamW, ///< a training step with AdamW (weft-autodiff, weft-optimizer)
};

/// Where the pipeline ends; weftc's --emit=global|local|emitc stop here, so
/// every --emit stage is a prefix of the one pipeline.
enum class PipelineStop {
  Global, ///< after weft-propagate: the global view with every sharding
  Local,  ///< after the collective passes and the comm report: the local view
  EmitC,  ///< after weft-lower-to-runtime: the EmitC module (the default)
};

/// The view the input program is in. A local view (weft.global_type
/// attributes or local collectives) skips propagation and partitioning.
enum class InputView { Global, Local };

/// The comm report (weft-comm-report) on the local view.
enum class CommReportFormat { Off, Text, Json };

/// The options of weft-pipeline: weftc's options that choose or configure
/// passes, with weftc's defaults. Each is documented in docs/weftc.md.
struct WeftPipelineOptions : public PassPipelineOptions<WeftPipelineOptions> {
  Option<InputView> inputView{
      *this, "input-view",
      llvm::cl::desc("The view of the input: global (propagate and "
                     "partition it) or local (already partitioned: start at "
                     "the collective passes)"),
      llvm::cl::init(InputView::Global),
      llvm::cl::values(clEnumValN(InputView::Global, "global", "global view"),
                       clEnumValN(InputView::Local, "local", "local view"))};
  Option<PipelineStop> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("The last stage: global (after weft-propagate), local "
                     "(after the collective passes and the comm report) or "
                     "emitc (after weft-lower-to-runtime)"),
      llvm::cl::init(PipelineStop::EmitC),
      llvm::cl::values(
          clEnumValN(PipelineStop::Global, "global", "after propagation"),
          clEnumValN(PipelineStop::Local, "local",
                     "after partitioning and the collective passes"),
          clEnumValN(PipelineStop::EmitC, "emitc", "after the lowering"))};

  // Training (weftc --grad / --train).
  Option<TrainingKind> training{
      *this, "training",
      llvm::cl::desc("none, grad (weft-autodiff), or a training step with "
                     "sgd or adamw (weft-autodiff, weft-optimizer)"),
      llvm::cl::init(TrainingKind::None),
      llvm::cl::values(
          clEnumValN(TrainingKind::None, "none", "no training"),
          clEnumValN(TrainingKind::Grad, "grad", "loss and gradients"),
          clEnumValN(TrainingKind::Sgd, "sgd", "an SGD step"),
          clEnumValN(TrainingKind::AdamW, "adamw", "an AdamW step"))};
  Option<double> lr{*this, "lr", llvm::cl::desc("Default learning rate"),
                    llvm::cl::init(1e-3)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("AdamW beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("AdamW beta2"),
                       llvm::cl::init(0.999)};
  Option<double> eps{*this, "eps", llvm::cl::desc("AdamW epsilon"),
                     llvm::cl::init(1e-8)};
  Option<double> weightDecay{
      *this, "weight-decay",
      llvm::cl::desc("Weight decay (-1: 0.01 for adamw, 0 for sgd)"),
      llvm::cl::init(-1)};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(0)};
  Option<double> clipNorm{*this, "clip-norm",
                          llvm::cl::desc("Clip the gradients' global norm "
                                         "(0: off)"),
                          llvm::cl::init(0)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("The precision policy: f32 or bf16-mixed "
                     "(weft-precision)"),
      llvm::cl::init("f32")};
  Option<std::string> gradReduceDtype{
      *this, "grad-reduce-dtype",
      llvm::cl::desc("bf16-mixed: the type weight gradients are reduced in "
                     "(bf16 or f32)"),
      llvm::cl::init("bf16")};
  Option<bool> rematLayers{
      *this, "remat-layers",
      llvm::cl::desc("Recompute every layer call of the entry in the "
                     "backward pass (weft-inline-calls remat-all, "
                     "weft-remat): activation checkpointing per layer"),
      llvm::cl::init(false)};
  Option<int64_t> pipelineStages{
      *this, "pipeline-stages",
      llvm::cl::desc("Pipeline the entry's layer calls over N stages "
                     "(weft-stage-calls; 0: off)"),
      llvm::cl::init(0)};
  Option<int64_t> pipelineMicroBatches{
      *this, "pipeline-micro-batches",
      llvm::cl::desc("With pipeline-stages: micro-batches (0: 2N)"),
      llvm::cl::init(0)};
  Option<std::string> pipelineSchedule{
      *this, "pipeline-schedule",
      llvm::cl::desc("With pipeline-stages: gpipe or 1f1b"),
      llvm::cl::init("gpipe")};
  Option<int64_t> microBatches{
      *this, "micro-batches",
      llvm::cl::desc("Accumulate the gradients over K micro-batches "
                     "(weft-accumulate; 1: off)"),
      llvm::cl::init(1)};
  Option<std::string> zero1Axis{
      *this, "zero1-axis",
      llvm::cl::desc("ZeRO-1: split the optimizer state over this mesh axis"),
      llvm::cl::init("")};

  // The mesh (weftc --mesh / --unsharded).
  Option<std::string> mesh{
      *this, "mesh",
      llvm::cl::desc("Resize mesh axes, AXIS=SIZE[,AXIS=SIZE...] "
                     "(weft-resize-mesh; empty: keep them)"),
      llvm::cl::init("")};
  Option<bool> unsharded{
      *this, "unsharded",
      llvm::cl::desc("Compile for one device (weft-unsharded; mesh is then "
                     "moot: every axis gets size 1)"),
      llvm::cl::init(false)};

  // Propagation.
  Option<std::string> search{
      *this, "search",
      llvm::cl::desc("weft-propagate's search: global, greedy or exhaustive"),
      llvm::cl::init("global")};
  Option<std::string> machineProfile{
      *this, "machine-profile",
      llvm::cl::desc("Machine profile JSON for the global search, or "
                     "builtin:cpu / builtin:gpu (empty: the default of "
                     "`backend`)"),
      llvm::cl::init("")};
  Option<std::string> backend{
      *this, "backend",
      llvm::cl::desc("The backend the program will run on, cpu or cuda: "
                     "without machine-profile, the global search prices "
                     "plans with its built-in profile "
                     "(docs/machine-profile.md)"),
      llvm::cl::init("cpu")};
  Option<bool> reshardAnnotated{
      *this, "reshard-annotated",
      llvm::cl::desc("Let the global search read annotated values in "
                     "other layouts (docs/propagation.md, \"Annotations are "
                     "intent\")"),
      llvm::cl::init(false)};
  Option<int64_t> memoryBudget{
      *this, "memory-budget",
      llvm::cl::desc("Bytes per device the plan may hold at once (0: none)"),
      llvm::cl::init(0)};

  // The local view.
  Option<int64_t> combineBytes{
      *this, "combine-bytes",
      llvm::cl::desc("weft-combine-collectives' max-bytes (0: the pass does "
                     "not run)"),
      llvm::cl::init(1 << 20)};
  Option<bool> combinePerCall{
      *this, "combine-per-call",
      llvm::cl::desc("weft-combine-collectives' per-call: a bucket holds one "
                     "layer call's operands (docs/calls.md, \"Buckets per "
                     "call\")"),
      llvm::cl::init(true)};
  Option<bool> rematGathers{
      *this, "remat-gathers",
      llvm::cl::desc("Run weft-remat-gathers (FSDP's rematerialization)"),
      llvm::cl::init(false)};
  Option<bool> schedule{
      *this, "schedule",
      llvm::cl::desc("Run weft-schedule-collectives (weftc turns it off "
                     "under --memory-budget unless --schedule is given)"),
      llvm::cl::init(true)};
  Option<CommReportFormat> commReport{
      *this, "comm-report",
      llvm::cl::desc("Run weft-comm-report: off, text or json"),
      llvm::cl::init(CommReportFormat::Off),
      llvm::cl::values(clEnumValN(CommReportFormat::Off, "off", "no report"),
                       clEnumValN(CommReportFormat::Text, "text", "a table"),
                       clEnumValN(CommReportFormat::Json, "json", "JSON"))};
  Option<std::string> commReportOutput{
      *this, "comm-report-output",
      llvm::cl::desc("Where the comm report goes ('-': standard output)"),
      llvm::cl::init("-")};
  Option<bool> showSharding{
      *this, "show-sharding",
      llvm::cl::desc("Run weft-show-sharding after the propagation: the "
                     "device grid of every input and output"),
      llvm::cl::init(false)};
  ListOption<std::string> showShardingValues{
      *this, "show-sharding-values",
      llvm::cl::desc("weft-show-sharding's values (default: all)")};
  Option<std::string> showShardingOutput{
      *this, "show-sharding-output",
      llvm::cl::desc("Where the sharding view goes ('-': standard output)"),
      llvm::cl::init("-")};
  Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Run weft-fuse-rows and weft-fuse-elementwise before "
                     "the lowering"),
      llvm::cl::init(true)};
  Option<bool> planLayers{
      *this, "plan-layers",
      llvm::cl::desc("Propagate three calls of a layer function called four "
                     "times or more, and give every middle call the second "
                     "call's plan (docs/calls.md, \"One plan per layer\"); "
                     "weftc sets it when the program has such calls"),
      llvm::cl::init(false)};
  Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Run weft-fuse-epilogues before the other fusion passes "
                     "(einsum + bias, activation, scale, residual)"),
      llvm::cl::init(true)};
  Option<bool> outlineLayers{
      *this, "outline-layers",
      llvm::cl::desc("Run weft-outline-layers before the fusion: equal "
                     "copies of a layer call become one function "
                     "(docs/calls.md)"),
      llvm::cl::init(true)};
  Option<bool> callLoops{
      *this, "call-loops",
      llvm::cl::desc("Lower runs of equal calls of outlined functions to "
                     "loops over an array of tensors (weft-lower-to-runtime's "
                     "call-loops, docs/calls.md)"),
      llvm::cl::init(true)};
};

/// Adds the compile pipeline to `pm` (anchored on builtin.module), in the
/// order of docs/weftc.md. Function passes are nested on func.func.
void buildWeftPipeline(OpPassManager &pm, const WeftPipelineOptions &options);

/// Whether `module`'s entry calls a layer function four times or more, each
/// call's first results of its first operands' types: what plan-layers
/// shortens (docs/calls.md, "One plan per layer").
bool hasRepeatedLayerCalls(ModuleOp module);

/// The number of pipeline stages `module`'s calls ask for with `weft.stage`
/// (the largest plus one, at least 1 where any call has the attribute; 0:
/// none): weftc's --pipeline-stages when not given (weft-stage-calls checks
/// the annotations).
int64_t annotatedPipelineStages(ModuleOp module);

/// Registers `weft-pipeline` (buildWeftPipeline) with MLIR's pass registry.
void registerWeftPipeline();

} // namespace mlir::weft

#endif // WEFT_PIPELINE_PIPELINE_H

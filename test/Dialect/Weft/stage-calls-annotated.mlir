// Stages written on the calls (docs/pipeline.md, "Stages from layer
// calls"): stage-calls.mlir's four layer calls with `weft.stage` 0, 0, 1,
// 1. weft-stage-calls without a stage count takes the calls' (2 stages of
// 2 calls) and writes exactly the program stage-calls.mlir gets from
// stages=2; the remark says where the split came from. weftc takes the
// annotated stages without --pipeline-stages, and --pipeline-stages=0
// compiles the calls as written.
// RUN: weft-opt %s --weft-stage-calls="micro-batches=2" -o %t.annotated.mlir 2> %t.remarks
// RUN: weft-opt %S/stage-calls.mlir --weft-stage-calls="stages=2 micro-batches=2" -o %t.option.mlir 2> /dev/null
// RUN: diff %t.annotated.mlir %t.option.mlir
// RUN: FileCheck %s < %t.remarks
// CHECK: remark: weft-stage-calls: 4 calls of @layer over 2 stages ("stage"), 2 per stage (as the calls' weft.stage say; stage 0: lines [[#@LINE+32]]-[[#@LINE+33]], stage 1: lines [[#@LINE+34]]-[[#@LINE+35]]); 2 micro-batches of 4 rows, 3 ticks, bubble 1/3
// The same count given: the same program; another count: an error.
// RUN: weft-opt %s --weft-stage-calls="stages=2 micro-batches=2" -o %t.both.mlir 2> /dev/null
// RUN: diff %t.both.mlir %t.option.mlir
// RUN: not weft-opt %s --weft-stage-calls="stages=4" 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: error: weft-stage-calls: the calls' weft.stage give 2 stage(s), stages=4 (weftc --pipeline-stages) another number
// RUN: weftc %s --emit=global --search=greedy --pipeline-micro-batches=2 -o %t.weftc.mlir 2>&1 | FileCheck %s --check-prefix=WEFTC
// WEFTC: remark: weft-stage-calls: 4 calls of @layer over 2 stages
// RUN: FileCheck %s --check-prefix=SHIFTS < %t.weftc.mlir
// SHIFTS: weft.shift
// RUN: weftc %s --emit=global --search=greedy --pipeline-stages=0 -o %t.written.mlir 2>&1 | FileCheck %s --allow-empty --check-prefix=ASWRITTEN
// ASWRITTEN-NOT: weft-stage-calls
// RUN: not grep -q weft.shift %t.written.mlir

weft.mesh @mesh ["stage" = 2, "data" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, %mask: tensor<16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32>
  %m = weft.map mul "be,e->be" (%h, %mask) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %s = weft.shard %m : tensor<8x16xf32> -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %y = weft.map relu "be->be" (%s) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32>
  %n = weft.reduce sum "be->b" (%y) : (tensor<8x16xf32>) -> tensor<8xf32>
  %z = weft.map div "be,b->be" (%y, %n) : (tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x16xf32>
  return %z : tensor<8x16xf32>
}
func.func @mlp(%x: tensor<8x16xf32> {weft.name = "x"},
               %w0: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w0"},
               %w1: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w1"},
               %w2: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w2"},
               %w3: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w3"},
               %y: tensor<8x16xf32> {weft.name = "y"}) -> tensor<f32> {
  %pos = weft.iota : tensor<16xf32>
  %mask = weft.map step "e->e" (%pos) : (tensor<16xf32>) -> tensor<16xf32>
  %h1 = func.call @layer(%x, %w0, %mask) {weft.remat, weft.stage = 0 : i64} : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32>) -> tensor<8x16xf32>
  %h2 = func.call @layer(%h1, %w1, %mask) {weft.stage = 0 : i64} : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32>) -> tensor<8x16xf32>
  %h3 = func.call @layer(%h2, %w2, %mask) {weft.stage = 1 : i64} : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32>) -> tensor<8x16xf32>
  %h4 = func.call @layer(%h3, %w3, %mask) {weft.stage = 1 : i64} : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32>) -> tensor<8x16xf32>
  %e = weft.map sub "bd,bd->bd" (%h4, %y) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %q = weft.map square "bd->bd" (%e) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %l = weft.reduce sum "bd->" (%q) : (tensor<8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// RUN: weft-opt %s --weft-stage-calls="stages=2 micro-batches=2" 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: weft-opt %s --weft-stage-calls | FileCheck %s --check-prefix=OFF
// RUN: weft-opt %s --weft-stage-calls="stages=2 micro-batches=2" --weft-inline-calls 2>/dev/null | FileCheck %s --check-prefix=FLAT

// Four calls of one layer on 2 stages (2 calls each), 2 micro-batches of 4
// rows: 3 ticks. The weights of local layer k (layers k and 2 + k) become
// one argument stacked over "stage", named after stage 0's; the batch is
// reshaped into micro-batches (row r = 2j + i is micro-batch i's row j);
// each tick calls @layer.stages (the layer's ops with a leading stage
// letter) twice (two layers per stage), and the last stage's slot is read
// from tick 1 on.
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
// The layer once per stage: @layer.stages, its ops with a leading stage
// letter, on a micro-batch's rows (4, not 8); the original layer is gone.
// CHECK-NOT: func.func private @layer(
// CHECK-LABEL: func.func private @layer.stages
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x16xf32>, %[[W:.*]]: tensor<2x16x16xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>, %[[M:.*]]: tensor<16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: weft.einsum "abd,ade->abe" (%[[A]], %[[W]]) : (tensor<2x4x16xf32>, tensor<2x16x16xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>) -> tensor<2x4x16xf32>
// CHECK-NEXT: weft.map mul "abe,e->abe" (%{{.*}}, %[[M]])
// CHECK-NEXT: weft.shard %{{.*}} : tensor<2x4x16xf32> -> tensor<2x4x16xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}, {}]>>
// CHECK-NEXT: weft.map relu "abe->abe"
// CHECK-NEXT: weft.reduce sum "abe->ab" ({{.*}}) : (tensor<2x4x16xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: weft.map div "abe,ab->abe"
// CHECK-NEXT: return
// CHECK-NOT: func.func private @layer(
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x16xf32> {weft.name = "x"}
// CHECK-SAME: %[[S0:[a-z0-9]+]]: tensor<2x16x16xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>> {weft.name = "w0.stages", weft.param}
// CHECK-SAME: %[[S1:[a-z0-9]+]]: tensor<2x16x16xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>> {weft.name = "w1.stages", weft.param}
// CHECK-SAME: %[[Y:[a-z0-9]+]]: tensor<8x16xf32> {weft.name = "y"}
// CHECK: %[[MASK:.*]] = weft.map step "e->e"
// CHECK: %[[POS:.*]] = weft.iota : tensor<2xf32, #weft.sharding<@mesh, [{"stage"}]>>
// CHECK: %[[R:.*]] = weft.reshape "(bm)c->bmc" (%[[X]]) : (tensor<8x16xf32>) -> tensor<4x2x16xf32>
// tick 0: micro-batch 0 into stage 0's slot, then the stage's two layers
// (the first keeps the user's weft.remat)
// CHECK: weft.slice %[[R]] dim 1 start 0 : tensor<4x2x16xf32> -> tensor<4x1x16xf32>
// CHECK: %[[IN0:.*]] = weft.map mul "s,bc->sbc"
// CHECK-NEXT: %[[L0:.*]] = call @layer.stages(%[[IN0]], %[[S0]], %[[MASK]]) {weft.remat}
// CHECK-NEXT: %[[L1:.*]] = call @layer.stages(%[[L0]], %[[S1]], %[[MASK]]) :
// CHECK-NOT: weft.einsum "s,sbc->bc"
// tick 1: the shift, micro-batch 1, and the last stage's slot read
// CHECK: weft.slice %[[R]] dim 1 start 1
// CHECK: weft.shift %[[L1]] dim 0 by 1 : tensor<2x4x16xf32> -> tensor<2x4x16xf32>
// CHECK: weft.map add "sbc,sbc->sbc"
// CHECK-COUNT-2: call @layer.stages
// CHECK: weft.einsum "s,sbc->bc"
// tick 2: no micro-batch left to inject
// CHECK-NOT: weft.slice %[[R]]
// CHECK: weft.shift
// CHECK-COUNT-2: call @layer.stages
// CHECK: weft.einsum "s,sbc->bc"
// CHECK: %[[CAT:.*]] = weft.concat {{.*}} dim 1 : (tensor<4x1x16xf32>, tensor<4x1x16xf32>) -> tensor<4x2x16xf32>
// CHECK: %[[H:.*]] = weft.reshape "bmc->(bm)c" (%[[CAT]]) : (tensor<4x2x16xf32>) -> tensor<8x16xf32>
// CHECK: weft.map sub "bd,bd->bd" (%[[H]], %[[Y]])
// CHECK-NOT: call
// Flattened by weft-inline-calls like any layer call: 3 ticks x 2 layers.
// FLAT-COUNT-6: weft.einsum "abd,ade->abe"
// FLAT-NOT: call
// The remark says why the split is this one, and where each stage's calls
// are.
// REMARK: remark: weft-stage-calls: 4 calls of @layer over 2 stages ("stage"), 2 per stage (calls of one function cost the same: the equal split is the balanced one; stage 0: lines [[#@LINE+10]]-[[#@LINE+11]], stage 1: lines [[#@LINE+12]]-[[#@LINE+13]]); 2 micro-batches of 4 rows, 3 ticks, bubble 1/3
// OFF-COUNT-4: call @layer
func.func @mlp(%x: tensor<8x16xf32> {weft.name = "x"},
               %w0: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w0"},
               %w1: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w1"},
               %w2: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w2"},
               %w3: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w3"},
               %y: tensor<8x16xf32> {weft.name = "y"}) -> tensor<f32> {
  %pos = weft.iota : tensor<16xf32>
  %mask = weft.map step "e->e" (%pos) : (tensor<16xf32>) -> tensor<16xf32>
  %h1 = func.call @layer(%x, %w0, %mask) {weft.remat} : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32>) -> tensor<8x16xf32>
  %h2 = func.call @layer(%h1, %w1, %mask) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32>) -> tensor<8x16xf32>
  %h3 = func.call @layer(%h2, %w2, %mask) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32>) -> tensor<8x16xf32>
  %h4 = func.call @layer(%h3, %w3, %mask) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32>) -> tensor<8x16xf32>
  %e = weft.map sub "bd,bd->bd" (%h4, %y) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %q = weft.map square "bd->bd" (%e) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %l = weft.reduce sum "bd->" (%q) : (tensor<8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

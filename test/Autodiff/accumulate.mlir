// --weft-accumulate: one copy of the body per micro-batch, on its own copy
// of the data arguments (weft.micro_batch = k, the same weft.name), the
// mean loss and gradients, and the gradient's weft.shard applied once to the
// sum, so the data-parallel all-reduce happens once per step.
// RUN: weft-opt %s --weft-autodiff --weft-accumulate=micro-batches=3 | FileCheck %s
// RUN: weft-opt %s --weft-autodiff --weft-accumulate=micro-batches=3 --weft-propagate --weft-partition --weft-optimize-collectives --weft-comm-report -o /dev/null | FileCheck %s --check-prefix=COMM
// RUN: not weft-opt %s --weft-autodiff --weft-accumulate=micro-batches=0 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not weft-opt %s --weft-accumulate=micro-batches=2 2>&1 | FileCheck %s --check-prefix=NOGRAD
// RUN: not weft-opt %s --weft-autodiff --weft-accumulate=micro-batches=2 --weft-accumulate=micro-batches=2 2>&1 | FileCheck %s --check-prefix=TWICE

// CHECK-LABEL: func.func @loss(
// CHECK-SAME: {weft.micro_batch = 0 : i64, weft.name = "x"}
// CHECK-SAME: {weft.name = "w", weft.param}
// CHECK-SAME: {weft.micro_batch = 1 : i64, weft.name = "x"}
// CHECK-SAME: {weft.micro_batch = 2 : i64, weft.name = "x"}
// CHECK-COUNT-3: weft.einsum "bd,df->bf"
// CHECK: weft.map scale "->" ({{.*}}) {scalar = 0.33333333333333331 : f64}
// CHECK: weft.map scale "ab->ab" ({{.*}}) {scalar = 0.33333333333333331 : f64}
// CHECK-NEXT: weft.shard
// CHECK-NEXT: return

// COMM: all_reduce(sum) {"data"} 4x3xf32 4x3xf32 48
// COMM-NOT: all_reduce(sum) {"data"} 4x3xf32
// COMM: total

// RANGE: error: --weft-accumulate: micro-batches = 0 is out of range [1, 4096]
// NOGRAD: error: --weft-accumulate needs the loss followed by the gradients (run --weft-autodiff first)
// TWICE: error: --weft-accumulate must run once, after --weft-autodiff and before --weft-optimizer

weft.mesh @mesh ["data" = 2]
func.func @loss(%x: tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "x"},
                %w: tensor<4x3xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %y = weft.einsum "bd,df->bf" (%x, %w) : (tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<4x3xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x3xf32>
  %s = weft.map square "bf->bf" (%y) : (tensor<8x3xf32>) -> tensor<8x3xf32>
  %l = weft.reduce sum "bf->" (%s) : (tensor<8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

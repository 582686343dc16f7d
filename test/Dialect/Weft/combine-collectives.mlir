// --weft-combine-collectives: independent all-reduces of one kind and axes
// become one all-reduce of their flattened, concatenated operands, sliced
// back out. Here 6 all-reduces become 3: the sum of exponentials, the
// picked logits, a scalar and a 2-D partial einsum are combined (the log
// that reads the first is moved after the combined collective); the max
// (another kind) and the sum that depends on the combined results stay on
// their own. The combined program equals the global one on 4 ranks. The
// input is greedy propagation's plan (search=greedy): the global search
// finds a plan of this program with one all-reduce, leaving nothing to
// combine.
// RUN: weft-opt %s --weft-propagate=search=greedy --weft-pad-uneven --weft-partition -o %t.local.mlir
// RUN: grep -c "weft.all_reduce" %t.local.mlir | FileCheck %s --check-prefix=BEFORE
// BEFORE: 6
// RUN: weft-opt %t.local.mlir --weft-combine-collectives -o %t.combined.mlir
// -debug-only=weft-combine-collectives traces its decisions (docs/design.md, "Tracing").
// RUN: weft-opt %t.local.mlir --weft-combine-collectives -debug-only=weft-combine-collectives -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE: [weft-combine-collectives] combined {{[0-9]+}} all-reduces:
// RUN: FileCheck %s < %t.combined.mlir
// CHECK: weft.all_reduce max
// CHECK: %[[SCALAR:.*]] = weft.map scale "->a" ({{.*}}) {scalar = 1.000000e+00 : f64} : (tensor<f32>) -> tensor<1xf32>
// CHECK-NEXT: %[[FLAT:.*]] = weft.reshape "ab->(ab)" ({{.*}}) : (tensor<8x4xf32>) -> tensor<32xf32>
// CHECK-NEXT: %[[CAT:.*]] = weft.concat {{.*}}, {{.*}}, %[[SCALAR]], %[[FLAT]] dim 0 : (tensor<8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<32xf32>) -> tensor<49xf32>
// CHECK-NEXT: %[[AR:.*]] = weft.all_reduce sum %[[CAT]] on @mesh over ["model"] {weft.bytes_per_device = 294 : i64, weft.reason = "combined 4 all-reduces: [
// CHECK-NEXT: weft.slice %[[AR]] dim 0 start 0 : tensor<49xf32> -> tensor<8xf32>
// CHECK-NEXT: weft.slice %[[AR]] dim 0 start 8 : tensor<49xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[S:.*]] = weft.slice %[[AR]] dim 0 start 16 : tensor<49xf32> -> tensor<1xf32>
// CHECK-NEXT: weft.reduce sum "a->" (%[[S]]) : (tensor<1xf32>) -> tensor<f32>
// CHECK-NEXT: %[[G:.*]] = weft.slice %[[AR]] dim 0 start 17 : tensor<49xf32> -> tensor<32xf32>
// CHECK-NEXT: weft.reshape "(ab)->ab" (%[[G]]) : (tensor<32xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: weft.map log
// CHECK: weft.all_reduce sum {{.*}}function result #3
// CHECK-NOT: weft.all_reduce
// RUN: weft-interp %s --compare %t.combined.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 4 of 4 result(s) match
// A group of at most 100 bytes: only the two 32-byte sums (and the 4-byte
// scalar) fit.
// RUN: weft-opt %t.local.mlir --weft-combine-collectives="max-bytes=100" | FileCheck %s --check-prefix=SMALL
// SMALL: weft.concat {{.*}} : (tensor<8xf32>, tensor<8xf32>, tensor<1xf32>) -> tensor<17xf32>
// RUN: weft-opt %t.local.mlir --weft-combine-collectives="max-bytes=0" | grep -c "weft.all_reduce" | FileCheck %s --check-prefix=BEFORE
// RUN: not weft-opt %t.local.mlir --weft-combine-collectives="max-bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: --weft-combine-collectives: max-bytes must be >= 0, got -1

weft.mesh @mesh ["model" = 4]
func.func @f(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
             %y: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
             %z: tensor<4x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
    -> (tensor<8xf32, #weft.sharding<@mesh, [{}]>>, tensor<f32, #weft.sharding<@mesh, []>>, tensor<8x4xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<8xf32, #weft.sharding<@mesh, [{}]>>) {
  %m = weft.reduce max "bv->b" (%x) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8xf32>
  %xm = weft.map sub "bv,b->bv" (%x, %m) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<8xf32>) -> tensor<8x16xf32>
  %e = weft.map exp "bv->bv" (%xm) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = weft.reduce sum "bv->b" (%e) : (tensor<8x16xf32>) -> tensor<8xf32>
  %l = weft.map log "b->b" (%s) : (tensor<8xf32>) -> tensor<8xf32>
  %xy = weft.map mul "bv,bv->bv" (%x, %y) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>
  %t = weft.reduce sum "bv->b" (%xy) : (tensor<8x16xf32>) -> tensor<8xf32>
  %total = weft.reduce sum "bv->" (%x) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<f32, #weft.sharding<@mesh, []>>
  %g = weft.einsum "bv,cv->bc" (%x, %z) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<4x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x4xf32, #weft.sharding<@mesh, [{}, {}]>>
  %lm = weft.map add "b,b->b" (%l, %m) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %out = weft.map sub "b,b->b" (%lm, %t) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32, #weft.sharding<@mesh, [{}]>>
  %s2 = weft.map square "b->b" (%out) : (tensor<8xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<8xf32>
  %y2 = weft.map mul "bv,b->bv" (%y, %s2) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<8xf32>) -> tensor<8x16xf32>
  %dep = weft.reduce sum "bv->b" (%y2) : (tensor<8x16xf32>) -> tensor<8xf32, #weft.sharding<@mesh, [{}]>>
  return %out, %total, %g, %dep : tensor<8xf32, #weft.sharding<@mesh, [{}]>>, tensor<f32, #weft.sharding<@mesh, []>>, tensor<8x4xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<8xf32, #weft.sharding<@mesh, [{}]>>
}

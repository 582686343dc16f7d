// --weft-remat-gathers on an FSDP-style training step (3 layers; every
// weight split on data along its first dim, activations split on the batch;
// bench/overlap/make_mlp.py --layers 3 --width 16 --batch 8 --fsdp), then
// --weft-schedule-collectives. W2's gather is read by the forward pass and
// again by the backward pass with W3's first use in between: it gets a
// second gather right before its backward use. W3 (the last layer: its
// backward directly follows) and W1 (no backward use: x needs no gradient)
// keep one gather. The scheduled step reduce-scatters each gradient as it
// is produced (last layer first), waits for it before the next
// reduce-scatter starts and updates that shard right after the wait. The
// step computes what the unpartitioned one does, and the pass is
// idempotent.
// RUN: weft-opt %s --weft-autodiff --weft-optimizer="kind=sgd" -o %t.train.mlir
// RUN: weft-opt %t.train.mlir --weft-propagate --weft-partition -o %t.local.mlir
// RUN: weft-opt %t.local.mlir --weft-remat-gathers -o %t.remat.mlir
// -debug-only=weft-remat-gathers traces its decisions (docs/design.md, "Tracing").
// RUN: weft-opt %t.local.mlir --weft-remat-gathers -debug-only=weft-remat-gathers -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE: [weft-remat-gathers] rematerialized: gathered again for a use
// RUN: FileCheck %s < %t.remat.mlir
// RUN: weft-opt %t.remat.mlir --weft-remat-gathers | diff - %t.remat.mlir
// RUN: weft-opt %t.remat.mlir --weft-schedule-collectives -o %t.sched.mlir
// RUN: FileCheck %s --check-prefix=SCHED < %t.sched.mlir
// RUN: weft-interp %t.train.mlir --func=mlp --compare %t.sched.mlir --local-func=mlp | FileCheck %s --check-prefix=CMP
// CMP: compare: 4 of 4 result(s) match
// RUN: weft-opt %t.sched.mlir --weft-comm-report -o /dev/null | FileCheck %s --check-prefix=REPORT
// REPORT-COUNT-3: all_gather {{.*}} 512  operand #1 of weft.einsum
// REPORT-NEXT: all_gather {{.*}} 512  rematerialized: gathered again for a use {{[0-9]+}} op(s) after the previous one (that copy is freed after it); first gathered for operand #1 of weft.einsum 'bd,de->be' at line {{[0-9]+}} {{.*}}%arg3 [{data}, {}] -> [{}, {}] [async, overlaps {{[0-9]+}} op(s)]
// REPORT-COUNT-3: reduce_scatter(sum) {{.*}} [async, overlaps
// REPORT: total 7 collective(s), 3584 bytes/device
// Without the pass: 6 collectives, W2's gathered copy kept for the backward.
// RUN: weft-opt %t.local.mlir --weft-comm-report -o /dev/null | FileCheck %s --check-prefix=NOREMAT
// NOREMAT: total 6 collective(s), 3072 bytes/device

// CHECK-LABEL: func.func @mlp
// CHECK: %[[G1:.*]] = weft.all_gather %arg2 on @mesh over ["data"] dim 0
// CHECK: %[[G2:.*]] = weft.all_gather %arg3 on @mesh over ["data"] dim 0
// CHECK: weft.einsum "bd,de->be" ({{.*}}, %[[G2]])
// CHECK: %[[G3:.*]] = weft.all_gather %arg4 on @mesh over ["data"] dim 0
// CHECK: weft.einsum "bd,de->be" ({{.*}}, %[[G3]])
// The backward: W3's gathered copy is read again, W2 is gathered again.
// CHECK: weft.einsum "be,de->bd" ({{.*}}, %[[G3]])
// CHECK: %[[R2:.*]] = weft.all_gather %arg3 on @mesh over ["data"] dim 0 {{.*}}weft.reason = "rematerialized
// CHECK-NEXT: weft.einsum "be,de->bd" ({{.*}}, %[[R2]])
// CHECK-NOT: %[[G2]])
// CHECK-NOT: weft.all_gather
// CHECK: return

// SCHED-LABEL: func.func @mlp
// SCHED: %[[D3:.*]] = weft.einsum "be,bd->de"
// SCHED-NEXT: %[[S3:.*]] = weft.reduce_scatter sum %[[D3]] {{.*}}weft.async
// SCHED: %[[D2:.*]] = weft.einsum "be,bd->de"
// SCHED-NEXT: %[[W3:.*]] = weft.wait %[[S3]]
// SCHED-NEXT: %[[U3:.*]] = weft.map mul "ab,->ab" (%[[W3]], %arg{{[0-9]+}})
// SCHED-NEXT: weft.map sub "ab,ab->ab" (%arg4, %[[U3]])
// SCHED-NEXT: %[[S2:.*]] = weft.reduce_scatter sum %[[D2]] {{.*}}weft.async
// SCHED: %[[D1:.*]] = weft.einsum "be,bd->de"
// SCHED-NEXT: %[[W2:.*]] = weft.wait %[[S2]]
// SCHED-NEXT: %[[U2:.*]] = weft.map mul "ab,->ab" (%[[W2]], %arg{{[0-9]+}})
// SCHED-NEXT: weft.map sub "ab,ab->ab" (%arg3, %[[U2]])
// SCHED-NEXT: weft.reduce_scatter sum %[[D1]] {{.*}}weft.async
// SCHED: return

weft.mesh @mesh ["data" = 2]

func.func @mlp(
    %x: tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "x"},
    %y: tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "y"},
    %W1: tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.param, weft.name = "W1"},
    %W2: tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.param, weft.name = "W2"},
    %W3: tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.param, weft.name = "W3"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %m1 = weft.einsum "bd,de->be" (%x, %W1) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %p1 = weft.map scale "bd->bd" (%m1) {scalar = 0.25 : f64} : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %h1 = weft.map relu "bd->bd" (%p1) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %m2 = weft.einsum "bd,de->be" (%h1, %W2) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %p2 = weft.map scale "bd->bd" (%m2) {scalar = 0.25 : f64} : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %h2 = weft.map relu "bd->bd" (%p2) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %m3 = weft.einsum "bd,de->be" (%h2, %W3) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %p3 = weft.map scale "bd->bd" (%m3) {scalar = 0.25 : f64} : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %e = weft.map sub "bd,bd->bd" (%p3, %y) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %e2 = weft.map square "bd->bd" (%e) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %s = weft.reduce sum "bd->" (%e2) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<f32>
  %loss = weft.map scale "->" (%s) {scalar = 0.0078125 : f64} : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}

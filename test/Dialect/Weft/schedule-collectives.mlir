// --weft-schedule-collectives on the local view of two gradient-like
// contractions over a batch split on data (mesh data=2): the first partial
// sum's all-reduce starts right after its einsum and is waited for at the
// return, so the four compute ops in between overlap it; the second is read
// at once (by the return) and stays synchronous. The comm report shows
// the window. The scheduled program computes what the global one does.
// RUN: weft-opt %s --weft-propagate --weft-partition -o %t.local.mlir
// RUN: weft-opt %t.local.mlir --weft-schedule-collectives -o %t.sched.mlir
// -debug-only=weft-schedule-collectives traces its decisions (docs/design.md, "Tracing");
// one thread, or the functions' traces (scheduled in parallel) interleave.
// RUN: weft-opt %t.local.mlir --weft-schedule-collectives -debug-only=weft-schedule-collectives -mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE: [weft-schedule-collectives] weft.{{[a-z_]+}} at loc({{.*}}) starts {{[0-9]+}} compute op(s) before its wait
// RUN: FileCheck %s < %t.sched.mlir
// RUN: weft-interp %s --func=grads --compare %t.sched.mlir --local-func=grads | FileCheck %s --check-prefix=CMP
// CMP: compare: 3 of 3 result(s) match
// RUN: weft-interp %s --func=fsdp --compare %t.sched.mlir --local-func=fsdp | FileCheck %s --check-prefix=CMP1
// CMP1: compare: 1 of 1 result(s) match
// Idempotent: a second run changes nothing.
// RUN: weft-opt %t.sched.mlir --weft-schedule-collectives | diff - %t.sched.mlir
// RUN: weft-opt %t.sched.mlir --weft-comm-report -o /dev/null | FileCheck %s --check-prefix=REPORT
// REPORT: all_reduce(sum) {{.*}} 1024  function result #0{{.*}} [async, overlaps 4 op(s)]
// REPORT-NEXT: all_reduce(sum) {{.*}} 1024  function result #1{{.*}}[{}, {}]{{$}}
// REPORT-NEXT: all_gather {{.*}} 512  operand #1 {{.*}}[{}, {}]{{$}}
// REPORT-NEXT: all_gather {{.*}} 512  operand #1 {{.*}} [async, overlaps 2 op(s)]
// REPORT-NEXT: all_gather {{.*}} 512  operand #1 {{.*}} [async, overlaps 2 op(s)]
// REPORT: total 5 collective(s)
// The schedule survives lowering: the start and wait calls.
// RUN: weft-opt %t.sched.mlir "--weft-lower-to-runtime=entry=grads" | FileCheck %s --check-prefix=CPP
// CPP: weft::rt::gen::startAllReduce
// CPP: weft::rt::gen::allReduce
// CPP: weft::rt::gen::wait

// CHECK-LABEL: func.func @grads
// CHECK: %[[G1:.*]] = weft.einsum "bd,be->de"
// CHECK-NEXT: %[[A1:.*]] = weft.all_reduce sum %[[G1]] on @mesh over ["data"] {{.*}}weft.async = 4 : i64
// CHECK-NEXT: weft.einsum "bd,de->be"
// CHECK-NEXT: weft.map relu
// CHECK-NEXT: %[[Y:.*]] = weft.einsum "be,ef->bf"
// CHECK-NEXT: %[[G2:.*]] = weft.einsum "bf,bd->fd"
// CHECK-NEXT: %[[A2:.*]] = weft.all_reduce sum %[[G2]]
// CHECK-NOT: weft.async
// CHECK-NEXT: %[[W:.*]] = weft.wait %[[A1]] : tensor<16x16xf32>
// CHECK-NEXT: return %[[W]], %[[A2]], %[[Y]]

weft.mesh @mesh ["data" = 2]

func.func @grads(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
    %w1: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
    %w2: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>)
    -> (tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
        tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
        tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) {
  %g1 = weft.einsum "bd,be->de" (%x, %x) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>
  %h = weft.einsum "bd,de->be" (%x, %w1) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32>
  %r = weft.map relu "be->be" (%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = weft.einsum "be,ef->bf" (%r, %w2) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %g2 = weft.einsum "bf,bd->fd" (%y, %x) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>
  return %g1, %g2, %y : tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
}

// FSDP-style weights (split on data, gathered before use): the gathers
// start in order, each no earlier than the previous gather's result is
// needed, so at most two gathered weights are alive at once (the one in
// use and the next, in flight), however early the weights exist.
// CHECK-LABEL: func.func @fsdp
// CHECK-NEXT: %[[G1:.*]] = weft.all_gather %arg1
// CHECK-NOT: weft.async
// CHECK-SAME: : tensor<8x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %[[G2:.*]] = weft.all_gather %arg2 {{.*}}weft.async = 2
// CHECK-NEXT: weft.einsum "bd,de->be" (%arg0, %[[G1]])
// CHECK-NEXT: weft.map relu
// CHECK-NEXT: %[[W2:.*]] = weft.wait %[[G2]]
// CHECK-NEXT: %[[G3:.*]] = weft.all_gather %arg3 {{.*}}weft.async = 2
// CHECK-NEXT: weft.einsum "be,ef->bf" ({{.*}}, %[[W2]])
// CHECK-NEXT: weft.map relu
// CHECK-NEXT: %[[W3:.*]] = weft.wait %[[G3]]
// CHECK-NEXT: weft.einsum "bf,fg->bg" ({{.*}}, %[[W3]])
func.func @fsdp(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
    %w1: tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
    %w2: tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
    %w3: tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>)
    -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {
  %y1 = weft.einsum "bd,de->be" (%x, %w1) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %r1 = weft.map relu "be->be" (%y1) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %y2 = weft.einsum "be,ef->bf" (%r1, %w2) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %r2 = weft.map relu "bf->bf" (%y2) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %y3 = weft.einsum "bf,fg->bg" (%r2, %w3) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  return %y3 : tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
}

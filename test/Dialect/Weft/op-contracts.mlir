// Every registered weft op implements the contracts of its kind
// (tools/weft-opt/TestOpContracts.cpp lists them; docs/design.md, "What a
// new op touches"): the check walks the dialect's registered ops, not a
// list, and fails naming the first op that misses one.
// RUN: weft-opt %s --weft-test-op-contracts -o /dev/null | FileCheck %s

// CHECK-DAG: weft.einsum: global-view
// CHECK-DAG: weft.top_k: global-view
// CHECK-DAG: weft.cumsum: global-view
// CHECK-DAG: weft.shard: global-view
// CHECK-DAG: weft.convert: global-view
// CHECK-DAG: weft.stop_gradient: global-view
// CHECK-DAG: weft.shift: global-view
// CHECK-DAG: weft.all_reduce: local-view collective
// CHECK-DAG: weft.all_gather: local-view collective
// CHECK-DAG: weft.reduce_scatter: local-view collective
// CHECK-DAG: weft.all_to_all: local-view collective
// CHECK-DAG: weft.slice_shard: local-view collective
// CHECK-DAG: weft.broadcast: local-view collective
// CHECK-DAG: weft.reduce_to: local-view collective
// CHECK-DAG: weft.gather_to: local-view collective
// CHECK-DAG: weft.scatter_from: local-view collective
// CHECK-DAG: weft.collective_permute: local-view collective
// CHECK-DAG: weft.wait: local-view wait
// CHECK-DAG: weft.fused_map: local-view compute
// CHECK-DAG: weft.fused_einsum: local-view compute
// CHECK-DAG: weft.mesh: mesh
// CHECK: checked 34 weft ops
module {}

// The root collectives (broadcast, reduce_to, gather_to, scatter_from):
// round trip in the custom and the generic form, their bytes in the comm
// report (docs/design.md, "Root collectives"), and the all-reduce combiner
// leaves a reduce_to alone (it has a root: it is not an all-reduce).
// RUN: weft-opt %s | FileCheck %s
// RUN: weft-opt %s --mlir-print-op-generic | weft-opt | FileCheck %s
// RUN: weft-opt %s "--weft-comm-report=json" -o /dev/null | FileCheck %s --check-prefix=BYTES
// RUN: weft-opt %s --weft-combine-collectives | FileCheck %s --check-prefix=COMBINE

weft.mesh @mesh ["data" = 2, "model" = 4]

// CHECK-LABEL: func.func @roots
func.func @roots(%x: tensor<2x16xf32>, %b: tensor<8x16xf32>)
    -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<8x16xf32>, tensor<8x8xf32>, tensor<2x16xf32>, tensor<2x16xf32>) {
  // CHECK: weft.broadcast %{{.*}} on @mesh over ["model"] root 3 : tensor<2x16xf32>
  %0 = weft.broadcast %x on @mesh over ["model"] root 3 : tensor<2x16xf32>
  // CHECK: weft.reduce_to max %{{.*}} on @mesh over ["data", "model"] root 7 : tensor<2x16xf32>
  %1 = weft.reduce_to max %x on @mesh over ["data", "model"] root 7 : tensor<2x16xf32>
  // CHECK: weft.gather_to %{{.*}} on @mesh over ["model"] root 0 dim 0 : tensor<2x16xf32> -> tensor<8x16xf32>
  %2 = weft.gather_to %x on @mesh over ["model"] root 0 dim 0 : tensor<2x16xf32> -> tensor<8x16xf32>
  // CHECK: weft.scatter_from %{{.*}} on @mesh over ["data"] root 1 dim 1 : tensor<8x16xf32> -> tensor<8x8xf32>
  %3 = weft.scatter_from %b on @mesh over ["data"] root 1 dim 1 : tensor<8x16xf32> -> tensor<8x8xf32>
  // CHECK: weft.reduce_to sum %{{.*}} on @mesh over ["model"] root 2 : tensor<2x16xf32>
  %4 = weft.reduce_to sum %x on @mesh over ["model"] root 2 : tensor<2x16xf32>
  %5 = weft.reduce_to sum %0 on @mesh over ["model"] root 2 : tensor<2x16xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<8x16xf32>, tensor<8x8xf32>, tensor<2x16xf32>, tensor<2x16xf32>
}

// f32, x: 2x16 = 128 bytes, b: 8x16 = 512 bytes.
// broadcast over model (p = 4): the value, 128.
// BYTES: "bytes_per_device": 128,
// BYTES-NEXT: "elements": 32,
// BYTES-NEXT: "input": "2x16xf32",
// BYTES-NEXT: "kind": "broadcast",
// reduce_to over data, model (p = 8): the value, 128.
// BYTES: "bytes_per_device": 128,
// BYTES: "kind": "reduce_to",
// BYTES: "reduction": "max",
// BYTES-NEXT: "root": 7
// gather_to over model (p = 4): 3/4 of the gathered 512 bytes, 384.
// BYTES: "bytes_per_device": 384,
// BYTES: "kind": "gather_to",
// scatter_from over data (p = 2): 1/2 of the root's 512 bytes, 256.
// BYTES: "bytes_per_device": 256,
// BYTES: "kind": "scatter_from",
// Two reduce_to sum over model, 128 each.
// BYTES: "total_bytes_per_device": 1152

// COMBINE-LABEL: func.func @roots
// COMBINE-COUNT-3: weft.reduce_to
// COMBINE-NOT: weft.all_reduce

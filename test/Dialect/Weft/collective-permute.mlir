// weft.collective_permute: round trip in the custom and the generic form,
// and its bytes in the comm report (docs/pipeline.md): a rank that sends,
// sends its operand once; a permute whose pairs are all self-pairs moves
// nothing.
// RUN: weft-opt %s | FileCheck %s
// RUN: weft-opt %s --mlir-print-op-generic | weft-opt | FileCheck %s
// RUN: weft-opt %s "--weft-comm-report=json" -o /dev/null | FileCheck %s --check-prefix=BYTES

weft.mesh @mesh ["stage" = 4, "data" = 2]

// CHECK-LABEL: func.func @shifts
func.func @shifts(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
  // CHECK: weft.collective_permute %{{.*}} on @mesh over ["stage"] pairs {{\[}}[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<4x64xf32>
  %0 = weft.collective_permute %x on @mesh over ["stage"] pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<4x64xf32>
  // CHECK: weft.collective_permute %{{.*}} on @mesh over ["stage", "data"] pairs {{\[}}[7, 0]] : tensor<4x64xf32>
  %1 = weft.collective_permute %x on @mesh over ["stage", "data"] pairs [[7, 0]] : tensor<4x64xf32>
  // CHECK: weft.collective_permute %{{.*}} on @mesh over ["data"] pairs {{\[}}[0, 0], [1, 1]] : tensor<4x64xf32>
  %2 = weft.collective_permute %x on @mesh over ["data"] pairs [[0, 0], [1, 1]] : tensor<4x64xf32>
  return %0, %1, %2 : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
}

// f32 4x64: 1024 bytes, the operand, for each permute that crosses ranks.
// BYTES: "bytes_per_device": 1024,
// BYTES: "kind": "collective_permute",
// BYTES: "bytes_per_device": 1024,
// BYTES: "kind": "collective_permute",
// BYTES: "bytes_per_device": 0,
// BYTES: "kind": "collective_permute",
// BYTES: "total_bytes_per_device": 2048

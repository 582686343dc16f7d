// --weft-precision=bf16-mixed after --weft-autodiff: every GEMM (forward
// and backward) runs in bf16 on operands rounded by weft.convert, its
// result converted back to f32; the reductions and the maps stay f32, and
// each value is rounded once however many GEMMs read it.
// RUN: weft-opt %s --weft-autodiff --weft-precision=policy=bf16-mixed | FileCheck %s
// grad-reduce-dtype=f32: the weight-gradient GEMM takes the bf16-rounded
// operands widened back to f32 and computes in f32, so its data-parallel
// sum is reduced in f32; the other GEMMs are unchanged.
// RUN: weft-opt %s --weft-autodiff --weft-precision="policy=bf16-mixed grad-reduce-dtype=f32" | FileCheck %s --check-prefix=F32RED
// policy=f32 (the default) changes nothing.
// RUN: weft-opt %s --weft-autodiff --weft-precision | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @mlp
// CHECK-DAG: %[[XB:.*]] = weft.convert %arg0 : tensor<2x8xf32> -> tensor<2x8xbf16>
// CHECK-DAG: %[[WB:.*]] = weft.convert %arg1 : tensor<8x4xf32> -> tensor<8x4xbf16>
// CHECK: %[[YB:.*]] = weft.einsum "bd,df->bf" (%[[XB]], %[[WB]]) : (tensor<2x8xbf16>, tensor<8x4xbf16>) -> tensor<2x4xbf16>
// CHECK: %[[Y:.*]] = weft.convert %[[YB]] : tensor<2x4xbf16> -> tensor<2x4xf32>
// CHECK: weft.map square "bf->bf" (%[[Y]]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: weft.reduce sum "bf->" ({{.*}}) : (tensor<2x4xf32>) -> tensor<f32>
// The weight gradient: bf16 GEMM, bf16 result (reduced in bf16), then f32.
// CHECK: %[[GYB:.*]] = weft.convert %{{.*}} : tensor<2x4xf32> -> tensor<2x4xbf16>
// CHECK: %[[GWB:.*]] = weft.einsum "bf,bd->df" (%[[GYB]], %[[XB]]) : (tensor<2x4xbf16>, tensor<2x8xbf16>) -> tensor<8x4xbf16>
// CHECK: %[[GW:.*]] = weft.convert %[[GWB]] : tensor<8x4xbf16> -> tensor<8x4xf32>
// CHECK: return %{{.*}}, %[[GW]] : tensor<f32>, tensor<8x4xf32>
// CHECK-NOT: weft.einsum {{.*}}xf32>) -> tensor<{{.*}}xf32>

// F32RED-LABEL: func.func @mlp
// F32RED: weft.einsum "bd,df->bf" ({{.*}}) : (tensor<2x8xbf16>, tensor<8x4xbf16>) -> tensor<2x4xbf16>
// F32RED: %[[GYB:.*]] = weft.convert %{{.*}} : tensor<2x4xf32> -> tensor<2x4xbf16>
// F32RED: %[[GYW:.*]] = weft.convert %[[GYB]] : tensor<2x4xbf16> -> tensor<2x4xf32>
// F32RED: %[[GW:.*]] = weft.einsum "bf,bd->df" (%[[GYW]], %{{.*}}) : (tensor<2x4xf32>, tensor<2x8xf32>) -> tensor<8x4xf32>
// F32RED: return %{{.*}}, %[[GW]] : tensor<f32>, tensor<8x4xf32>

// NONE-NOT: bf16
func.func @mlp(%x: tensor<2x8xf32>, %w: tensor<8x4xf32> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %y = weft.einsum "bd,df->bf" (%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %s = weft.map square "bf->bf" (%y) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %l = weft.reduce sum "bf->" (%s) : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// weft.reshape under tensor parallelism: heads split from the projection's
// output dimension e = (h k), h on model, attention per head, merged back
// for the output projection. The merged dimension is split on its major
// letter's axes, so every local reshape moves nothing and the program's
// only collective is the output projection's all-reduce (as with 3-D
// weights). Checked against the global program on 8 ranks.
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition),weft-optimize-collectives)' | FileCheck %s
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition),weft-optimize-collectives)' -o %t.local.mlir
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 1 of 1 result(s) match
// The same on a mesh with more data ranks than model ones.
// RUN: sed -e 's/"data" = 2, "model" = 4/"data" = 4, "model" = 2/' %s > %t.2.mlir
// RUN: weft-opt %t.2.mlir --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.2.local.mlir
// RUN: weft-interp %t.2.mlir --compare %t.2.local.mlir | FileCheck %s --check-prefix=CMP

weft.mesh @mesh ["data" = 2, "model" = 4]

// CHECK-LABEL: func.func @heads
// CHECK: weft.reshape "bt(hk)->bthk" ({{.*}}) {{.*}}: (tensor<2x16x32xf32>) -> tensor<2x16x2x16xf32>
// CHECK: weft.reshape "bthk->bt(hk)" ({{.*}}) {{.*}}: (tensor<2x16x2x16xf32>) -> tensor<2x16x32xf32>
// CHECK-NOT: weft.all_gather
// CHECK: weft.all_reduce sum
// CHECK-NOT: weft.all_
// CHECK: return
func.func @heads(%x: tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %wq: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %wk: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %wo: tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {
  %q = weft.einsum "btd,de->bte" (%x, %wq) : (tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x16x128xf32>
  %k = weft.einsum "btd,de->bte" (%x, %wk) : (tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x16x128xf32>
  %qh = weft.reshape "bt(hk)->bthk" (%q) : (tensor<4x16x128xf32>) -> tensor<4x16x8x16xf32>
  %kh = weft.reshape "bs(hk)->bshk" (%k) : (tensor<4x16x128xf32>) -> tensor<4x16x8x16xf32>
  %s = weft.einsum "bthk,bshk->bhts" (%qh, %kh) : (tensor<4x16x8x16xf32>, tensor<4x16x8x16xf32>) -> tensor<4x8x16x16xf32>
  %m = weft.reduce max "bhts->bht" (%s) : (tensor<4x8x16x16xf32>) -> tensor<4x8x16xf32>
  %z = weft.map sub "bhts,bht->bhts" (%s, %m) : (tensor<4x8x16x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16x16xf32>
  %e = weft.map exp "bhts->bhts" (%z) : (tensor<4x8x16x16xf32>) -> tensor<4x8x16x16xf32>
  %n = weft.reduce sum "bhts->bht" (%e) : (tensor<4x8x16x16xf32>) -> tensor<4x8x16xf32>
  %p = weft.map div "bhts,bht->bhts" (%e, %n) : (tensor<4x8x16x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16x16xf32>
  %o = weft.einsum "bhts,bshk->bthk" (%p, %kh) : (tensor<4x8x16x16xf32>, tensor<4x16x8x16xf32>) -> tensor<4x16x8x16xf32>
  %om = weft.reshape "bthk->bt(hk)" (%o) : (tensor<4x16x8x16xf32>) -> tensor<4x16x128xf32>
  %y = weft.einsum "bte,ed->btd" (%om, %wo) : (tensor<4x16x128xf32>, tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  return %y : tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
}

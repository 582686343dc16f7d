// --weft-propagate=explain: a remark per op with its letter map, where each
// split came from, the reshards it pays for and the alternatives' costs; a
// summary per function. Axis weights scale the costs.
// RUN: weft-opt --weft-propagate=explain --mlir-print-op-on-diagnostic=false %s -o /dev/null 2>&1 | FileCheck %s
// RUN: weft-opt "--weft-propagate=explain axis-weights=model:2" --mlir-print-op-on-diagnostic=false %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=WEIGHTED

weft.mesh @mesh ["model" = 4]
func.func @mlp(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
               %w1: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
               %w2: tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {
  // CHECK: explain.mlir:[[@LINE+8]]:8: remark: letters {f = {"model"}}
  // CHECK-NEXT: f = {"model"} from %arg1 (annotated argument)
  // CHECK-NEXT: cost 192.0 KiB per device
  // CHECK-NEXT: operand #0 %arg0 [{}, {"model"}, {}] -> [{}, {}, {}]: all_gather over {"model"} dim 1 (192.0 KiB)
  // CHECK-NEXT: alternatives:
  // CHECK-NEXT: {t = {"model"}}: 768.0 KiB, reshards 1 annotated value(s)
  // CHECK-NEXT: {} (nothing split): 960.0 KiB, reshards 2 annotated value(s)
  // WEIGHTED: remark: letters {f = {"model"}}
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x64x1024xf32>
  // CHECK: explain.mlir:[[@LINE+3]]:8: remark: letters {f = {"model"}}
  // CHECK-NEXT: f = {"model"} from %0, computed by weft.einsum at line [[@LINE-2]]
  // CHECK-NEXT: cost 0 B per device
  %a = weft.map relu "btf->btf" (%h) : (tensor<4x64x1024xf32>) -> tensor<4x64x1024xf32>
  // CHECK: explain.mlir:[[@LINE+5]]:8: remark: letters {f = {"model"}}
  // CHECK: reduced letter f is split: the local result is partial sum over {"model"}
  // CHECK-NEXT: cost 192.0 KiB per device
  // CHECK-NEXT: result %2 [{}, {}, {}] partial sum {"model"} -> [{}, {"model"}, {}]: reduce_scatter over {"model"} dim 1 (192.0 KiB)
  // WEIGHTED: cost 384.0 KiB per device
  %y = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<4x64x1024xf32>, tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
  return %y : tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
}
// CHECK: remark: weft-propagate: 3 op(s) on mesh @mesh, estimated 384.0 KiB sent per device (weighted)
// WEIGHTED: remark: weft-propagate: 3 op(s) on mesh @mesh, estimated 768.0 KiB sent per device (weighted)

// On a mesh whose axis has size 1, a split or partial state over it is a
// layout without communication: no collective is emitted.
// RUN: weft-opt --weft-propagate --weft-partition %s | FileCheck %s --implicit-check-not=weft.all_reduce --implicit-check-not=weft.all_gather --implicit-check-not=weft.slice_shard

weft.mesh @mesh ["model" = 1]
// CHECK-LABEL: func.func @mlp
// CHECK: weft.einsum "td,df->tf"
// CHECK: weft.einsum "tf,fd->td"
// CHECK-NEXT: return
func.func @mlp(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
               %w1: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
               %w2: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>> {
  %h = weft.einsum "td,df->tf" (%x, %w1) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32xf32>
  %y = weft.einsum "tf,fd->td" (%h, %w2) : (tensor<8x32xf32>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
  return %y : tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
}

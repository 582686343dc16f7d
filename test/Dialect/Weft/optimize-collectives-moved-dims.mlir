// --weft-optimize-collectives computes a slice_shard of a dimension no
// operand has as the op's block (one_hot's vocabulary, a broadcast
// letter) — but not the dimensions an op computes whole from its operand's
// other positions: weft.top_k's selection (the clone was an invalid top_k
// of k/p elements) and weft.slice's range (the clone read the wrong rows:
// a mutation-fuzzer finding). Both stay computed whole and sliced.
// RUN: weft-opt %s --weft-propagate=reshard-annotated=true --weft-pad-uneven --weft-partition --weft-optimize-collectives -o %t.local.mlir
// RUN: FileCheck %s < %t.local.mlir
// CHECK-LABEL: func.func @top_k_split_k
// CHECK: weft.top_k {{.*}} : (tensor<8x16xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: weft.slice_shard {{.*}} dim 1 : tensor<8x4xf32> -> tensor<8x2xf32>
// CHECK-LABEL: func.func @slice_split_range
// CHECK: weft.slice {{.*}} dim 0 start 1 {{.*}} -> tensor<4x16xf32>
// CHECK-NEXT: weft.slice_shard {{.*}} dim 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// RUN: weft-interp %s --compare %t.local.mlir --all-funcs | FileCheck %s --check-prefix=CMP
// CMP: compare-all: 2 of 2 function(s) match

weft.mesh @m ["x" = 2]
func.func @top_k_split_k(%a: tensor<8x16xf32>) -> tensor<8x4xf32, #weft.sharding<@m, [{}, {"x"}]>> {
  %t = weft.top_k %a dim 1 k 4 : (tensor<8x16xf32>) -> tensor<8x4xf32, #weft.sharding<@m, [{}, {"x"}]>>
  return %t : tensor<8x4xf32, #weft.sharding<@m, [{}, {"x"}]>>
}

func.func @slice_split_range(%a: tensor<8x16xf32>) -> tensor<4x16xf32, #weft.sharding<@m, [{"x"}, {}]>> {
  %s = weft.slice %a dim 0 start 1 : tensor<8x16xf32> -> tensor<4x16xf32, #weft.sharding<@m, [{"x"}, {}]>>
  return %s : tensor<4x16xf32, #weft.sharding<@m, [{"x"}, {}]>>
}

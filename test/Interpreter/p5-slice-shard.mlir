// P5 (only the activation split on the contracted letter, programs.md) at
// small shapes: the replicated weight is sliced locally to its d block, the
// local einsum is a partial sum, one all-reduce. Combining the partial sums
// by max is caught. A global type without encoding is replicated.
// RUN: weft-interp %s --func matmul --compare %s --local-func matmul_local | FileCheck %s
// CHECK: result #0: match tensor<3x5xf32> on 4 rank(s)
// CHECK: compare: 1 of 1 result(s) match
// RUN: not weft-interp %s --func matmul --compare %s --local-func matmul_max | FileCheck %s --check-prefix=WRONG
// WRONG: result #0: MISMATCH tensor<3x5xf32> on 4 rank(s)

weft.mesh @mesh ["model" = 4]

func.func @matmul(%x: tensor<3x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w: tensor<8x5xf32>) -> tensor<3x5xf32> {
  %y = weft.einsum "md,dn->mn" (%x, %w)
      : (tensor<3x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<8x5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

func.func @matmul_local(
    %x: tensor<3x2xf32> {weft.global_type = tensor<3x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w: tensor<8x5xf32> {weft.global_type = tensor<8x5xf32>})
    -> (tensor<3x5xf32> {weft.global_type = tensor<3x5xf32>}) {
  %wl = weft.slice_shard %w on @mesh over ["model"] dim 0 : tensor<8x5xf32> -> tensor<2x5xf32>
  %p = weft.einsum "md,dn->mn" (%x, %wl) : (tensor<3x2xf32>, tensor<2x5xf32>) -> tensor<3x5xf32>
  %y = weft.all_reduce sum %p on @mesh over ["model"] : tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// Wrong: the partial sums are combined by max.
func.func @matmul_max(
    %x: tensor<3x2xf32> {weft.global_type = tensor<3x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w: tensor<8x5xf32> {weft.global_type = tensor<8x5xf32>})
    -> (tensor<3x5xf32> {weft.global_type = tensor<3x5xf32>}) {
  %wl = weft.slice_shard %w on @mesh over ["model"] dim 0 : tensor<8x5xf32> -> tensor<2x5xf32>
  %p = weft.einsum "md,dn->mn" (%x, %wl) : (tensor<3x2xf32>, tensor<2x5xf32>) -> tensor<3x5xf32>
  %y = weft.all_reduce max %p on @mesh over ["model"] : tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

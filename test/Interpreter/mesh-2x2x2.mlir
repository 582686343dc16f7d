// A 2x2x2 mesh with dimensions split over several, non-adjacent axes:
// d split over ["a", "c"] on both operands of a matmul, n over ["b"]; the
// partial sum is all-reduced over ["c", "a"] (order is irrelevant for a
// sum) for one result and reduce-scattered over ["a", "c"] on m for the
// other. Scattering in the other group order (["c", "a"]) is caught: a dim
// split over ["a", "c"] has block index a*2+c.
// RUN: weft-interp %s --func matmul --compare %s --local-func matmul_local | FileCheck %s
// RUN: weft-interp %s --func matmul --compare %s --local-func matmul_local --seed 9 | FileCheck %s
// CHECK: result #0: match tensor<4x6xf32> on 8 rank(s)
// CHECK: result #1: match tensor<4x6xf32> on 8 rank(s)
// CHECK: compare: 2 of 2 result(s) match
// RUN: not weft-interp %s --func matmul --compare %s --local-func matmul_reversed_order | FileCheck %s --check-prefix=WRONG
// WRONG: result #0: match
// WRONG: result #1: MISMATCH tensor<4x6xf32> on 8 rank(s)
// WRONG: compare: 1 of 2 result(s) match

weft.mesh @mesh ["a" = 2, "b" = 2, "c" = 2]

func.func @matmul(%x: tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"a", "c"}]>>,
    %w: tensor<8x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>)
    -> (tensor<4x6xf32, #weft.sharding<@mesh, [{}, {"b"}]>>,
        tensor<4x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>) {
  %y = weft.einsum "md,dn->mn" (%x, %w)
      : (tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"a", "c"}]>>, tensor<8x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>) -> tensor<4x6xf32>
  %y1 = weft.shard %y : tensor<4x6xf32> -> tensor<4x6xf32, #weft.sharding<@mesh, [{}, {"b"}]>>
  %y2 = weft.shard %y : tensor<4x6xf32> -> tensor<4x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>
  return %y1, %y2 : tensor<4x6xf32, #weft.sharding<@mesh, [{}, {"b"}]>>, tensor<4x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>
}

func.func @matmul_local(
    %x: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"a", "c"}]>>},
    %w: tensor<2x3xf32> {weft.global_type = tensor<8x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>})
    -> (tensor<4x3xf32> {weft.global_type = tensor<4x6xf32, #weft.sharding<@mesh, [{}, {"b"}]>>},
        tensor<1x3xf32> {weft.global_type = tensor<4x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>}) {
  %p = weft.einsum "md,dn->mn" (%x, %w) : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %y1 = weft.all_reduce sum %p on @mesh over ["c", "a"] : tensor<4x3xf32>
  %y2 = weft.reduce_scatter sum %p on @mesh over ["a", "c"] dim 0 : tensor<4x3xf32> -> tensor<1x3xf32>
  return %y1, %y2 : tensor<4x3xf32>, tensor<1x3xf32>
}

func.func @matmul_reversed_order(
    %x: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"a", "c"}]>>},
    %w: tensor<2x3xf32> {weft.global_type = tensor<8x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>})
    -> (tensor<4x3xf32> {weft.global_type = tensor<4x6xf32, #weft.sharding<@mesh, [{}, {"b"}]>>},
        tensor<1x3xf32> {weft.global_type = tensor<4x6xf32, #weft.sharding<@mesh, [{"a", "c"}, {"b"}]>>}) {
  %p = weft.einsum "md,dn->mn" (%x, %w) : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %y1 = weft.all_reduce sum %p on @mesh over ["a", "c"] : tensor<4x3xf32>
  %y2 = weft.reduce_scatter sum %p on @mesh over ["c", "a"] dim 0 : tensor<4x3xf32> -> tensor<1x3xf32>
  return %y1, %y2 : tensor<4x3xf32>, tensor<1x3xf32>
}

// P1 (Megatron MLP) at small shapes, hand-partitioned: the local view the
// partitioner produces for mesh model=4 (w1, w2 split on f, one all-reduce).
weft.mesh @mesh ["model" = 4]

func.func @mlp(
    %x: tensor<2x8x16xf32> {weft.name = "x", weft.global_type = tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {}]>>},
    %w1: tensor<16x8xf32> {weft.name = "w1", weft.global_type = tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<8x16xf32> {weft.name = "w2", weft.global_type = tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x8x16xf32> {weft.name = "y", weft.global_type = tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {}]>>}) {
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<2x8x16xf32>, tensor<16x8xf32>) -> tensor<2x8x8xf32>
  %a = weft.map relu "btf->btf" (%h) : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<2x8x8xf32>, tensor<8x16xf32>) -> tensor<2x8x16xf32>
  %y = weft.all_reduce sum %p on @mesh over ["model"] {weft.reason = "y partial over model", weft.bytes_per_device = 1536 : i64} : tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

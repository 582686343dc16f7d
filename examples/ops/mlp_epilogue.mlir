// GEMM epilogues (--weft-fuse-epilogues, docs/fusion.md "Epilogues"): a
// tensor-parallel MLP block (f split on model) whose first einsum takes a
// bias and a GELU, a replicated projection with a scale and a residual, a
// batched einsum with a bias and SiLU, and a transposed result (the GEMM
// writes a temporary, so the epilogue runs after it, in one pass).
weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @mlp_epilogue(
    %x: tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %w1: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %b1: tensor<32xf32, #weft.sharding<@mesh, [{"model"}]>>,
    %w2: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %wp: tensor<16x16xf32>,
    %wt: tensor<16x24xf32>,
    %bt: tensor<4xf32>)
    -> (tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x32xf32>,
        tensor<24x4xf32>) {
  // bias + gelu on the f-split hidden layer, then the partial sum's
  // all-reduce (an einsum feeding a collective never fuses).
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8x32xf32>
  %hb = weft.map add "btf,f->btf" (%h, %b1) : (tensor<4x8x32xf32>, tensor<32xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<4x8x32xf32>
  %g = weft.map gelu "btf->btf" (%hb) : (tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %y = weft.einsum "btf,fd->btd" (%g, %w2) : (tensor<4x8x32xf32>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x8x16xf32>
  // A replicated projection: scale, then the residual.
  %p = weft.einsum "btd,de->bte" (%y, %wp) : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
  %ps = weft.map scale "bte->bte" (%p) {scalar = 0.25 : f64} : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %r = weft.map add "bte,bte->bte" (%ps, %x) : (tensor<4x8x16xf32>, tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<4x8x16xf32>
  // bias + silu, and a tanh with the residual first.
  %q = weft.einsum "btd,df->btf" (%r, %w1) : (tensor<4x8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8x32xf32>
  %qb = weft.map add "btf,f->btf" (%q, %b1) : (tensor<4x8x32xf32>, tensor<32xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<4x8x32xf32>
  %qs = weft.map silu "btf->btf" (%qb) : (tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %u = weft.einsum "btd,de->bte" (%r, %wp) : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
  %ur = weft.map add "bte,bte->bte" (%x, %u) : (tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  // A transposed result "eb" of a 2-D input: bias b, relu.
  %x2 = weft.reduce sum "btd->bd" (%r) : (tensor<4x8x16xf32>) -> tensor<4x16xf32>
  %v = weft.einsum "bd,de->eb" (%x2, %wt) : (tensor<4x16xf32>, tensor<16x24xf32>) -> tensor<24x4xf32>
  %vb = weft.map add "eb,b->eb" (%v, %bt) : (tensor<24x4xf32>, tensor<4xf32>) -> tensor<24x4xf32>
  %vr = weft.map relu "eb->eb" (%vb) : (tensor<24x4xf32>) -> tensor<24x4xf32>
  return %r, %ur, %qs, %vr : tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x32xf32>, tensor<24x4xf32>
}

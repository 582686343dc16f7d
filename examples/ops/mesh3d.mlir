// Multi-axis splits on a 3-D mesh (2x2x2): a dimension split over two axes
// ({"a", "b"}), a contracted letter split on a third ("c") leaving a partial
// sum, a weft.shard constraint splitting one dimension over two axes in an
// order that is not the mesh's ({"c", "b"}), and a result split over all
// three axes.
// mesh a=2, b=2, c=2: x[i=16,j=8,k=32] split i over a,b and k on c;
// w[k=32,l=16] split k on c; v[l=16,m=8] replicated.

weft.mesh @mesh ["a" = 2, "b" = 2, "c" = 2]

func.func @mesh3d(%x: tensor<16x8x32xf32, #weft.sharding<@mesh, [{"a", "b"}, {}, {"c"}]>>,
    %w: tensor<32x16xf32, #weft.sharding<@mesh, [{"c"}, {}]>>,
    %v: tensor<16x8xf32, #weft.sharding<@mesh, [{}, {}]>>)
    -> (tensor<16x8x16xf32, #weft.sharding<@mesh, [{"a", "b", "c"}, {}, {}]>>,
        tensor<16x8xf32, #weft.sharding<@mesh, [{}, {"c", "a"}]>>) {
  %y = weft.einsum "ijk,kl->ijl" (%x, %w)
      : (tensor<16x8x32xf32, #weft.sharding<@mesh, [{"a", "b"}, {}, {"c"}]>>, tensor<32x16xf32, #weft.sharding<@mesh, [{"c"}, {}]>>)
      -> tensor<16x8x16xf32>
  %r = weft.map relu "ijl->ijl" (%y) : (tensor<16x8x16xf32>) -> tensor<16x8x16xf32>
  %m = weft.reduce max "ijl->il" (%r) : (tensor<16x8x16xf32>) -> tensor<16x16xf32>
  %ms = weft.shard %m : tensor<16x16xf32>
      -> tensor<16x16xf32, #weft.sharding<@mesh, [{"a"}, {"c", "b"}]>>
  %o = weft.einsum "il,lm->im" (%ms, %v)
      : (tensor<16x16xf32, #weft.sharding<@mesh, [{"a"}, {"c", "b"}]>>, tensor<16x8xf32, #weft.sharding<@mesh, [{}, {}]>>)
      -> tensor<16x8xf32, #weft.sharding<@mesh, [{}, {"c", "a"}]>>
  %yr = weft.map add "ijl,il->ijl" (%y, %m)
      : (tensor<16x8x16xf32>, tensor<16x16xf32>)
      -> tensor<16x8x16xf32, #weft.sharding<@mesh, [{"a", "b", "c"}, {}, {}]>>
  return %yr, %o : tensor<16x8x16xf32, #weft.sharding<@mesh, [{"a", "b", "c"}, {}, {}]>>,
      tensor<16x8xf32, #weft.sharding<@mesh, [{}, {"c", "a"}]>>
}

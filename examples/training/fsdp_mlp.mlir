// weftc: --train=sgd --lr 5 --remat-gathers
// FSDP training (docs/overlap.md, "FSDP: gather, use, free; gather
// again"): a 4-layer MLP whose weights W_i[d, e] are split over `data`
// along their first dim, with the batch split over `data` too. Each layer
// all-gathers its weight right before use; --remat-gathers gathers it again
// for the backward pass instead of keeping it alive, and every gradient is
// reduce-scattered back onto the weight's shard, where SGD updates it in
// place. Mesh data=4; test/training/fsdp-mlp.test runs 1, 2, 4 and 8 ranks
// against the unsharded build and fsdp_reference.py's numpy trainer.
//   m_i = h_{i-1} W_i, p_i = m_i / sqrt(d), h_i = relu(p_i) (h_0 = x),
//   loss = sum((p_4 - y)^2) / (b * d).
// Written by bench/overlap/make_mlp.py --layers 4 --width 32 --batch 16
// --data 4 --fsdp.
weft.mesh @mesh ["data" = 4]

func.func @mlp(
    %x: tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "x"},
    %y: tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "y"},
    %W1: tensor<32x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.param, weft.name = "W1"},
    %W2: tensor<32x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.param, weft.name = "W2"},
    %W3: tensor<32x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.param, weft.name = "W3"},
    %W4: tensor<32x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.param, weft.name = "W4"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %m1 = weft.einsum "bd,de->be" (%x, %W1) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<32x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %p1 = weft.map scale "bd->bd" (%m1) {scalar = 0.1767766952966369 : f64} : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %h1 = weft.map relu "bd->bd" (%p1) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %m2 = weft.einsum "bd,de->be" (%h1, %W2) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<32x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %p2 = weft.map scale "bd->bd" (%m2) {scalar = 0.1767766952966369 : f64} : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %h2 = weft.map relu "bd->bd" (%p2) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %m3 = weft.einsum "bd,de->be" (%h2, %W3) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<32x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %p3 = weft.map scale "bd->bd" (%m3) {scalar = 0.1767766952966369 : f64} : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %h3 = weft.map relu "bd->bd" (%p3) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %m4 = weft.einsum "bd,de->be" (%h3, %W4) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<32x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %p4 = weft.map scale "bd->bd" (%m4) {scalar = 0.1767766952966369 : f64} : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %e = weft.map sub "bd,bd->bd" (%p4, %y) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %e2 = weft.map square "bd->bd" (%e) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %s = weft.reduce sum "bd->" (%e2) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<f32>
  %loss = weft.map scale "->" (%s) {scalar = 0.001953125 : f64} : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// Counter-based random numbers (weft.random): each element depends on the
// seed and its global indices only, so every mesh draws the same numbers
// and each rank computes its own block with no communication.
// - dropout (rate 0.25) of x[b=4,t=8,d=6] split b on data, t on model:
//   the mask is 1 where u > 0.25, the kept values scaled by 1/(1-0.25);
// - standard normal f64 noise n[i=16,j=8] split i over both axes (as a
//   random init would be), added to w;
// - a uniform f32 u[i,j] split j on model, reduced over j (its sum needs
//   every rank's block).
// mesh data=2, model=2.

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @random(%x: tensor<4x8x6xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> {weft.name = "x"},
    %w: tensor<16x8xf64, #weft.sharding<@mesh, [{"data", "model"}, {}]>> {weft.name = "w"})
    -> (tensor<4x8x6xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> {weft.name = "dropped"},
        tensor<16x8xf64, #weft.sharding<@mesh, [{"data", "model"}, {}]>> {weft.name = "noisy"},
        tensor<16xf32> {weft.name = "rowsum"}) {
  %u = weft.random uniform seed 7 : tensor<4x8x6xf32>
  %k0 = weft.map shift "btd->btd" (%u) {scalar = -0.25 : f64} : (tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %keep = weft.map step "btd->btd" (%k0) : (tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %m = weft.map mul "btd,btd->btd" (%x, %keep) : (tensor<4x8x6xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %dropped = weft.map scale "btd->btd" (%m) {scalar = 1.3333333333333333 : f64} : (tensor<4x8x6xf32>) -> tensor<4x8x6xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  %n = weft.random normal seed 11 : tensor<16x8xf64>
  %noisy = weft.map add "ij,ij->ij" (%w, %n) : (tensor<16x8xf64, #weft.sharding<@mesh, [{"data", "model"}, {}]>>, tensor<16x8xf64>) -> tensor<16x8xf64, #weft.sharding<@mesh, [{"data", "model"}, {}]>>
  %v = weft.random uniform seed 12345678901 : tensor<16x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  %rowsum = weft.reduce sum "ij->i" (%v) : (tensor<16x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<16xf32>
  return %dropped, %noisy, %rowsum : tensor<4x8x6xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<16x8xf64, #weft.sharding<@mesh, [{"data", "model"}, {}]>>, tensor<16xf32>
}

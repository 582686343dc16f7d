// One id input looked up in two tables, 16 and 64 rows (the 64-row one split
// on its vocabulary): ids must stay below 16 so that every lookup is valid.
weft.mesh @mesh ["model" = 2]

func.func @two_tables(%ids: tensor<4x8xi32>, %small: tensor<16x8xf32>,
                      %big: tensor<64x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<4x8x8xf32>, tensor<4x8x8xf32>) {
  %a = weft.embed "bt,vd->btd" (%ids, %small) : (tensor<4x8xi32>, tensor<16x8xf32>) -> tensor<4x8x8xf32>
  %b = weft.embed "bt,vd->btd" (%ids, %big) : (tensor<4x8xi32>, tensor<64x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x8x8xf32>
  return %a, %b : tensor<4x8x8xf32>, tensor<4x8x8xf32>
}

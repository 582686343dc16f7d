// A tiny data-parallel least-squares model for the harness's tests:
// loss = sum((x w - t)^2), w replicated, x and t split b on data.
weft.mesh @mesh ["data" = 2]
func.func @tiny(%x: tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "x"},
                %t: tensor<8x3xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "t"},
                %w: tensor<4x3xf32> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %y = weft.einsum "bd,df->bf" (%x, %w) : (tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %e = weft.map sub "bf,bf->bf" (%y, %t) : (tensor<8x3xf32>, tensor<8x3xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x3xf32>
  %s = weft.map square "bf->bf" (%e) : (tensor<8x3xf32>) -> tensor<8x3xf32>
  %l = weft.reduce sum "bf->" (%s) : (tensor<8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

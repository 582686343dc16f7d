// weft.stage = -2 on both layer calls: weftc must refuse it (test/weftc/pipeline-options.test), not compile the calls unpipelined.
weft.mesh @mesh ["stage" = 2]
func.func private @inner(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %h = weft.map relu "bd->bd" (%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %r = func.call @inner(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) {weft.stage = -2 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) {weft.stage = -2 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// f32 master weights used in f16 (test/Autodiff/convert-f16-gradcheck.test):
// loss = sum(y^2), y = x W computed in f16 (operands rounded by
// weft.convert, the product rounded to f16 where it is stored).
func.func @loss(%x: tensor<3x4xf32>, %w: tensor<4x2xf32> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %xb = weft.convert %x : tensor<3x4xf32> -> tensor<3x4xf16>
  %wb = weft.convert %w : tensor<4x2xf32> -> tensor<4x2xf16>
  %y = weft.einsum "bd,df->bf" (%xb, %wb) : (tensor<3x4xf16>, tensor<4x2xf16>) -> tensor<3x2xf16>
  %y32 = weft.convert %y : tensor<3x2xf16> -> tensor<3x2xf32>
  %s = weft.map square "bf->bf" (%y32) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %l = weft.reduce sum "bf->" (%s) : (tensor<3x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

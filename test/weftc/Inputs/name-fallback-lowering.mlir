// Input of name-fallback-collision.test: given names that fallbacks hit.
func.func @f(%a: tensor<2xf32> {weft.name = "arg1"}, %b: tensor<2xf32>,
             %c: tensor<2xf32> {weft.name = "arg0"})
    -> (tensor<2xf32>, tensor<2xf32> {weft.name = "result0"},
        tensor<2xf32> {weft.name = "result0_1"}) {
  return %a, %b, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

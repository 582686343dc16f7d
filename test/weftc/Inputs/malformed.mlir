weft.mesh @mesh ["model" = 4]

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = weft.map relu "ij->ij" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y tensor<4x8xf32>
}

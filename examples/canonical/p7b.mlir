// P7b Vocabulary-split embedding, programs.md.
// mesh model=4. ids[b,t] (i32) replicated; table[v=4096,d] split v on model.
// e requested split t on model: one reduce-scatter, 192 KiB.

weft.mesh @mesh ["model" = 4]

func.func @embed(%ids: tensor<4x64xi32, #weft.sharding<@mesh, [{}, {}]>>,
    %table: tensor<4096x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) {
  %e = weft.embed "bt,vd->btd" (%ids, %table)
      : (tensor<4x64xi32, #weft.sharding<@mesh, [{}, {}]>>, tensor<4096x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
  return %e : tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
}

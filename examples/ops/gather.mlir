// Gathers along a letter: weft.embed whose table shares letters with the
// ids (batch letters) picks, for each position, an element of its own row,
// like numpy's take_along_axis; scatter_add is its transpose.
//   - A cross-entropy target logit from integer labels with the logits'
//     vocabulary split on model: each rank looks up the labels in its
//     columns (zeros elsewhere), then one all-reduce of [b,t]: no one_hot,
//     no [b,t,V] temporary.
//   - Selected positions of a sequence (a MoE capacity slot, a sampled
//     token): [b,k] positions into x[b,t,d] with t split on model (masked
//     lookups plus an all-reduce of [b,k,d]); b, a batch letter, stays
//     split on data without communication.
//   - The scatter-add of a gradient back into those positions, its result
//     split on t: each rank adds the positions in its block, no
//     communication.
// mesh data=2, model=2: labels[b=4,t=8], pos[b,k=3] (i32); logits[b,t,v=64];
// x[b,t,d=16]; g[b,k,d].

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @gather(%labels: tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "labels"},
    %logits: tensor<4x8x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>> {weft.name = "logits"},
    %pos: tensor<4x3xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "pos"},
    %x: tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> {weft.name = "x"},
    %g: tensor<4x3x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "g"})
    -> (tensor<4x8xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "target"},
        tensor<4x3x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "picked"},
        tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> {weft.name = "dx"}) {
  %target = weft.embed "bt,btv->bt" (%labels, %logits)
      : (tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<4x8x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>) -> tensor<4x8xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %picked = weft.embed "bk,btd->bkd" (%pos, %x)
      : (tensor<4x3xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) -> tensor<4x3x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  %dx = weft.scatter_add "bk,bkd->btd" (%pos, %g)
      : (tensor<4x3xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<4x3x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  return %target, %picked, %dx : tensor<4x8xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<4x3x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
}

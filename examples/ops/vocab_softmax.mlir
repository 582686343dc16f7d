// Vocabulary-parallel log-softmax and entropy (Megatron's parallel
// cross-entropy style) on a 2-D mesh: the vocabulary letter v is split on
// model, so the max over v is a partial max (all-reduce max), the sum of
// exponentials a partial sum, and the min of the log-probabilities a
// partial min. The batch letter b is split on data.
// mesh data=2, model=4: h[b=8,d=32] split b on data; w[d=32,v=128] split v
// on model.

weft.mesh @mesh ["data" = 2, "model" = 4]

func.func @vocab_softmax(%h: tensor<8x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
    %w: tensor<32x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
    -> (tensor<8x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>,
        tensor<8xf32>,
        tensor<8xf32, #weft.sharding<@mesh, [{}]>>) {
  %logits = weft.einsum "bd,dv->bv" (%h, %w)
      : (tensor<8x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<32x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<8x128xf32>
  %mx = weft.reduce max "bv->b" (%logits) : (tensor<8x128xf32>) -> tensor<8xf32>
  %sh = weft.map sub "bv,b->bv" (%logits, %mx)
      : (tensor<8x128xf32>, tensor<8xf32>) -> tensor<8x128xf32>
  %e = weft.map exp "bv->bv" (%sh) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %z = weft.reduce sum "bv->b" (%e) : (tensor<8x128xf32>) -> tensor<8xf32>
  %lz = weft.map log "b->b" (%z) : (tensor<8xf32>) -> tensor<8xf32>
  %logp = weft.map sub "bv,b->bv" (%sh, %lz)
      : (tensor<8x128xf32>, tensor<8xf32>)
      -> tensor<8x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>
  // the least likely token's log-probability: a partial min over model
  %lmin = weft.reduce min "bv->b" (%logp)
      : (tensor<8x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<8xf32>
  // entropy: -sum_v p log p
  %p = weft.map div "bv,b->bv" (%e, %z) : (tensor<8x128xf32>, tensor<8xf32>) -> tensor<8x128xf32>
  %pl = weft.map mul "bv,bv->bv" (%p, %logp)
      : (tensor<8x128xf32>, tensor<8x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>)
      -> tensor<8x128xf32>
  %spl = weft.reduce sum "bv->b" (%pl) : (tensor<8x128xf32>) -> tensor<8xf32>
  %ent = weft.map neg "b->b" (%spl) : (tensor<8xf32>) -> tensor<8xf32, #weft.sharding<@mesh, [{}]>>
  return %logp, %lmin, %ent : tensor<8x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>,
      tensor<8xf32>, tensor<8xf32, #weft.sharding<@mesh, [{}]>>
}

// Vocabulary-parallel cross-entropy from integer labels at GPT-2's
// vocabulary, 50257 = 29 * 1733, which no power of two divides: the
// vocabulary letter v is split on model and padded (--weft-pad-uneven) to
// a multiple of its axes; the batch of 10 rows is split on data (uneven on
// data=4). No one-hot or identity input: the labels are i32 and
// weft.one_hot picks each row's logit on its own vocabulary shard.
// Megatron's parallel cross-entropy: a max, a sum of exponentials and the
// picked logit, each a partial over model (three all-reduces of b floats).
// mesh data=2, model=4: h[b=10,d=64] split b on data; w[d=64,v=50257]
// split v on model; labels[b] (i32) split b on data.

weft.mesh @mesh ["data" = 2, "model" = 4]

func.func @loss_parallel(%h: tensor<10x64xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "h"},
    %w: tensor<64x50257xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.name = "w"},
    %labels: tensor<10xi32, #weft.sharding<@mesh, [{"data"}]>> {weft.name = "labels"})
    -> (tensor<10xf32, #weft.sharding<@mesh, [{"data"}]>> {weft.name = "nll"},
        tensor<f32> {weft.name = "loss"},
        tensor<10x50257xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>> {weft.name = "logp"}) {
  %logits = weft.einsum "bd,dv->bv" (%h, %w)
      : (tensor<10x64xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<64x50257xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<10x50257xf32>
  // log-sum-exp over the split vocabulary (a max and a sum: partials).
  %mx = weft.reduce max "bv->b" (%logits) : (tensor<10x50257xf32>) -> tensor<10xf32>
  %sh = weft.map sub "bv,b->bv" (%logits, %mx)
      : (tensor<10x50257xf32>, tensor<10xf32>) -> tensor<10x50257xf32>
  %e = weft.map exp "bv->bv" (%sh) : (tensor<10x50257xf32>) -> tensor<10x50257xf32>
  %z = weft.reduce sum "bv->b" (%e) : (tensor<10x50257xf32>) -> tensor<10xf32>
  %lz = weft.map log "b->b" (%z) : (tensor<10xf32>) -> tensor<10xf32>
  // The label's shifted logit: one_hot writes each shard's own columns.
  %oh = weft.one_hot "b->bv" (%labels)
      : (tensor<10xi32, #weft.sharding<@mesh, [{"data"}]>>) -> tensor<10x50257xf32>
  %picked = weft.einsum "bv,bv->b" (%sh, %oh)
      : (tensor<10x50257xf32>, tensor<10x50257xf32>) -> tensor<10xf32>
  %nll = weft.map sub "b,b->b" (%lz, %picked)
      : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32, #weft.sharding<@mesh, [{"data"}]>>
  %sum = weft.reduce sum "b->" (%nll)
      : (tensor<10xf32, #weft.sharding<@mesh, [{"data"}]>>) -> tensor<f32>
  %loss = weft.map scale "->" (%sum) {scalar = 0.1 : f64} : (tensor<f32>) -> tensor<f32>
  // The log-probabilities, written without their pads.
  %logp = weft.map sub "bv,b->bv" (%sh, %lz)
      : (tensor<10x50257xf32>, tensor<10xf32>)
      -> tensor<10x50257xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>
  return %nll, %loss, %logp : tensor<10xf32, #weft.sharding<@mesh, [{"data"}]>>, tensor<f32>,
      tensor<10x50257xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>
}

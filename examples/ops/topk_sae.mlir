// A TopK sparse autoencoder's forward pass (Gao et al. 2024) on data x
// tensor parallelism: the latent letter f is split on model, so each row's
// top k = 4 latents are selected with weft.top_k along a split letter --
// each rank's 4 candidates per row all-gathered over model, not k rounds of
// all-reduce(max) and never the whole f. The code keeps the latents at
// least the k-th largest (the last top_k value), through ReLU; the
// decoder's contraction over f is a partial sum (one all-reduce). The
// indices of the active latents come from top_k with a payload of
// positions (iota).
// mesh data=2, model=4: x[b=8,d=32] split b on data; w_enc[d,f=256] and
// w_dec[f,d] split f on model.

weft.mesh @mesh ["data" = 2, "model" = 4]

func.func @topk_sae(%x: tensor<8x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "x"},
    %w_enc: tensor<32x256xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.name = "w_enc"},
    %w_dec: tensor<256x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.name = "w_dec"})
    -> (tensor<8x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "recon"},
        tensor<8x4xf32> {weft.name = "active"},
        tensor<8x4xf32> {weft.name = "top"}) {
  %pre = weft.einsum "bd,df->bf" (%x, %w_enc)
      : (tensor<8x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<32x256xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<8x256xf32>
  %top = weft.top_k %pre dim 1 k 4 : (tensor<8x256xf32>) -> tensor<8x4xf32>
  %kth = weft.reduce min "bk->b" (%top) : (tensor<8x4xf32>) -> tensor<8xf32>
  %keep = weft.map ge "bf,b->bf" (%pre, %kth)
      : (tensor<8x256xf32>, tensor<8xf32>) -> tensor<8x256xf32>
  %kept = weft.map mul "bf,bf->bf" (%pre, %keep)
      : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %z = weft.map relu "bf->bf" (%kept) : (tensor<8x256xf32>) -> tensor<8x256xf32>
  %recon = weft.einsum "bf,fd->bd" (%z, %w_dec)
      : (tensor<8x256xf32>, tensor<256x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<8x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %f = weft.iota : tensor<256xf32>
  %pos = weft.map scale "f->bf" (%f) {scalar = 1.0 : f64} : (tensor<256xf32>) -> tensor<8x256xf32>
  %active = weft.top_k %pre, %pos dim 1 k 4
      : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x4xf32>
  return %recon, %active, %top : tensor<8x32xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<8x4xf32>, tensor<8x4xf32>
}

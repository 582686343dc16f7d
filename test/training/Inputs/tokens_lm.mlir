// A bigram language model over a vocabulary of 16 for the --tokens tests
// (tokens.test): logits = E[tokens] W, the mean cross-entropy against the
// labels. Mesh data=2, model=2: tokens and labels [4, 8] split the batch
// on data (two data-parallel groups of two ranks), W splits the
// vocabulary on model.
weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @tokens_lm(
    %tokens: tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "tokens"},
    %labels: tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "labels"},
    %E: tensor<16x8xf32> {weft.param, weft.name = "E"},
    %W: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %h = weft.embed "bt,vd->btd" (%tokens, %E) : (tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x8xf32>) -> tensor<4x8x8xf32>
  %l = weft.einsum "btd,dv->btv" (%h, %W) : (tensor<4x8x8xf32>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8x16xf32>
  %m = weft.reduce max "btv->bt" (%l) : (tensor<4x8x16xf32>) -> tensor<4x8xf32>
  %s = weft.map sub "btv,bt->btv" (%l, %m) : (tensor<4x8x16xf32>, tensor<4x8xf32>) -> tensor<4x8x16xf32>
  %e = weft.map exp "btv->btv" (%s) : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %z = weft.reduce sum "btv->bt" (%e) : (tensor<4x8x16xf32>) -> tensor<4x8xf32>
  %lz = weft.map log "bt->bt" (%z) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %oh = weft.one_hot "bt->btv" (%labels) : (tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<4x8x16xf32>
  %p = weft.map mul "btv,btv->btv" (%s, %oh) : (tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %ps = weft.reduce sum "btv->bt" (%p) : (tensor<4x8x16xf32>) -> tensor<4x8xf32>
  %nll = weft.map sub "bt,bt->bt" (%lz, %ps) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %tot = weft.reduce sum "bt->" (%nll) : (tensor<4x8xf32>) -> tensor<f32>
  %loss = weft.map scale "->" (%tot) {scalar = 0.03125 : f64} : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// P9 with dropout (issue 12): programs.md's P9 transformer block plus
// dropout, rate 0.1, at the three places GPT-2 has it: the attention
// probabilities, the attention output and the MLP output (before each
// residual add). Each mask comes from weft.random (a counter RNG keyed by
// the global element index and the seed), so the 1, 2, 4 and 8-rank runs
// drop exactly the elements the unsharded run drops, and the masks cost no
// communication: the minimum stays P9's.
//
// P9 Transformer block, tensor + sequence parallel, programs.md.
// mesh model=4. x[b,t,d] split t on model; attention weights as P6, MLP weights
// as P1; the block output requested split t on model. The norms are written
// out from reduce and map ops (no gain).
// Minimum: two all-gathers (n1 and n2, each gathered once and reused by every
// consumer) and two reduce-scatters (a and m), all over model:
// 4 x 192 = 768 KiB. The norms and residual adds run on local t blocks.

weft.mesh @mesh ["model" = 4]

func.func @block(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %wq: tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %wk: tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %wv: tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %wo: tensor<8x32x256xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>,
    %w1: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) {
  // n1 = rmsnorm over d of x
  %n1_sq = weft.map square "btd->btd" (%x)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>)
      -> tensor<4x64x256xf32>
  %n1_ss = weft.reduce sum "btd->bt" (%n1_sq)
      : (tensor<4x64x256xf32>)
      -> tensor<4x64xf32>
  // mean over d = 256, plus eps = 1e-5
  %n1_ms = weft.map scale "bt->bt" (%n1_ss) {scalar = 3.906250e-03 : f64}
      : (tensor<4x64xf32>)
      -> tensor<4x64xf32>
  %n1_me = weft.map shift "bt->bt" (%n1_ms) {scalar = 1.000000e-05 : f64}
      : (tensor<4x64xf32>)
      -> tensor<4x64xf32>
  %n1_r = weft.map rsqrt "bt->bt" (%n1_me)
      : (tensor<4x64xf32>)
      -> tensor<4x64xf32>
  %n1 = weft.map mul "btd,bt->btd" (%x, %n1_r)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x64xf32>)
      -> tensor<4x64x256xf32>
  // attention of n1 as in P6
  %q = weft.einsum "btd,dhk->bthk" (%n1, %wq)
      : (tensor<4x64x256xf32>, tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>)
      -> tensor<4x64x8x32xf32>
  %kk = weft.einsum "bsd,dhk->bshk" (%n1, %wk)
      : (tensor<4x64x256xf32>, tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>)
      -> tensor<4x64x8x32xf32>
  %vv = weft.einsum "bsd,dhk->bshk" (%n1, %wv)
      : (tensor<4x64x256xf32>, tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>)
      -> tensor<4x64x8x32xf32>
  %sc = weft.einsum "bthk,bshk->bhts" (%q, %kk)
      : (tensor<4x64x8x32xf32>, tensor<4x64x8x32xf32>)
      -> tensor<4x8x64x64xf32>
  // softmax over s
  %mx = weft.reduce max "bhts->bht" (%sc)
      : (tensor<4x8x64x64xf32>)
      -> tensor<4x8x64xf32>
  %df = weft.map sub "bhts,bht->bhts" (%sc, %mx)
      : (tensor<4x8x64x64xf32>, tensor<4x8x64xf32>)
      -> tensor<4x8x64x64xf32>
  %e = weft.map exp "bhts->bhts" (%df)
      : (tensor<4x8x64x64xf32>)
      -> tensor<4x8x64x64xf32>
  %z = weft.reduce sum "bhts->bht" (%e)
      : (tensor<4x8x64x64xf32>)
      -> tensor<4x8x64xf32>
  %p = weft.map div "bhts,bht->bhts" (%e, %z)
      : (tensor<4x8x64x64xf32>, tensor<4x8x64xf32>)
      -> tensor<4x8x64x64xf32>
  // dropout(0.1) of %p: keep where u > 0.1, scale by 1/0.9
  %pd_u = weft.random uniform seed 1 : tensor<4x8x64x64xf32>
  %pd_s = weft.map shift "bhts->bhts" (%pd_u) {scalar = -1.000000e-01 : f64}
      : (tensor<4x8x64x64xf32>) -> tensor<4x8x64x64xf32>
  %pd_k = weft.map step "bhts->bhts" (%pd_s)
      : (tensor<4x8x64x64xf32>) -> tensor<4x8x64x64xf32>
  %pd_m = weft.map mul "bhts,bhts->bhts" (%p, %pd_k)
      : (tensor<4x8x64x64xf32>, tensor<4x8x64x64xf32>) -> tensor<4x8x64x64xf32>
  %pd = weft.map scale "bhts->bhts" (%pd_m) {scalar = 1.1111111111111112 : f64}
      : (tensor<4x8x64x64xf32>) -> tensor<4x8x64x64xf32>
  %o = weft.einsum "bhts,bshk->bthk" (%pd, %vv)
      : (tensor<4x8x64x64xf32>, tensor<4x64x8x32xf32>)
      -> tensor<4x64x8x32xf32>
  %a = weft.einsum "bthk,hkd->btd" (%o, %wo)
      : (tensor<4x64x8x32xf32>, tensor<8x32x256xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>)
      -> tensor<4x64x256xf32>
  // dropout(0.1) of %a: keep where u > 0.1, scale by 1/0.9
  %ad_u = weft.random uniform seed 2 : tensor<4x64x256xf32>
  %ad_s = weft.map shift "btd->btd" (%ad_u) {scalar = -1.000000e-01 : f64}
      : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %ad_k = weft.map step "btd->btd" (%ad_s)
      : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %ad_m = weft.map mul "btd,btd->btd" (%a, %ad_k)
      : (tensor<4x64x256xf32>, tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %ad = weft.map scale "btd->btd" (%ad_m) {scalar = 1.1111111111111112 : f64}
      : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %r1 = weft.map add "btd,btd->btd" (%x, %ad)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x64x256xf32>)
      -> tensor<4x64x256xf32>
  // n2 = rmsnorm over d of r1
  %n2_sq = weft.map square "btd->btd" (%r1)
      : (tensor<4x64x256xf32>)
      -> tensor<4x64x256xf32>
  %n2_ss = weft.reduce sum "btd->bt" (%n2_sq)
      : (tensor<4x64x256xf32>)
      -> tensor<4x64xf32>
  // mean over d = 256, plus eps = 1e-5
  %n2_ms = weft.map scale "bt->bt" (%n2_ss) {scalar = 3.906250e-03 : f64}
      : (tensor<4x64xf32>)
      -> tensor<4x64xf32>
  %n2_me = weft.map shift "bt->bt" (%n2_ms) {scalar = 1.000000e-05 : f64}
      : (tensor<4x64xf32>)
      -> tensor<4x64xf32>
  %n2_r = weft.map rsqrt "bt->bt" (%n2_me)
      : (tensor<4x64xf32>)
      -> tensor<4x64xf32>
  %n2 = weft.map mul "btd,bt->btd" (%r1, %n2_r)
      : (tensor<4x64x256xf32>, tensor<4x64xf32>)
      -> tensor<4x64x256xf32>
  // MLP of n2 as in P1
  %mh = weft.einsum "btd,df->btf" (%n2, %w1)
      : (tensor<4x64x256xf32>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<4x64x1024xf32>
  %ma = weft.map relu "btf->btf" (%mh)
      : (tensor<4x64x1024xf32>)
      -> tensor<4x64x1024xf32>
  %m = weft.einsum "btf,fd->btd" (%ma, %w2)
      : (tensor<4x64x1024xf32>, tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<4x64x256xf32>
  // dropout(0.1) of %m: keep where u > 0.1, scale by 1/0.9
  %md_u = weft.random uniform seed 3 : tensor<4x64x256xf32>
  %md_s = weft.map shift "btd->btd" (%md_u) {scalar = -1.000000e-01 : f64}
      : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %md_k = weft.map step "btd->btd" (%md_s)
      : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %md_m = weft.map mul "btd,btd->btd" (%m, %md_k)
      : (tensor<4x64x256xf32>, tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %md = weft.map scale "btd->btd" (%md_m) {scalar = 1.1111111111111112 : f64}
      : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %y = weft.map add "btd,btd->btd" (%r1, %md)
      : (tensor<4x64x256xf32>, tensor<4x64x256xf32>)
      -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
  return %y : tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
}

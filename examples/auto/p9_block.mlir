// P9's transformer block (programs.md) with no annotation at all, for
// auto-sharding on a 2x2 mesh (weftc --memory-budget): the global search
// chooses every layout so the estimated peak bytes per device fit the
// budget. test/auto/auto-sharding.test runs it at 100%, 50% and 25% of the
// replicated footprint.

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @block(%x: tensor<4x64x256xf32>,
    %wq: tensor<256x8x32xf32>,
    %wk: tensor<256x8x32xf32>,
    %wv: tensor<256x8x32xf32>,
    %wo: tensor<8x32x256xf32>,
    %w1: tensor<256x1024xf32>,
    %w2: tensor<1024x256xf32>)
    -> (tensor<4x64x256xf32>) {
  // n1 = rmsnorm over d of x
  %n1_sq = weft.map square "btd->btd" (%x)
      : (tensor<4x64x256xf32>)
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
      : (tensor<4x64x256xf32>, tensor<4x64xf32>)
      -> tensor<4x64x256xf32>
  // attention of n1 as in P6
  %q = weft.einsum "btd,dhk->bthk" (%n1, %wq)
      : (tensor<4x64x256xf32>, tensor<256x8x32xf32>)
      -> tensor<4x64x8x32xf32>
  %kk = weft.einsum "bsd,dhk->bshk" (%n1, %wk)
      : (tensor<4x64x256xf32>, tensor<256x8x32xf32>)
      -> tensor<4x64x8x32xf32>
  %vv = weft.einsum "bsd,dhk->bshk" (%n1, %wv)
      : (tensor<4x64x256xf32>, tensor<256x8x32xf32>)
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
  %o = weft.einsum "bhts,bshk->bthk" (%p, %vv)
      : (tensor<4x8x64x64xf32>, tensor<4x64x8x32xf32>)
      -> tensor<4x64x8x32xf32>
  %a = weft.einsum "bthk,hkd->btd" (%o, %wo)
      : (tensor<4x64x8x32xf32>, tensor<8x32x256xf32>)
      -> tensor<4x64x256xf32>
  %r1 = weft.map add "btd,btd->btd" (%x, %a)
      : (tensor<4x64x256xf32>, tensor<4x64x256xf32>)
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
      : (tensor<4x64x256xf32>, tensor<256x1024xf32>)
      -> tensor<4x64x1024xf32>
  %ma = weft.map relu "btf->btf" (%mh)
      : (tensor<4x64x1024xf32>)
      -> tensor<4x64x1024xf32>
  %m = weft.einsum "btf,fd->btd" (%ma, %w2)
      : (tensor<4x64x1024xf32>, tensor<1024x256xf32>)
      -> tensor<4x64x256xf32>
  %y = weft.map add "btd,btd->btd" (%r1, %m)
      : (tensor<4x64x256xf32>, tensor<4x64x256xf32>)
      -> tensor<4x64x256xf32>
  return %y : tensor<4x64x256xf32>
}

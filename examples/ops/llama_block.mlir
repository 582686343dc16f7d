// A Llama-style decoder block (issue 12), tensor + sequence parallel:
// RMSNorm with gains, rotary position embeddings, causal attention with the
// mask computed from iota, a SwiGLU MLP. No table is an input: the rotary
// angles, cos and sin and the causal mask are computed in the program. The
// head dimension is written as j pairs of r = 2 (wq, wk: [d, h, j, r]), so
// the rotation of each pair is an einsum with R[t,j,r,q] = cos I + sin J
// (I the identity, J = [[0, -1], [1, 0]], both from iota).
// mesh model=4. x[b=2,t=32,d=128] split t on model (sequence parallel);
// wq, wk, wv, wo split h (8 heads of 8) on model, w1, w3 split f=256, w2
// split f; the gains replicated; y requested split t on model.
// Minimum: as P9, two all-gathers (n1, n2) and two reduce-scatters (a, m)
// over model: 4 x (2*32*128*4 B) * 3/4 = 96 KiB. The rotary and mask
// tables are computed where they are used, with no communication.

weft.mesh @mesh ["model" = 4]

func.func @llama_block(%x: tensor<2x32x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.name = "x"},
    %g1: tensor<128xf32, #weft.sharding<@mesh, [{}]>> {weft.name = "g1"},
    %wq: tensor<128x8x4x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>> {weft.name = "wq"},
    %wk: tensor<128x8x4x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>> {weft.name = "wk"},
    %wv: tensor<128x8x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.name = "wv"},
    %wo: tensor<8x8x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.name = "wo"},
    %g2: tensor<128xf32, #weft.sharding<@mesh, [{}]>> {weft.name = "g2"},
    %w1: tensor<128x256xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.name = "w1"},
    %w3: tensor<128x256xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.name = "w3"},
    %w2: tensor<256x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.name = "w2"})
    -> (tensor<2x32x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.name = "y"}) {
  // n1 = RMSNorm(x) * g1
  %n1_sq = weft.map square "btd->btd" (%x)
      : (tensor<2x32x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) -> tensor<2x32x128xf32>
  %n1_ss = weft.reduce sum "btd->bt" (%n1_sq)
      : (tensor<2x32x128xf32>) -> tensor<2x32xf32>
  %n1_ms = weft.map scale "bt->bt" (%n1_ss) {scalar = 7.81250000000000000e-03 : f64}
      : (tensor<2x32xf32>) -> tensor<2x32xf32>
  %n1_me = weft.map shift "bt->bt" (%n1_ms) {scalar = 1.00000000000000008e-05 : f64}
      : (tensor<2x32xf32>) -> tensor<2x32xf32>
  %n1_r = weft.map rsqrt "bt->bt" (%n1_me)
      : (tensor<2x32xf32>) -> tensor<2x32xf32>
  %n1_n = weft.map mul "btd,bt->btd" (%x, %n1_r)
      : (tensor<2x32x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<2x32xf32>) -> tensor<2x32x128xf32>
  %n1 = weft.map mul "btd,d->btd" (%n1_n, %g1)
      : (tensor<2x32x128xf32>, tensor<128xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<2x32x128xf32>
  // q, k with the head dim as j pairs of r = 2 (rotated pairwise), v
  %q = weft.einsum "btd,dhjr->bthjr" (%n1, %wq)
      : (tensor<2x32x128xf32>, tensor<128x8x4x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>) -> tensor<2x32x8x4x2xf32>
  %k = weft.einsum "bsd,dhjr->bshjr" (%n1, %wk)
      : (tensor<2x32x128xf32>, tensor<128x8x4x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>) -> tensor<2x32x8x4x2xf32>
  %v = weft.einsum "bsd,dhe->bshe" (%n1, %wv)
      : (tensor<2x32x128xf32>, tensor<128x8x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) -> tensor<2x32x8x8xf32>
  // rotary: theta[t, j] = t * 10000^(-2j/K); R[t,j] = [[cos, -sin], [sin, cos]] as cos * I + sin * J
  %it = weft.iota : tensor<32xf32>
  %is = weft.iota : tensor<32xf32>
  %ij = weft.iota : tensor<4xf32>
  %ir = weft.iota : tensor<2xf32>
  %iq = weft.iota : tensor<2xf32>
  %fexp = weft.map scale "j->j" (%ij) {scalar = -2.30258509299404590e+00 : f64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %freq = weft.map exp "j->j" (%fexp)
      : (tensor<4xf32>) -> tensor<4xf32>
  %theta = weft.map mul "t,j->tj" (%it, %freq)
      : (tensor<32xf32>, tensor<4xf32>) -> tensor<32x4xf32>
  %cos = weft.map cos "tj->tj" (%theta)
      : (tensor<32x4xf32>) -> tensor<32x4xf32>
  %sin = weft.map sin "tj->tj" (%theta)
      : (tensor<32x4xf32>) -> tensor<32x4xf32>
  %eye = weft.map eq "r,q->rq" (%ir, %iq)
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %rot = weft.map sub "r,q->rq" (%ir, %iq)
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %rc = weft.map mul "tj,rq->tjrq" (%cos, %eye)
      : (tensor<32x4xf32>, tensor<2x2xf32>) -> tensor<32x4x2x2xf32>
  %rs = weft.map mul "tj,rq->tjrq" (%sin, %rot)
      : (tensor<32x4xf32>, tensor<2x2xf32>) -> tensor<32x4x2x2xf32>
  %rope = weft.map add "tjrq,tjrq->tjrq" (%rc, %rs)
      : (tensor<32x4x2x2xf32>, tensor<32x4x2x2xf32>) -> tensor<32x4x2x2xf32>
  %qr = weft.einsum "bthjq,tjrq->bthjr" (%q, %rope)
      : (tensor<2x32x8x4x2xf32>, tensor<32x4x2x2xf32>) -> tensor<2x32x8x4x2xf32>
  %kr = weft.einsum "bshjq,sjrq->bshjr" (%k, %rope)
      : (tensor<2x32x8x4x2xf32>, tensor<32x4x2x2xf32>) -> tensor<2x32x8x4x2xf32>
  // causal attention: scores / sqrt(K), -1e9 where s > t (mask from iota)
  %sc0 = weft.einsum "bthjr,bshjr->bhts" (%qr, %kr)
      : (tensor<2x32x8x4x2xf32>, tensor<2x32x8x4x2xf32>) -> tensor<2x8x32x32xf32>
  %sc1 = weft.map scale "bhts->bhts" (%sc0) {scalar = 3.53553390593273731e-01 : f64}
      : (tensor<2x8x32x32xf32>) -> tensor<2x8x32x32xf32>
  %allow = weft.map ge "t,s->ts" (%it, %is)
      : (tensor<32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %nallow = weft.map shift "ts->ts" (%allow) {scalar = -1.00000000000000000e+00 : f64}
      : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %bias = weft.map scale "ts->ts" (%nallow) {scalar = 1.00000000000000000e+09 : f64}
      : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %sc = weft.map add "bhts,ts->bhts" (%sc1, %bias)
      : (tensor<2x8x32x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32x32xf32>
  %mx = weft.reduce max "bhts->bht" (%sc)
      : (tensor<2x8x32x32xf32>) -> tensor<2x8x32xf32>
  %df = weft.map sub "bhts,bht->bhts" (%sc, %mx)
      : (tensor<2x8x32x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32x32xf32>
  %ex = weft.map exp "bhts->bhts" (%df)
      : (tensor<2x8x32x32xf32>) -> tensor<2x8x32x32xf32>
  %z = weft.reduce sum "bhts->bht" (%ex)
      : (tensor<2x8x32x32xf32>) -> tensor<2x8x32xf32>
  %p = weft.map div "bhts,bht->bhts" (%ex, %z)
      : (tensor<2x8x32x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32x32xf32>
  %o = weft.einsum "bhts,bshe->bthe" (%p, %v)
      : (tensor<2x8x32x32xf32>, tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  %a = weft.einsum "bthe,hed->btd" (%o, %wo)
      : (tensor<2x32x8x8xf32>, tensor<8x8x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>) -> tensor<2x32x128xf32>
  %r1 = weft.map add "btd,btd->btd" (%x, %a)
      : (tensor<2x32x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<2x32x128xf32>) -> tensor<2x32x128xf32>
  // n2 = RMSNorm(r1) * g2
  %n2_sq = weft.map square "btd->btd" (%r1)
      : (tensor<2x32x128xf32>) -> tensor<2x32x128xf32>
  %n2_ss = weft.reduce sum "btd->bt" (%n2_sq)
      : (tensor<2x32x128xf32>) -> tensor<2x32xf32>
  %n2_ms = weft.map scale "bt->bt" (%n2_ss) {scalar = 7.81250000000000000e-03 : f64}
      : (tensor<2x32xf32>) -> tensor<2x32xf32>
  %n2_me = weft.map shift "bt->bt" (%n2_ms) {scalar = 1.00000000000000008e-05 : f64}
      : (tensor<2x32xf32>) -> tensor<2x32xf32>
  %n2_r = weft.map rsqrt "bt->bt" (%n2_me)
      : (tensor<2x32xf32>) -> tensor<2x32xf32>
  %n2_n = weft.map mul "btd,bt->btd" (%r1, %n2_r)
      : (tensor<2x32x128xf32>, tensor<2x32xf32>) -> tensor<2x32x128xf32>
  %n2 = weft.map mul "btd,d->btd" (%n2_n, %g2)
      : (tensor<2x32x128xf32>, tensor<128xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<2x32x128xf32>
  // SwiGLU: (silu(n2 w1) * (n2 w3)) w2
  %u = weft.einsum "btd,df->btf" (%n2, %w1)
      : (tensor<2x32x128xf32>, tensor<128x256xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<2x32x256xf32>
  %gt = weft.einsum "btd,df->btf" (%n2, %w3)
      : (tensor<2x32x128xf32>, tensor<128x256xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<2x32x256xf32>
  %su = weft.map silu "btf->btf" (%u)
      : (tensor<2x32x256xf32>) -> tensor<2x32x256xf32>
  %hm = weft.map mul "btf,btf->btf" (%su, %gt)
      : (tensor<2x32x256xf32>, tensor<2x32x256xf32>) -> tensor<2x32x256xf32>
  %m = weft.einsum "btf,fd->btd" (%hm, %w2)
      : (tensor<2x32x256xf32>, tensor<256x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2x32x128xf32>
  %y = weft.map add "btd,btd->btd" (%r1, %m)
      : (tensor<2x32x128xf32>, tensor<2x32x128xf32>) -> tensor<2x32x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
  return %y : tensor<2x32x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
}

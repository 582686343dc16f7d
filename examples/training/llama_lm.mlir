// weftc: --train=adamw --lr 3e-3
// A Llama-style decoder LM trained with tensor, sequence and data
// parallelism (issues 30 and 31), its layer written once as @layer and
// called per layer (docs/calls.md). Mesh data=2 x model=2.
//   b=8 (split on data), t=32, d=64, 4 heads of 16 (written as j=8 pairs of
//   r=2 for the rotary rotation), SwiGLU hidden f=128, a byte-level
//   vocabulary of 256, 2 layers.
//   tokens, labels [b, t] i32, split b on data.
//   E[v, d] (vocabulary-parallel embedding) and Wout[d, v]
//   (vocabulary-parallel output) split v on model; wq, wk, wv, wo split the
//   heads h on model, w1, w3, w2 split f on model (Megatron); the RMSNorm
//   gains g1, g2 (per layer) and gf are learned and replicated.
// Between sub-layers the residual stream x[b, t, d] is sequence-parallel (t
// split on model, Korthikanti et al.): the weft.shard constraints all-gather
// t before each attention/MLP/output and reduce-scatter their partial sums
// back. No table is an input: the rotary angles and the causal mask come
// from weft.iota.
// loss = mean over (b, t) of logsumexp_v(logits) - logits[label].
// Its minimum communication per step is derived in docs/training.md
// ("The Llama-style LM"); test/training/llama-lm.test trains it.

weft.mesh @mesh ["data" = 2, "model" = 2]

// One Llama decoder layer: RMSNorm (learned gain) -> attention with rotary
// q, k -> residual; RMSNorm (learned gain) -> SwiGLU MLP -> residual. The
// residual stream x is sequence-parallel (t split on model) between
// sub-layers: each sub-layer all-gathers its normalized input
// (weft.shard to t replicated) and reduce-scatters its partial output back.
func.func private @layer(%x: tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, %rope: tensor<32x8x2x2xf32>, %mask: tensor<32x32xf32>, %g1: tensor<64xf32, #weft.sharding<@mesh, [{}]>>, %wq: tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>, %wk: tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>, %wv: tensor<64x4x16xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, %wo: tensor<4x16x64xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, %g2: tensor<64xf32, #weft.sharding<@mesh, [{}]>>, %w1: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, %w3: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, %w2: tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> {
  // attention: heads h split on model
  %n1_sq = weft.map square "btd->btd" (%x) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) -> tensor<8x32x64xf32>
  %n1_ss = weft.reduce sum "btd->bt" (%n1_sq) : (tensor<8x32x64xf32>) -> tensor<8x32xf32>
  %n1_ms = weft.map scale "bt->bt" (%n1_ss) {scalar = 0.015625 : f64} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %n1_me = weft.map shift "bt->bt" (%n1_ms) {scalar = 1.0e-05 : f64} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %n1_r = weft.map rsqrt "bt->bt" (%n1_me) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %n1_n = weft.map mul "btd,bt->btd" (%x, %n1_r) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<8x32xf32>) -> tensor<8x32x64xf32>
  %n1 = weft.map mul "btd,d->btd" (%n1_n, %g1) : (tensor<8x32x64xf32>, tensor<64xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<8x32x64xf32>
  %n1g = weft.shard %n1 : tensor<8x32x64xf32> -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  %q = weft.einsum "btd,dhjr->bthjr" (%n1g, %wq) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>) -> tensor<8x32x4x8x2xf32>
  %k = weft.einsum "bsd,dhjr->bshjr" (%n1g, %wk) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>) -> tensor<8x32x4x8x2xf32>
  %v = weft.einsum "bsd,dhe->bshe" (%n1g, %wv) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x4x16xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) -> tensor<8x32x4x16xf32>
  // rotary: each (j, r) pair of q and k rotated by the angle of position t
  %qr = weft.einsum "bthjq,tjrq->bthjr" (%q, %rope) : (tensor<8x32x4x8x2xf32>, tensor<32x8x2x2xf32>) -> tensor<8x32x4x8x2xf32>
  %kr = weft.einsum "bshjq,sjrq->bshjr" (%k, %rope) : (tensor<8x32x4x8x2xf32>, tensor<32x8x2x2xf32>) -> tensor<8x32x4x8x2xf32>
  %s0 = weft.einsum "bthjr,bshjr->bhts" (%qr, %kr) : (tensor<8x32x4x8x2xf32>, tensor<8x32x4x8x2xf32>) -> tensor<8x4x32x32xf32>
  %s1 = weft.map scale "bhts->bhts" (%s0) {scalar = 0.25 : f64} : (tensor<8x4x32x32xf32>) -> tensor<8x4x32x32xf32>
  %s2 = weft.map add "bhts,ts->bhts" (%s1, %mask) : (tensor<8x4x32x32xf32>, tensor<32x32xf32>) -> tensor<8x4x32x32xf32>
  %mx = weft.reduce max "bhts->bht" (%s2) : (tensor<8x4x32x32xf32>) -> tensor<8x4x32xf32>
  %df = weft.map sub "bhts,bht->bhts" (%s2, %mx) : (tensor<8x4x32x32xf32>, tensor<8x4x32xf32>) -> tensor<8x4x32x32xf32>
  %ex = weft.map exp "bhts->bhts" (%df) : (tensor<8x4x32x32xf32>) -> tensor<8x4x32x32xf32>
  %z = weft.reduce sum "bhts->bht" (%ex) : (tensor<8x4x32x32xf32>) -> tensor<8x4x32xf32>
  %pr = weft.map div "bhts,bht->bhts" (%ex, %z) : (tensor<8x4x32x32xf32>, tensor<8x4x32xf32>) -> tensor<8x4x32x32xf32>
  %o = weft.einsum "bhts,bshe->bthe" (%pr, %v) : (tensor<8x4x32x32xf32>, tensor<8x32x4x16xf32>) -> tensor<8x32x4x16xf32>
  %a = weft.einsum "bthe,hed->btd" (%o, %wo) : (tensor<8x32x4x16xf32>, tensor<4x16x64xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>) -> tensor<8x32x64xf32>
  %as = weft.shard %a : tensor<8x32x64xf32> -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  %r1 = weft.map add "btd,btd->btd" (%x, %as) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) -> tensor<8x32x64xf32>
  // SwiGLU MLP: f split on model
  %n2_sq = weft.map square "btd->btd" (%r1) : (tensor<8x32x64xf32>) -> tensor<8x32x64xf32>
  %n2_ss = weft.reduce sum "btd->bt" (%n2_sq) : (tensor<8x32x64xf32>) -> tensor<8x32xf32>
  %n2_ms = weft.map scale "bt->bt" (%n2_ss) {scalar = 0.015625 : f64} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %n2_me = weft.map shift "bt->bt" (%n2_ms) {scalar = 1.0e-05 : f64} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %n2_r = weft.map rsqrt "bt->bt" (%n2_me) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %n2_n = weft.map mul "btd,bt->btd" (%r1, %n2_r) : (tensor<8x32x64xf32>, tensor<8x32xf32>) -> tensor<8x32x64xf32>
  %n2 = weft.map mul "btd,d->btd" (%n2_n, %g2) : (tensor<8x32x64xf32>, tensor<64xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<8x32x64xf32>
  %n2g = weft.shard %n2 : tensor<8x32x64xf32> -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  %u = weft.einsum "btd,df->btf" (%n2g, %w1) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32x128xf32>
  %gt = weft.einsum "btd,df->btf" (%n2g, %w3) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32x128xf32>
  %su = weft.map silu "btf->btf" (%u) : (tensor<8x32x128xf32>) -> tensor<8x32x128xf32>
  %hm = weft.map mul "btf,btf->btf" (%su, %gt) : (tensor<8x32x128xf32>, tensor<8x32x128xf32>) -> tensor<8x32x128xf32>
  %m = weft.einsum "btf,fd->btd" (%hm, %w2) : (tensor<8x32x128xf32>, tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x32x64xf32>
  %ms = weft.shard %m : tensor<8x32x64xf32> -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  %y = weft.map add "btd,btd->btd" (%r1, %ms) : (tensor<8x32x64xf32>, tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  return %y : tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
}

func.func @llama_lm(
    %tokens: tensor<8x32xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "tokens"},
    %labels: tensor<8x32xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "labels"},
    %E: tensor<256x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "E"},
    %g1_0: tensor<64xf32, #weft.sharding<@mesh, [{}]>> {weft.param, weft.name = "g1_0"},
    %wq_0: tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>> {weft.param, weft.name = "wq_0"},
    %wk_0: tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>> {weft.param, weft.name = "wk_0"},
    %wv_0: tensor<64x4x16xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "wv_0"},
    %wo_0: tensor<4x16x64xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "wo_0"},
    %g2_0: tensor<64xf32, #weft.sharding<@mesh, [{}]>> {weft.param, weft.name = "g2_0"},
    %w1_0: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "w1_0"},
    %w3_0: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "w3_0"},
    %w2_0: tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "w2_0"},
    %g1_1: tensor<64xf32, #weft.sharding<@mesh, [{}]>> {weft.param, weft.name = "g1_1"},
    %wq_1: tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>> {weft.param, weft.name = "wq_1"},
    %wk_1: tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>> {weft.param, weft.name = "wk_1"},
    %wv_1: tensor<64x4x16xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "wv_1"},
    %wo_1: tensor<4x16x64xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "wo_1"},
    %g2_1: tensor<64xf32, #weft.sharding<@mesh, [{}]>> {weft.param, weft.name = "g2_1"},
    %w1_1: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "w1_1"},
    %w3_1: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "w3_1"},
    %w2_1: tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "w2_1"},
    %gf: tensor<64xf32, #weft.sharding<@mesh, [{}]>> {weft.param, weft.name = "gf"},
    %Wout: tensor<64x256xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "Wout"})
    -> (tensor<f32> {weft.name = "loss"}) {
  // Vocabulary-parallel embedding: a partial sum over model,
  // reduce-scattered to the sequence-parallel layout.
  %e0 = weft.embed "bt,vd->btd" (%tokens, %E) : (tensor<8x32xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<256x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x32x64xf32>
  %x0 = weft.shard %e0 : tensor<8x32x64xf32> -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  // The rotary table R[t, j, r, q] = cos(theta) I + sin(theta) J, theta[t, j] =
  // t * 10000^(-j/J), and the causal mask (0 where s <= t, -1e9 elsewhere),
  // both from weft.iota: no input, no communication.
  %it = weft.iota : tensor<32xf32>
  %ij = weft.iota : tensor<8xf32>
  %ir = weft.iota : tensor<2xf32>
  %fexp = weft.map scale "j->j" (%ij) {scalar = -1.151292546497023 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %freq = weft.map exp "j->j" (%fexp) : (tensor<8xf32>) -> tensor<8xf32>
  %theta = weft.map mul "t,j->tj" (%it, %freq) : (tensor<32xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %cos = weft.map cos "tj->tj" (%theta) : (tensor<32x8xf32>) -> tensor<32x8xf32>
  %sin = weft.map sin "tj->tj" (%theta) : (tensor<32x8xf32>) -> tensor<32x8xf32>
  %eye = weft.map eq "r,q->rq" (%ir, %ir) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %rot = weft.map sub "r,q->rq" (%ir, %ir) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %rc = weft.map mul "tj,rq->tjrq" (%cos, %eye) : (tensor<32x8xf32>, tensor<2x2xf32>) -> tensor<32x8x2x2xf32>
  %rs = weft.map mul "tj,rq->tjrq" (%sin, %rot) : (tensor<32x8xf32>, tensor<2x2xf32>) -> tensor<32x8x2x2xf32>
  %rope = weft.map add "tjrq,tjrq->tjrq" (%rc, %rs) : (tensor<32x8x2x2xf32>, tensor<32x8x2x2xf32>) -> tensor<32x8x2x2xf32>
  %allow = weft.map ge "t,s->ts" (%it, %it) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %nallow = weft.map shift "ts->ts" (%allow) {scalar = -1.0 : f64} : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %mask = weft.map scale "ts->ts" (%nallow) {scalar = 1.0e+09 : f64} : (tensor<32x32xf32>) -> tensor<32x32xf32>
  // The layers: one call each, with that layer's weights.
  %x1 = func.call @layer(%x0, %rope, %mask, %g1_0, %wq_0, %wk_0, %wv_0, %wo_0, %g2_0, %w1_0, %w3_0, %w2_0) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<32x8x2x2xf32>, tensor<32x32xf32>, tensor<64xf32, #weft.sharding<@mesh, [{}]>>, tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>, tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>, tensor<64x4x16xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x16x64xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<64xf32, #weft.sharding<@mesh, [{}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  %x2 = func.call @layer(%x1, %rope, %mask, %g1_1, %wq_1, %wk_1, %wv_1, %wo_1, %g2_1, %w1_1, %w3_1, %w2_1) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<32x8x2x2xf32>, tensor<32x32xf32>, tensor<64xf32, #weft.sharding<@mesh, [{}]>>, tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>, tensor<64x4x8x2xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>, tensor<64x4x16xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x16x64xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<64xf32, #weft.sharding<@mesh, [{}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  // Final RMSNorm (learned gain), vocabulary-parallel output and
  // cross-entropy: logits split v on model; the max, the sum of
  // exponentials and the label's logit are [b, t] partials over model.
  // The [b, t, v] tensors are typed v-split: without them the search
  // gathers the logits instead (one collective of 64 KiB where the
  // vocabulary-parallel loss sends three of 512 B; under the CPU profile's
  // 2e-4 s latency one collective fewer prices lower; docs/training.md).
  %nf_sq = weft.map square "btd->btd" (%x2) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) -> tensor<8x32x64xf32>
  %nf_ss = weft.reduce sum "btd->bt" (%nf_sq) : (tensor<8x32x64xf32>) -> tensor<8x32xf32>
  %nf_ms = weft.map scale "bt->bt" (%nf_ss) {scalar = 0.015625 : f64} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %nf_me = weft.map shift "bt->bt" (%nf_ms) {scalar = 1.0e-05 : f64} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %nf_r = weft.map rsqrt "bt->bt" (%nf_me) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %nf_n = weft.map mul "btd,bt->btd" (%x2, %nf_r) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<8x32xf32>) -> tensor<8x32x64xf32>
  %nf = weft.map mul "btd,d->btd" (%nf_n, %gf) : (tensor<8x32x64xf32>, tensor<64xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<8x32x64xf32>
  %nfg = weft.shard %nf : tensor<8x32x64xf32> -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  %lg = weft.einsum "btd,dv->btv" (%nfg, %Wout) : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x256xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
  %lmx0 = weft.reduce max "btv->bt" (%lg) : (tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>) -> tensor<8x32xf32>
  // The max is a shift for stability that cancels in the loss: its
  // gradient is zero, and stop_gradient spares the backward its [b, t]
  // all-reduce over model.
  %lmx = weft.stop_gradient %lmx0 : tensor<8x32xf32> -> tensor<8x32xf32>
  %lsh = weft.map sub "btv,bt->btv" (%lg, %lmx) : (tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>, tensor<8x32xf32>) -> tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
  %lex = weft.map exp "btv->btv" (%lsh) : (tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>) -> tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
  %lz = weft.reduce sum "btv->bt" (%lex) : (tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>) -> tensor<8x32xf32>
  %lse = weft.map log "bt->bt" (%lz) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %oh = weft.one_hot "bt->btv" (%labels) : (tensor<8x32xi32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
  %pk = weft.map mul "btv,btv->btv" (%lsh, %oh) : (tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>, tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>) -> tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
  %tl = weft.reduce sum "btv->bt" (%pk) : (tensor<8x32x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>) -> tensor<8x32xf32>
  %nll = weft.map sub "bt,bt->bt" (%lse, %tl) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %tot = weft.reduce sum "bt->" (%nll) : (tensor<8x32xf32>) -> tensor<f32>
  %loss = weft.map scale "->" (%tot) {scalar = 0.00390625 : f64} : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}

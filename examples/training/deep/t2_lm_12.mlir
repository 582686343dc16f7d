// weftc: --train=adamw --lr 3e-3
// T2's language model (examples/training/t2_lm_layers.mlir) at 12 layers:
// its layer function @layer called 12 times, each call with its own
// weights (written by bench/compile/gen_lm.py --calls 12; t2_data.py
// --layers 12 writes its inputs). weftc propagates three of the calls and
// gives the ten middle ones the second call's plan (weft-plan-layers,
// docs/calls.md "One plan per layer"). Mesh data=2, model=2; d=128, 4 heads of 32, f=512, vocabulary 512,
// sequence 64, batch 8; pre-norm blocks with a non-parametric RMSNorm (no
// gain), learned positions, a causal mask from weft.iota.
//   tokens, labels [b=8, t=64] (i32, split b on data): t2_data.py writes S
//   batches [S, 8, 64]; step t reads batch (t-1) mod S.
//   E[v, d] (vocabulary-parallel embedding) and Wout[d, v] (vocabulary-
//   parallel output) split v on model; attention weights split heads h on
//   model, MLP weights split f on model (Megatron); P[t, d] split t on model
//   (the sequence-parallel layout); the RMSNorm gains replicated.
// Between sub-layers the residual stream x[b, t, d] is sequence-parallel
// (t split on model): the weft.shard constraints below all-gather t before
// each attention/MLP/output and reduce-scatter their partial sums back.
// loss = mean over (b, t) of logsumexp_v(logits) - logits[label].
// Build and run (4 ranks, 50 steps):
//   python3 examples/training/t2_data.py --out /tmp/t2
//   weftc --train=adamw --lr 3e-3 examples/training/t2_lm_layers.mlir -o /tmp/t2_lm
//   mpirun -np 4 /tmp/t2_lm --steps 50 $(for f in /tmp/t2/*.npy; do
//     n=$(basename $f .npy); echo --input $n=$f; done)

weft.mesh @mesh ["data" = 2, "model" = 2]

// One pre-norm transformer layer: attention then MLP, each gathering the
// sequence-parallel residual stream in and reduce-scattering its partial
// sum back (T2's layer). Written once, called once per layer.
func.func private @layer(
    %x: tensor<8x64x128xf32>, %mask: tensor<64x64xf32>,
    %Wq: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %Wk: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %Wv: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %Wo: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>,
    %W1: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %W2: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<8x64x128xf32> {
  // attention (heads split on model), gathered sequence in,
  // reduce-scattered sequence out.
  %v8 = weft.map square "btd->btd" (%x) : (tensor<8x64x128xf32>) -> tensor<8x64x128xf32>
  %v9 = weft.reduce sum "btd->bt" (%v8) : (tensor<8x64x128xf32>) -> tensor<8x64xf32>
  %v10 = weft.map scale "bt->bt" (%v9) {scalar = 0.0078125 : f64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v11 = weft.map shift "bt->bt" (%v10) {scalar = 1.0e-05 : f64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v12 = weft.map rsqrt "bt->bt" (%v11) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v13 = weft.map mul "btd,bt->btd" (%x, %v12) : (tensor<8x64x128xf32>, tensor<8x64xf32>) -> tensor<8x64x128xf32>
  %s14 = weft.shard %v13 : tensor<8x64x128xf32> -> tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  %v15 = weft.einsum "btd,dhk->bhtk" (%s14, %Wq) : (tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) -> tensor<8x4x64x32xf32>
  %v16 = weft.einsum "bsd,dhk->bhsk" (%s14, %Wk) : (tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) -> tensor<8x4x64x32xf32>
  %v17 = weft.einsum "bsd,dhk->bhsk" (%s14, %Wv) : (tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) -> tensor<8x4x64x32xf32>
  %v18 = weft.einsum "bhtk,bhsk->bhts" (%v15, %v16) : (tensor<8x4x64x32xf32>, tensor<8x4x64x32xf32>) -> tensor<8x4x64x64xf32>
  %v19 = weft.map scale "bhts->bhts" (%v18) {scalar = 0.17677669529663687 : f64} : (tensor<8x4x64x64xf32>) -> tensor<8x4x64x64xf32>
  %v20 = weft.map add "bhts,ts->bhts" (%v19, %mask) : (tensor<8x4x64x64xf32>, tensor<64x64xf32>) -> tensor<8x4x64x64xf32>
  %v21 = weft.reduce max "bhts->bht" (%v20) : (tensor<8x4x64x64xf32>) -> tensor<8x4x64xf32>
  %v22 = weft.map sub "bhts,bht->bhts" (%v20, %v21) : (tensor<8x4x64x64xf32>, tensor<8x4x64xf32>) -> tensor<8x4x64x64xf32>
  %v23 = weft.map exp "bhts->bhts" (%v22) : (tensor<8x4x64x64xf32>) -> tensor<8x4x64x64xf32>
  %v24 = weft.reduce sum "bhts->bht" (%v23) : (tensor<8x4x64x64xf32>) -> tensor<8x4x64xf32>
  %v25 = weft.map div "bhts,bht->bhts" (%v23, %v24) : (tensor<8x4x64x64xf32>, tensor<8x4x64xf32>) -> tensor<8x4x64x64xf32>
  %v26 = weft.einsum "bhts,bhsk->bhtk" (%v25, %v17) : (tensor<8x4x64x64xf32>, tensor<8x4x64x32xf32>) -> tensor<8x4x64x32xf32>
  %v27 = weft.einsum "bhtk,hkd->btd" (%v26, %Wo) : (tensor<8x4x64x32xf32>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>) -> tensor<8x64x128xf32>
  %s28 = weft.shard %v27 : tensor<8x64x128xf32> -> tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  %v29 = weft.map add "btd,btd->btd" (%x, %s28) : (tensor<8x64x128xf32>, tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) -> tensor<8x64x128xf32>
  // MLP (f split on model).
  %v30 = weft.map square "btd->btd" (%v29) : (tensor<8x64x128xf32>) -> tensor<8x64x128xf32>
  %v31 = weft.reduce sum "btd->bt" (%v30) : (tensor<8x64x128xf32>) -> tensor<8x64xf32>
  %v32 = weft.map scale "bt->bt" (%v31) {scalar = 0.0078125 : f64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v33 = weft.map shift "bt->bt" (%v32) {scalar = 1.0e-05 : f64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v34 = weft.map rsqrt "bt->bt" (%v33) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v35 = weft.map mul "btd,bt->btd" (%v29, %v34) : (tensor<8x64x128xf32>, tensor<8x64xf32>) -> tensor<8x64x128xf32>
  %s36 = weft.shard %v35 : tensor<8x64x128xf32> -> tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  %v37 = weft.einsum "btd,df->btf" (%s36, %W1) : (tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x64x512xf32>
  %v38 = weft.map gelu "btf->btf" (%v37) : (tensor<8x64x512xf32>) -> tensor<8x64x512xf32>
  %v39 = weft.einsum "btf,fd->btd" (%v38, %W2) : (tensor<8x64x512xf32>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %s40 = weft.shard %v39 : tensor<8x64x128xf32> -> tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  %v41 = weft.map add "btd,btd->btd" (%v29, %s40) : (tensor<8x64x128xf32>, tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) -> tensor<8x64x128xf32>
  return %v41 : tensor<8x64x128xf32>
}

func.func @t2_lm(
    %tokens: tensor<8x64xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "tokens"},
    %labels: tensor<8x64xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "labels"},
    %E: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "E"},
    %P: tensor<64x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "P"},
    %Wq_0: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_0"},
    %Wk_0: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_0"},
    %Wv_0: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_0"},
    %Wo_0: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_0"},
    %W1_0: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_0"},
    %W2_0: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_0"},
    %Wq_1: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_1"},
    %Wq_2: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_2"},
    %Wq_3: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_3"},
    %Wq_4: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_4"},
    %Wq_5: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_5"},
    %Wq_6: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_6"},
    %Wq_7: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_7"},
    %Wq_8: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_8"},
    %Wq_9: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_9"},
    %Wq_10: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_10"},
    %Wq_11: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_11"},
    %Wk_1: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_1"},
    %Wk_2: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_2"},
    %Wk_3: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_3"},
    %Wk_4: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_4"},
    %Wk_5: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_5"},
    %Wk_6: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_6"},
    %Wk_7: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_7"},
    %Wk_8: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_8"},
    %Wk_9: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_9"},
    %Wk_10: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_10"},
    %Wk_11: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_11"},
    %Wv_1: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_1"},
    %Wv_2: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_2"},
    %Wv_3: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_3"},
    %Wv_4: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_4"},
    %Wv_5: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_5"},
    %Wv_6: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_6"},
    %Wv_7: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_7"},
    %Wv_8: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_8"},
    %Wv_9: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_9"},
    %Wv_10: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_10"},
    %Wv_11: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_11"},
    %Wo_1: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_1"},
    %Wo_2: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_2"},
    %Wo_3: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_3"},
    %Wo_4: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_4"},
    %Wo_5: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_5"},
    %Wo_6: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_6"},
    %Wo_7: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_7"},
    %Wo_8: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_8"},
    %Wo_9: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_9"},
    %Wo_10: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_10"},
    %Wo_11: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_11"},
    %W1_1: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_1"},
    %W1_2: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_2"},
    %W1_3: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_3"},
    %W1_4: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_4"},
    %W1_5: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_5"},
    %W1_6: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_6"},
    %W1_7: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_7"},
    %W1_8: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_8"},
    %W1_9: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_9"},
    %W1_10: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_10"},
    %W1_11: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_11"},
    %W2_1: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_1"},
    %W2_2: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_2"},
    %W2_3: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_3"},
    %W2_4: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_4"},
    %W2_5: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_5"},
    %W2_6: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_6"},
    %W2_7: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_7"},
    %W2_8: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_8"},
    %W2_9: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_9"},
    %W2_10: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_10"},
    %W2_11: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_11"},
    %Wout: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "Wout"})
    -> (tensor<f32> {weft.name = "loss"}) {
  // Embedding: the vocabulary-split lookup is a partial sum over model,
  // reduce-scattered to the sequence-parallel layout (t split on model).
  %v1 = weft.embed "bt,vd->btd" (%tokens, %E) : (tensor<8x64xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %s2 = weft.shard %v1 : tensor<8x64x128xf32> -> tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  %v3 = weft.map add "btd,td->btd" (%s2, %P) : (tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  // Causal mask from iota: 0 where s <= t, -1e9 elsewhere.
  %v4 = weft.iota : tensor<64xf32>
  %v5 = weft.map ge "t,s->ts" (%v4, %v4) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %v6 = weft.map shift "ts->ts" (%v5) {scalar = -1.0 : f64} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %v7 = weft.map scale "ts->ts" (%v6) {scalar = 1000000000.0 : f64} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  // The layers: one call each, with that layer's weights.
  %x1 = func.call @layer(%v3, %v7, %Wq_0, %Wk_0, %Wv_0, %Wo_0, %W1_0, %W2_0) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x2 = func.call @layer(%x1, %v7, %Wq_1, %Wk_1, %Wv_1, %Wo_1, %W1_1, %W2_1) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x3 = func.call @layer(%x2, %v7, %Wq_2, %Wk_2, %Wv_2, %Wo_2, %W1_2, %W2_2) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x4 = func.call @layer(%x3, %v7, %Wq_3, %Wk_3, %Wv_3, %Wo_3, %W1_3, %W2_3) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x5 = func.call @layer(%x4, %v7, %Wq_4, %Wk_4, %Wv_4, %Wo_4, %W1_4, %W2_4) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x6 = func.call @layer(%x5, %v7, %Wq_5, %Wk_5, %Wv_5, %Wo_5, %W1_5, %W2_5) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x7 = func.call @layer(%x6, %v7, %Wq_6, %Wk_6, %Wv_6, %Wo_6, %W1_6, %W2_6) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x8 = func.call @layer(%x7, %v7, %Wq_7, %Wk_7, %Wv_7, %Wo_7, %W1_7, %W2_7) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x9 = func.call @layer(%x8, %v7, %Wq_8, %Wk_8, %Wv_8, %Wo_8, %W1_8, %W2_8) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x10 = func.call @layer(%x9, %v7, %Wq_9, %Wk_9, %Wv_9, %Wo_9, %W1_9, %W2_9) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x11 = func.call @layer(%x10, %v7, %Wq_10, %Wk_10, %Wv_10, %Wo_10, %W1_10, %W2_10) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x12 = func.call @layer(%x11, %v7, %Wq_11, %Wk_11, %Wv_11, %Wo_11, %W1_11, %W2_11) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  // Vocabulary-parallel output and cross-entropy: logits split v on model;
  // the max, the sum of exponentials and the target logit are [b, t]
  // partials over model; one_hot of the labels writes each rank's columns.
  %v76 = weft.map square "btd->btd" (%x12) : (tensor<8x64x128xf32>) -> tensor<8x64x128xf32>
  %v77 = weft.reduce sum "btd->bt" (%v76) : (tensor<8x64x128xf32>) -> tensor<8x64xf32>
  %v78 = weft.map scale "bt->bt" (%v77) {scalar = 0.0078125 : f64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v79 = weft.map shift "bt->bt" (%v78) {scalar = 1.0e-05 : f64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v80 = weft.map rsqrt "bt->bt" (%v79) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v81 = weft.map mul "btd,bt->btd" (%x12, %v80) : (tensor<8x64x128xf32>, tensor<8x64xf32>) -> tensor<8x64x128xf32>
  %s82 = weft.shard %v81 : tensor<8x64x128xf32> -> tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  %v83 = weft.einsum "btd,dv->btv" (%s82, %Wout) : (tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x64x512xf32>
  %v84 = weft.reduce max "btv->bt" (%v83) : (tensor<8x64x512xf32>) -> tensor<8x64xf32>
  %v85 = weft.map sub "btv,bt->btv" (%v83, %v84) : (tensor<8x64x512xf32>, tensor<8x64xf32>) -> tensor<8x64x512xf32>
  %v86 = weft.map exp "btv->btv" (%v85) : (tensor<8x64x512xf32>) -> tensor<8x64x512xf32>
  %v87 = weft.reduce sum "btv->bt" (%v86) : (tensor<8x64x512xf32>) -> tensor<8x64xf32>
  %v88 = weft.map log "bt->bt" (%v87) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v89 = weft.one_hot "bt->btv" (%labels) : (tensor<8x64xi32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<8x64x512xf32>
  %v90 = weft.map mul "btv,btv->btv" (%v85, %v89) : (tensor<8x64x512xf32>, tensor<8x64x512xf32>) -> tensor<8x64x512xf32>
  %v91 = weft.reduce sum "btv->bt" (%v90) : (tensor<8x64x512xf32>) -> tensor<8x64xf32>
  %v92 = weft.map sub "bt,bt->bt" (%v88, %v91) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %v93 = weft.reduce sum "bt->" (%v92) : (tensor<8x64xf32>) -> tensor<f32>
  %v94 = weft.map scale "->" (%v93) {scalar = 0.001953125 : f64} : (tensor<f32>) -> tensor<f32>
  return %v94 : tensor<f32>
}

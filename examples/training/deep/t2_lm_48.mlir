// weftc: --train=adamw --lr 3e-3
// T2's language model (examples/training/t2_lm_layers.mlir) at 48 layers:
// its layer function @layer called 48 times, each call with its own
// weights (written by bench/compile/gen_lm.py --calls 48; t2_data.py
// --layers 48 writes its inputs). weftc propagates three of the calls and
// gives the 46 middle ones the second call's plan (weft-plan-layers,
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
    %Wq_12: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_12"},
    %Wq_13: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_13"},
    %Wq_14: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_14"},
    %Wq_15: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_15"},
    %Wq_16: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_16"},
    %Wq_17: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_17"},
    %Wq_18: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_18"},
    %Wq_19: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_19"},
    %Wq_20: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_20"},
    %Wq_21: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_21"},
    %Wq_22: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_22"},
    %Wq_23: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_23"},
    %Wq_24: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_24"},
    %Wq_25: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_25"},
    %Wq_26: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_26"},
    %Wq_27: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_27"},
    %Wq_28: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_28"},
    %Wq_29: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_29"},
    %Wq_30: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_30"},
    %Wq_31: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_31"},
    %Wq_32: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_32"},
    %Wq_33: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_33"},
    %Wq_34: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_34"},
    %Wq_35: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_35"},
    %Wq_36: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_36"},
    %Wq_37: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_37"},
    %Wq_38: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_38"},
    %Wq_39: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_39"},
    %Wq_40: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_40"},
    %Wq_41: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_41"},
    %Wq_42: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_42"},
    %Wq_43: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_43"},
    %Wq_44: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_44"},
    %Wq_45: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_45"},
    %Wq_46: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_46"},
    %Wq_47: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wq_47"},
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
    %Wk_12: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_12"},
    %Wk_13: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_13"},
    %Wk_14: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_14"},
    %Wk_15: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_15"},
    %Wk_16: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_16"},
    %Wk_17: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_17"},
    %Wk_18: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_18"},
    %Wk_19: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_19"},
    %Wk_20: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_20"},
    %Wk_21: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_21"},
    %Wk_22: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_22"},
    %Wk_23: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_23"},
    %Wk_24: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_24"},
    %Wk_25: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_25"},
    %Wk_26: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_26"},
    %Wk_27: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_27"},
    %Wk_28: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_28"},
    %Wk_29: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_29"},
    %Wk_30: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_30"},
    %Wk_31: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_31"},
    %Wk_32: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_32"},
    %Wk_33: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_33"},
    %Wk_34: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_34"},
    %Wk_35: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_35"},
    %Wk_36: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_36"},
    %Wk_37: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_37"},
    %Wk_38: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_38"},
    %Wk_39: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_39"},
    %Wk_40: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_40"},
    %Wk_41: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_41"},
    %Wk_42: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_42"},
    %Wk_43: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_43"},
    %Wk_44: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_44"},
    %Wk_45: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_45"},
    %Wk_46: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_46"},
    %Wk_47: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wk_47"},
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
    %Wv_12: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_12"},
    %Wv_13: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_13"},
    %Wv_14: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_14"},
    %Wv_15: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_15"},
    %Wv_16: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_16"},
    %Wv_17: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_17"},
    %Wv_18: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_18"},
    %Wv_19: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_19"},
    %Wv_20: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_20"},
    %Wv_21: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_21"},
    %Wv_22: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_22"},
    %Wv_23: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_23"},
    %Wv_24: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_24"},
    %Wv_25: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_25"},
    %Wv_26: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_26"},
    %Wv_27: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_27"},
    %Wv_28: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_28"},
    %Wv_29: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_29"},
    %Wv_30: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_30"},
    %Wv_31: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_31"},
    %Wv_32: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_32"},
    %Wv_33: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_33"},
    %Wv_34: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_34"},
    %Wv_35: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_35"},
    %Wv_36: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_36"},
    %Wv_37: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_37"},
    %Wv_38: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_38"},
    %Wv_39: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_39"},
    %Wv_40: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_40"},
    %Wv_41: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_41"},
    %Wv_42: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_42"},
    %Wv_43: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_43"},
    %Wv_44: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_44"},
    %Wv_45: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_45"},
    %Wv_46: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_46"},
    %Wv_47: tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {weft.param, weft.name = "Wv_47"},
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
    %Wo_12: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_12"},
    %Wo_13: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_13"},
    %Wo_14: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_14"},
    %Wo_15: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_15"},
    %Wo_16: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_16"},
    %Wo_17: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_17"},
    %Wo_18: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_18"},
    %Wo_19: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_19"},
    %Wo_20: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_20"},
    %Wo_21: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_21"},
    %Wo_22: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_22"},
    %Wo_23: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_23"},
    %Wo_24: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_24"},
    %Wo_25: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_25"},
    %Wo_26: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_26"},
    %Wo_27: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_27"},
    %Wo_28: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_28"},
    %Wo_29: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_29"},
    %Wo_30: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_30"},
    %Wo_31: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_31"},
    %Wo_32: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_32"},
    %Wo_33: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_33"},
    %Wo_34: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_34"},
    %Wo_35: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_35"},
    %Wo_36: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_36"},
    %Wo_37: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_37"},
    %Wo_38: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_38"},
    %Wo_39: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_39"},
    %Wo_40: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_40"},
    %Wo_41: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_41"},
    %Wo_42: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_42"},
    %Wo_43: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_43"},
    %Wo_44: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_44"},
    %Wo_45: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_45"},
    %Wo_46: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_46"},
    %Wo_47: tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {weft.param, weft.name = "Wo_47"},
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
    %W1_12: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_12"},
    %W1_13: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_13"},
    %W1_14: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_14"},
    %W1_15: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_15"},
    %W1_16: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_16"},
    %W1_17: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_17"},
    %W1_18: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_18"},
    %W1_19: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_19"},
    %W1_20: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_20"},
    %W1_21: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_21"},
    %W1_22: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_22"},
    %W1_23: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_23"},
    %W1_24: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_24"},
    %W1_25: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_25"},
    %W1_26: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_26"},
    %W1_27: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_27"},
    %W1_28: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_28"},
    %W1_29: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_29"},
    %W1_30: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_30"},
    %W1_31: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_31"},
    %W1_32: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_32"},
    %W1_33: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_33"},
    %W1_34: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_34"},
    %W1_35: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_35"},
    %W1_36: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_36"},
    %W1_37: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_37"},
    %W1_38: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_38"},
    %W1_39: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_39"},
    %W1_40: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_40"},
    %W1_41: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_41"},
    %W1_42: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_42"},
    %W1_43: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_43"},
    %W1_44: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_44"},
    %W1_45: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_45"},
    %W1_46: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_46"},
    %W1_47: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1_47"},
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
    %W2_12: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_12"},
    %W2_13: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_13"},
    %W2_14: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_14"},
    %W2_15: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_15"},
    %W2_16: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_16"},
    %W2_17: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_17"},
    %W2_18: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_18"},
    %W2_19: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_19"},
    %W2_20: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_20"},
    %W2_21: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_21"},
    %W2_22: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_22"},
    %W2_23: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_23"},
    %W2_24: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_24"},
    %W2_25: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_25"},
    %W2_26: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_26"},
    %W2_27: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_27"},
    %W2_28: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_28"},
    %W2_29: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_29"},
    %W2_30: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_30"},
    %W2_31: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_31"},
    %W2_32: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_32"},
    %W2_33: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_33"},
    %W2_34: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_34"},
    %W2_35: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_35"},
    %W2_36: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_36"},
    %W2_37: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_37"},
    %W2_38: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_38"},
    %W2_39: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_39"},
    %W2_40: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_40"},
    %W2_41: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_41"},
    %W2_42: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_42"},
    %W2_43: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_43"},
    %W2_44: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_44"},
    %W2_45: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_45"},
    %W2_46: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_46"},
    %W2_47: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2_47"},
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
  %x13 = func.call @layer(%x12, %v7, %Wq_12, %Wk_12, %Wv_12, %Wo_12, %W1_12, %W2_12) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x14 = func.call @layer(%x13, %v7, %Wq_13, %Wk_13, %Wv_13, %Wo_13, %W1_13, %W2_13) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x15 = func.call @layer(%x14, %v7, %Wq_14, %Wk_14, %Wv_14, %Wo_14, %W1_14, %W2_14) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x16 = func.call @layer(%x15, %v7, %Wq_15, %Wk_15, %Wv_15, %Wo_15, %W1_15, %W2_15) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x17 = func.call @layer(%x16, %v7, %Wq_16, %Wk_16, %Wv_16, %Wo_16, %W1_16, %W2_16) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x18 = func.call @layer(%x17, %v7, %Wq_17, %Wk_17, %Wv_17, %Wo_17, %W1_17, %W2_17) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x19 = func.call @layer(%x18, %v7, %Wq_18, %Wk_18, %Wv_18, %Wo_18, %W1_18, %W2_18) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x20 = func.call @layer(%x19, %v7, %Wq_19, %Wk_19, %Wv_19, %Wo_19, %W1_19, %W2_19) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x21 = func.call @layer(%x20, %v7, %Wq_20, %Wk_20, %Wv_20, %Wo_20, %W1_20, %W2_20) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x22 = func.call @layer(%x21, %v7, %Wq_21, %Wk_21, %Wv_21, %Wo_21, %W1_21, %W2_21) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x23 = func.call @layer(%x22, %v7, %Wq_22, %Wk_22, %Wv_22, %Wo_22, %W1_22, %W2_22) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x24 = func.call @layer(%x23, %v7, %Wq_23, %Wk_23, %Wv_23, %Wo_23, %W1_23, %W2_23) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x25 = func.call @layer(%x24, %v7, %Wq_24, %Wk_24, %Wv_24, %Wo_24, %W1_24, %W2_24) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x26 = func.call @layer(%x25, %v7, %Wq_25, %Wk_25, %Wv_25, %Wo_25, %W1_25, %W2_25) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x27 = func.call @layer(%x26, %v7, %Wq_26, %Wk_26, %Wv_26, %Wo_26, %W1_26, %W2_26) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x28 = func.call @layer(%x27, %v7, %Wq_27, %Wk_27, %Wv_27, %Wo_27, %W1_27, %W2_27) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x29 = func.call @layer(%x28, %v7, %Wq_28, %Wk_28, %Wv_28, %Wo_28, %W1_28, %W2_28) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x30 = func.call @layer(%x29, %v7, %Wq_29, %Wk_29, %Wv_29, %Wo_29, %W1_29, %W2_29) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x31 = func.call @layer(%x30, %v7, %Wq_30, %Wk_30, %Wv_30, %Wo_30, %W1_30, %W2_30) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x32 = func.call @layer(%x31, %v7, %Wq_31, %Wk_31, %Wv_31, %Wo_31, %W1_31, %W2_31) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x33 = func.call @layer(%x32, %v7, %Wq_32, %Wk_32, %Wv_32, %Wo_32, %W1_32, %W2_32) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x34 = func.call @layer(%x33, %v7, %Wq_33, %Wk_33, %Wv_33, %Wo_33, %W1_33, %W2_33) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x35 = func.call @layer(%x34, %v7, %Wq_34, %Wk_34, %Wv_34, %Wo_34, %W1_34, %W2_34) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x36 = func.call @layer(%x35, %v7, %Wq_35, %Wk_35, %Wv_35, %Wo_35, %W1_35, %W2_35) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x37 = func.call @layer(%x36, %v7, %Wq_36, %Wk_36, %Wv_36, %Wo_36, %W1_36, %W2_36) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x38 = func.call @layer(%x37, %v7, %Wq_37, %Wk_37, %Wv_37, %Wo_37, %W1_37, %W2_37) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x39 = func.call @layer(%x38, %v7, %Wq_38, %Wk_38, %Wv_38, %Wo_38, %W1_38, %W2_38) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x40 = func.call @layer(%x39, %v7, %Wq_39, %Wk_39, %Wv_39, %Wo_39, %W1_39, %W2_39) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x41 = func.call @layer(%x40, %v7, %Wq_40, %Wk_40, %Wv_40, %Wo_40, %W1_40, %W2_40) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x42 = func.call @layer(%x41, %v7, %Wq_41, %Wk_41, %Wv_41, %Wo_41, %W1_41, %W2_41) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x43 = func.call @layer(%x42, %v7, %Wq_42, %Wk_42, %Wv_42, %Wo_42, %W1_42, %W2_42) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x44 = func.call @layer(%x43, %v7, %Wq_43, %Wk_43, %Wv_43, %Wo_43, %W1_43, %W2_43) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x45 = func.call @layer(%x44, %v7, %Wq_44, %Wk_44, %Wv_44, %Wo_44, %W1_44, %W2_44) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x46 = func.call @layer(%x45, %v7, %Wq_45, %Wk_45, %Wv_45, %Wo_45, %W1_45, %W2_45) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x47 = func.call @layer(%x46, %v7, %Wq_46, %Wk_46, %Wv_46, %Wo_46, %W1_46, %W2_46) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  %x48 = func.call @layer(%x47, %v7, %Wq_47, %Wk_47, %Wv_47, %Wo_47, %W1_47, %W2_47) : (tensor<8x64x128xf32>, tensor<64x64xf32>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x4x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x32x128xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x64x128xf32>
  // Vocabulary-parallel output and cross-entropy: logits split v on model;
  // the max, the sum of exponentials and the target logit are [b, t]
  // partials over model; one_hot of the labels writes each rank's columns.
  %v76 = weft.map square "btd->btd" (%x48) : (tensor<8x64x128xf32>) -> tensor<8x64x128xf32>
  %v77 = weft.reduce sum "btd->bt" (%v76) : (tensor<8x64x128xf32>) -> tensor<8x64xf32>
  %v78 = weft.map scale "bt->bt" (%v77) {scalar = 0.0078125 : f64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v79 = weft.map shift "bt->bt" (%v78) {scalar = 1.0e-05 : f64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v80 = weft.map rsqrt "bt->bt" (%v79) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %v81 = weft.map mul "btd,bt->btd" (%x48, %v80) : (tensor<8x64x128xf32>, tensor<8x64xf32>) -> tensor<8x64x128xf32>
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

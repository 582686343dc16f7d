// A GShard MoE layer with its router in the program (issue 12): top-2
// gating (Lepikhin et al. 2020, Algorithm 2, without the random second
// choice), capacity by cumulative sums, dispatch and combine masks computed
// here, experts as P10. Everything the router needs is written with the
// existing ops: argmax over e as a min of masked expert indices (iota), the
// one-hots as comparisons with iota, each token's position among its
// expert's tokens as an exclusive weft.cumsum over s (GShard's TPU code
// multiplies by a causal 0/1 matrix instead: O(s^2)).
// mesh data=4: x[g=8,s=32,m=64] split g on data, the router weights wg[m,e=8]
// replicated, w_in[e,m,h=128] and w_out[e,h,m] split e on data, capacity
// c=8 per group and expert.
// Minimum: the router runs on each rank's groups (g split) with no
// communication; then P10's two all-to-alls (g split -> e split before the
// experts, back after): 2 x (8*8*8*64*4 B / 4 ranks) * 3/4 = 48 KiB.

weft.mesh @mesh ["data" = 4]

func.func @moe_router(%x: tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "x"},
    %wg: tensor<64x8xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.name = "wg"},
    %w_in: tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "w_in"},
    %w_out: tensor<8x128x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "w_out"})
    -> (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "y"}, tensor<8x32x8x8xf32> {weft.name = "combine"}) {
  // router: gates = softmax_e(x . wg)
  %logits = weft.einsum "gsm,me->gse" (%x, %wg)
      : (tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x8xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x32x8xf32>
  %lmax = weft.reduce max "gse->gs" (%logits)
      : (tensor<8x32x8xf32>) -> tensor<8x32xf32>
  %lsub = weft.map sub "gse,gs->gse" (%logits, %lmax)
      : (tensor<8x32x8xf32>, tensor<8x32xf32>) -> tensor<8x32x8xf32>
  %lexp = weft.map exp "gse->gse" (%lsub)
      : (tensor<8x32x8xf32>) -> tensor<8x32x8xf32>
  %lsum = weft.reduce sum "gse->gs" (%lexp)
      : (tensor<8x32x8xf32>) -> tensor<8x32xf32>
  %gates = weft.map div "gse,gs->gse" (%lexp, %lsum)
      : (tensor<8x32x8xf32>, tensor<8x32xf32>) -> tensor<8x32x8xf32>
  // expert and slot indices
  %ie = weft.iota : tensor<8xf32>
  %ic = weft.iota : tensor<8xf32>
  %ieE = weft.map shift "e->e" (%ie) {scalar = -8.000000e+00 : f64}
      : (tensor<8xf32>) -> tensor<8xf32>
  // top-1: argmax over e = min over e of (e - E where the value is the max, else 0) + E
  %top1_max = weft.reduce max "gse->gs" (%gates)
      : (tensor<8x32x8xf32>) -> tensor<8x32xf32>
  %top1_eq = weft.map eq "gse,gs->gse" (%gates, %top1_max)
      : (tensor<8x32x8xf32>, tensor<8x32xf32>) -> tensor<8x32x8xf32>
  %top1_c = weft.map mul "gse,e->gse" (%top1_eq, %ieE)
      : (tensor<8x32x8xf32>, tensor<8xf32>) -> tensor<8x32x8xf32>
  %top1_m = weft.reduce min "gse->gs" (%top1_c)
      : (tensor<8x32x8xf32>) -> tensor<8x32xf32>
  %top1_idx = weft.map shift "gs->gs" (%top1_m) {scalar = 8.000000e+00 : f64}
      : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %top1_mask = weft.map eq "gs,e->gse" (%top1_idx, %ie)
      : (tensor<8x32xf32>, tensor<8xf32>) -> tensor<8x32x8xf32>
  %g1 = weft.einsum "gse,gse->gs" (%gates, %top1_mask)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32xf32>
  // gates without the first choice
  %gm1 = weft.map mul "gse,gse->gse" (%gates, %top1_mask)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32x8xf32>
  %gates2 = weft.map sub "gse,gse->gse" (%gates, %gm1)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32x8xf32>
  // top-2: argmax over e = min over e of (e - E where the value is the max, else 0) + E
  %top2_max = weft.reduce max "gse->gs" (%gates2)
      : (tensor<8x32x8xf32>) -> tensor<8x32xf32>
  %top2_eq = weft.map eq "gse,gs->gse" (%gates2, %top2_max)
      : (tensor<8x32x8xf32>, tensor<8x32xf32>) -> tensor<8x32x8xf32>
  %top2_c = weft.map mul "gse,e->gse" (%top2_eq, %ieE)
      : (tensor<8x32x8xf32>, tensor<8xf32>) -> tensor<8x32x8xf32>
  %top2_m = weft.reduce min "gse->gs" (%top2_c)
      : (tensor<8x32x8xf32>) -> tensor<8x32xf32>
  %top2_idx = weft.map shift "gs->gs" (%top2_m) {scalar = 8.000000e+00 : f64}
      : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %top2_mask = weft.map eq "gs,e->gse" (%top2_idx, %ie)
      : (tensor<8x32xf32>, tensor<8xf32>) -> tensor<8x32x8xf32>
  %g2 = weft.einsum "gse,gse->gs" (%gates2, %top2_mask)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32xf32>
  // normalize the two gates
  %den0 = weft.map add "gs,gs->gs" (%g1, %g2)
      : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %den = weft.map shift "gs->gs" (%den0) {scalar = 1.000000e-09 : f64}
      : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %g1n = weft.map div "gs,gs->gs" (%g1, %den)
      : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %g2n = weft.map div "gs,gs->gs" (%g2, %den)
      : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  // capacity: positions by exclusive cumulative sums over s (first choices
  // first)
  %pos1 = weft.cumsum %top1_mask dim 1 exclusive
      : tensor<8x32x8xf32> -> tensor<8x32x8xf32>
  %cap = weft.constant 8.0 : tensor<f32>
  %fit1 = weft.map lt "gse,->gse" (%pos1, %cap)
      : (tensor<8x32x8xf32>, tensor<f32>) -> tensor<8x32x8xf32>
  %keep1 = weft.map mul "gse,gse->gse" (%top1_mask, %fit1)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32x8xf32>
  %count1 = weft.reduce sum "gse->ge" (%keep1)
      : (tensor<8x32x8xf32>) -> tensor<8x8xf32>
  %pos2a = weft.cumsum %top2_mask dim 1 exclusive
      : tensor<8x32x8xf32> -> tensor<8x32x8xf32>
  %pos2 = weft.map add "gse,ge->gse" (%pos2a, %count1)
      : (tensor<8x32x8xf32>, tensor<8x8xf32>) -> tensor<8x32x8xf32>
  %fit2 = weft.map lt "gse,->gse" (%pos2, %cap)
      : (tensor<8x32x8xf32>, tensor<f32>) -> tensor<8x32x8xf32>
  %keep2 = weft.map mul "gse,gse->gse" (%top2_mask, %fit2)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32x8xf32>
  // each token's slot; combine = gate x expert one-hot x slot one-hot
  %slot1 = weft.einsum "gse,gse->gs" (%pos1, %keep1)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32xf32>
  %slot2 = weft.einsum "gse,gse->gs" (%pos2, %keep2)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32xf32>
  %oc1 = weft.map eq "gs,c->gsc" (%slot1, %ic)
      : (tensor<8x32xf32>, tensor<8xf32>) -> tensor<8x32x8xf32>
  %oc2 = weft.map eq "gs,c->gsc" (%slot2, %ic)
      : (tensor<8x32xf32>, tensor<8xf32>) -> tensor<8x32x8xf32>
  %w1 = weft.map mul "gse,gs->gse" (%keep1, %g1n)
      : (tensor<8x32x8xf32>, tensor<8x32xf32>) -> tensor<8x32x8xf32>
  %w2 = weft.map mul "gse,gs->gse" (%keep2, %g2n)
      : (tensor<8x32x8xf32>, tensor<8x32xf32>) -> tensor<8x32x8xf32>
  %cb1 = weft.einsum "gse,gsc->gsec" (%w1, %oc1)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32x8x8xf32>
  %cb2 = weft.einsum "gse,gsc->gsec" (%w2, %oc2)
      : (tensor<8x32x8xf32>, tensor<8x32x8xf32>) -> tensor<8x32x8x8xf32>
  %combine = weft.map add "gsec,gsec->gsec" (%cb1, %cb2)
      : (tensor<8x32x8x8xf32>, tensor<8x32x8x8xf32>) -> tensor<8x32x8x8xf32>
  %zero = weft.constant 0.0 : tensor<f32>
  %dispatch = weft.map gt "gsec,->gsec" (%combine, %zero)
      : (tensor<8x32x8x8xf32>, tensor<f32>) -> tensor<8x32x8x8xf32>
  // experts as P10: all-to-all to e split, back to g split
  %xe = weft.einsum "gsec,gsm->egcm" (%dispatch, %x)
      : (tensor<8x32x8x8xf32>, tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<8x8x8x64xf32>
  %hh = weft.einsum "egcm,emh->egch" (%xe, %w_in)
      : (tensor<8x8x8x64xf32>, tensor<8x64x128xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<8x8x8x128xf32>
  %act = weft.map relu "egch->egch" (%hh)
      : (tensor<8x8x8x128xf32>) -> tensor<8x8x8x128xf32>
  %o = weft.einsum "egch,ehm->egcm" (%act, %w_out)
      : (tensor<8x8x8x128xf32>, tensor<8x128x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<8x8x8x64xf32>
  %y = weft.einsum "egcm,gsec->gsm" (%o, %combine)
      : (tensor<8x8x8x64xf32>, tensor<8x32x8x8xf32>) -> tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  return %y, %combine : tensor<8x32x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<8x32x8x8xf32>
}

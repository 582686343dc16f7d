// --weft-fuse-rows on the local view (mesh model=2): softmax, RMSNorm with
// its weight, LayerNorm and log-sum-exp each become one weft.fused_rows;
// a norm whose row letter is split keeps its all-reduce between the fused
// square+sum and the maps after it; what never fuses (docs/fusion.md). The
// fused program equals the global one (weft-interp, the unfused oracle),
// and fusion changes no collective.
// RUN: weft-opt %s --weft-propagate --weft-partition -o %t.local.mlir
// RUN: weft-opt %t.local.mlir --weft-fuse-rows -o %t.fused.mlir
// -debug-only=weft-fuse-rows traces its decisions (docs/design.md, "Tracing").
// RUN: weft-opt %t.local.mlir --weft-fuse-rows -debug-only=weft-fuse-rows -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE: [weft-fuse-rows] {{[0-9]+}} ops -> weft.fused_rows "{{.*}}" rows "{{.*}}" at loc(
// RUN: FileCheck %s < %t.fused.mlir
// RUN: weft-interp %s --func=softmax --compare %t.fused.mlir --local-func=softmax | FileCheck %s --check-prefix=CMP
// RUN: weft-interp %s --func=rmsnorm --compare %t.fused.mlir --local-func=rmsnorm | FileCheck %s --check-prefix=CMP
// RUN: weft-interp %s --func=layernorm --compare %t.fused.mlir --local-func=layernorm | FileCheck %s --check-prefix=CMP
// RUN: weft-interp %s --func=logsumexp --compare %t.fused.mlir --local-func=logsumexp | FileCheck %s --check-prefix=CMP
// RUN: weft-interp %s --func=split_norm --compare %t.fused.mlir --local-func=split_norm | FileCheck %s --check-prefix=CMP
// RUN: weft-interp %s --func=unfusable --compare %t.fused.mlir --local-func=unfusable | FileCheck %s --check-prefix=CMP2
// CMP: compare: 1 of 1 result(s) match
// CMP2: compare: 3 of 3 result(s) match
// RUN: grep -c "weft.all_reduce" %t.local.mlir > %t.before
// RUN: grep -c "weft.all_reduce" %t.fused.mlir | diff - %t.before
// Idempotent: a second run finds nothing more to fuse.
// RUN: weft-opt %t.fused.mlir --weft-fuse-rows | diff - %t.fused.mlir

// Softmax over s, heads split: max, subtract, exp, sum, divide in one op
// (exp is read by the sum and the divide, both members).
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: %[[P:.*]] = weft.fused_rows "bhts->bhts" rows "s" (%arg0) steps "s0 = row_max(in0); s1 = sub(in0, s0); s2 = exp(s1); s3 = row_sum(s2); s4 = div(s2, s3)" : (tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK-NEXT: return %[[P]]
weft.mesh @mesh ["model" = 2]

func.func @softmax(%x: tensor<2x4x8x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>)
    -> tensor<2x4x8x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>> {
  %m = weft.reduce max "bhts->bht" (%x) : (tensor<2x4x8x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>) -> tensor<2x4x8xf32>
  %d = weft.map sub "bhts,bht->bhts" (%x, %m) : (tensor<2x4x8x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>, tensor<2x4x8xf32>) -> tensor<2x4x8x8xf32>
  %e = weft.map exp "bhts->bhts" (%d) : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %z = weft.reduce sum "bhts->bht" (%e) : (tensor<2x4x8x8xf32>) -> tensor<2x4x8xf32>
  %p = weft.map div "bhts,bht->bhts" (%e, %z) : (tensor<2x4x8x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>
  return %p : tensor<2x4x8x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}, {}]>>
}

// RMSNorm and its weight (a `d` operand of rows `d`: full, broadcast along
// b and t): one op reading x once.
// CHECK-LABEL: func.func @rmsnorm
// CHECK-NEXT: %[[N:.*]] = weft.fused_rows "btd,d->btd" rows "d" (%arg0, %arg1) steps "s0 = square(in0); s1 = row_sum(s0); s2 = scale(s1, 0.0625); s3 = shift(s2, 1.0000000000000001e-05); s4 = rsqrt(s3); s5 = mul(in0, s4); s6 = mul(s5, in1)"
// CHECK-NEXT: return %[[N]]
func.func @rmsnorm(%x: tensor<2x8x16xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>,
    %g: tensor<16xf32, #weft.sharding<@mesh, [{}]>>)
    -> tensor<2x8x16xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>> {
  %sq = weft.map square "btd->btd" (%x) : (tensor<2x8x16xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>) -> tensor<2x8x16xf32>
  %ss = weft.reduce sum "btd->bt" (%sq) : (tensor<2x8x16xf32>) -> tensor<2x8xf32>
  %ms = weft.map scale "bt->bt" (%ss) {scalar = 0.0625 : f64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %me = weft.map shift "bt->bt" (%ms) {scalar = 1.0e-5 : f64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = weft.map rsqrt "bt->bt" (%me) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %n = weft.map mul "btd,bt->btd" (%x, %r) : (tensor<2x8x16xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<2x8xf32>) -> tensor<2x8x16xf32>
  %y = weft.map mul "btd,d->btd" (%n, %g) : (tensor<2x8x16xf32>, tensor<16xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<2x8x16xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>
  return %y : tensor<2x8x16xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>
}

// LayerNorm: two reductions (the mean, then the variance of the centered
// value, which the final multiply reads too) in one op.
// CHECK-LABEL: func.func @layernorm
// CHECK-NEXT: %[[L:.*]] = weft.fused_rows "bd->bd" rows "d" (%arg0) steps "s0 = row_sum(in0); s1 = scale(s0, 0.0625); s2 = sub(in0, s1); s3 = square(s2); s4 = row_sum(s3); s5 = scale(s4, 0.0625); s6 = shift(s5, 1.0000000000000001e-05); s7 = rsqrt(s6); s8 = mul(s2, s7)"
// CHECK-NEXT: return %[[L]]
func.func @layernorm(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {
  %s = weft.reduce sum "bd->b" (%x) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8xf32>
  %mean = weft.map scale "b->b" (%s) {scalar = 0.0625 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %xc = weft.map sub "bd,b->bd" (%x, %mean) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<8xf32>) -> tensor<8x16xf32>
  %sq = weft.map square "bd->bd" (%xc) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %vs = weft.reduce sum "bd->b" (%sq) : (tensor<8x16xf32>) -> tensor<8xf32>
  %var = weft.map scale "b->b" (%vs) {scalar = 0.0625 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %ve = weft.map shift "b->b" (%var) {scalar = 1.0e-5 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %r = weft.map rsqrt "b->b" (%ve) : (tensor<8xf32>) -> tensor<8xf32>
  %y = weft.map mul "bd,b->bd" (%xc, %r) : (tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  return %y : tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
}

// Log-sum-exp: the result is a row value (letters bt, no row letter).
// CHECK-LABEL: func.func @logsumexp
// CHECK-NEXT: %[[Z:.*]] = weft.fused_rows "btv->bt" rows "v" (%arg0) steps "s0 = row_max(in0); s1 = sub(in0, s0); s2 = exp(s1); s3 = row_sum(s2); s4 = log(s3); s5 = add(s4, s0)" : (tensor<1x8x32xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: return %[[Z]]
func.func @logsumexp(%x: tensor<2x8x32xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>)
    -> tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {
  %m = weft.reduce max "btv->bt" (%x) : (tensor<2x8x32xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>) -> tensor<2x8xf32>
  %d = weft.map sub "btv,bt->btv" (%x, %m) : (tensor<2x8x32xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>, tensor<2x8xf32>) -> tensor<2x8x32xf32>
  %e = weft.map exp "btv->btv" (%d) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %s = weft.reduce sum "btv->bt" (%e) : (tensor<2x8x32xf32>) -> tensor<2x8xf32>
  %l = weft.map log "bt->bt" (%s) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %z = weft.map add "bt,bt->bt" (%l, %m) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  return %z : tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
}

// The row letter d split over model: each rank sums its half of the row,
// so square+sum fuse into a row-valued op, the all-reduce stays, and the
// maps after it are not members (they read the collective's result).
// CHECK-LABEL: func.func @split_norm
// CHECK: %[[S:.*]] = weft.fused_rows "btd->bt" rows "d" (%arg0) steps "s0 = square(in0); s1 = row_sum(s0)" : (tensor<2x8x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: weft.all_reduce sum %[[S]]
// CHECK-NOT: weft.fused_rows
// CHECK: return
func.func @split_norm(%x: tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>)
    -> tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>> {
  %sq = weft.map square "btd->btd" (%x) : (tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>) -> tensor<2x8x16xf32>
  %ss = weft.reduce sum "btd->bt" (%sq) : (tensor<2x8x16xf32>) -> tensor<2x8xf32>
  %r = weft.map rsqrt "bt->bt" (%ss) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %n = weft.map mul "btd,bt->btd" (%x, %r) : (tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>, tensor<2x8xf32>) -> tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>
  return %n : tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>
}

// Never fused: a reduction over a letter that is not trailing (t of bts),
// and an exp also returned (used outside the group: fusing it would need
// its buffer anyway), which leaves the sum and divide to fuse around it.
// CHECK-LABEL: func.func @unfusable
// CHECK: weft.reduce sum "bts->bs"
// CHECK: %[[E:.*]] = weft.map exp "bs->bs"
// CHECK-NEXT: %[[Q:.*]] = weft.fused_rows "bs->bs" rows "s" (%[[E]]) steps "s0 = row_sum(in0); s1 = div(in0, s0)"
// CHECK-NEXT: return %{{.*}}, %[[E]], %[[Q]]
func.func @unfusable(%x: tensor<2x8x8xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>)
    -> (tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
        tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
        tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) {
  %c = weft.reduce sum "bts->bs" (%x) : (tensor<2x8x8xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>) -> tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  %e = weft.map exp "bs->bs" (%c) : (tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  %z = weft.reduce sum "bs->b" (%e) : (tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2xf32>
  %q = weft.map div "bs,b->bs" (%e, %z) : (tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<2xf32>) -> tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  return %c, %e, %q : tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<2x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
}

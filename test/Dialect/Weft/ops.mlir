// Round trip of every weft op: print, parse again, print identically, in the
// custom and in the generic form.
// RUN: weft-opt %s | FileCheck %s
// RUN: weft-opt %s > %t.1.mlir && weft-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir
// RUN: weft-opt %s --mlir-print-op-generic | weft-opt | diff %t.1.mlir -

weft.mesh @mesh ["data" = 2, "model" = 4]

// CHECK-LABEL: func.func @global_ops
func.func @global_ops(%x: tensor<4x64x256xf32>, %w: tensor<256x1024xf32>,
                      %b: tensor<256xf32>, %ids: tensor<4x64xi32>,
                      %table: tensor<4096x256xf32>) -> tensor<4x64x256xf32> {
  // CHECK: weft.einsum "btd,df->btf" (%{{.*}}, %{{.*}}) : (tensor<4x64x256xf32>, tensor<256x1024xf32>) -> tensor<4x64x1024xf32>
  %h = weft.einsum "btd,df->btf" (%x, %w) : (tensor<4x64x256xf32>, tensor<256x1024xf32>) -> tensor<4x64x1024xf32>
  // One-operand einsum: a transpose.
  // CHECK: weft.einsum "df->fd" (%{{.*}}) : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
  %wt = weft.einsum "df->fd" (%w) : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
  // CHECK: weft.map gelu "btf->btf"
  %g = weft.map gelu "btf->btf" (%h) : (tensor<4x64x1024xf32>) -> tensor<4x64x1024xf32>
  // CHECK: weft.einsum "btf,fd->btd"
  %y = weft.einsum "btf,fd->btd" (%g, %wt) : (tensor<4x64x1024xf32>, tensor<1024x256xf32>) -> tensor<4x64x256xf32>
  // Broadcasting by letters.
  // CHECK: weft.map add "btd,d->btd" (%{{.*}}, %{{.*}}) : (tensor<4x64x256xf32>, tensor<256xf32>) -> tensor<4x64x256xf32>
  %yb = weft.map add "btd,d->btd" (%y, %b) : (tensor<4x64x256xf32>, tensor<256xf32>) -> tensor<4x64x256xf32>
  // CHECK: weft.map scale "btd->btd" (%{{.*}}) {scalar = 1.250000e-01 : f64}
  %s = weft.map scale "btd->btd" (%yb) {scalar = 0.125 : f64} : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  // CHECK: weft.map shift "btd->btd" (%{{.*}}) {scalar = -1.000000e+00 : f64}
  %sh = weft.map shift "btd->btd" (%s) {scalar = -1.0 : f64} : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  // CHECK: weft.reduce max "btd->bt"
  %m = weft.reduce max "btd->bt" (%sh) : (tensor<4x64x256xf32>) -> tensor<4x64xf32>
  // CHECK: weft.reduce min "btd->b"
  %mn = weft.reduce min "btd->b" (%sh) : (tensor<4x64x256xf32>) -> tensor<4xf32>
  // CHECK: weft.reduce sum "btd->"
  %all = weft.reduce sum "btd->" (%sh) : (tensor<4x64x256xf32>) -> tensor<f32>
  // CHECK: weft.map sub "btd,bt->btd"
  %d = weft.map sub "btd,bt->btd" (%sh, %m) : (tensor<4x64x256xf32>, tensor<4x64xf32>) -> tensor<4x64x256xf32>
  // CHECK: weft.embed "bt,vd->btd" (%{{.*}}, %{{.*}}) : (tensor<4x64xi32>, tensor<4096x256xf32>) -> tensor<4x64x256xf32>
  %e = weft.embed "bt,vd->btd" (%ids, %table) : (tensor<4x64xi32>, tensor<4096x256xf32>) -> tensor<4x64x256xf32>
  // CHECK: weft.shard %{{.*}} : tensor<4x64x256xf32> -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
  %c = weft.shard %e : tensor<4x64x256xf32> -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
  return %d : tensor<4x64x256xf32>
}

// Every map kind, unary and binary.
// CHECK-LABEL: func.func @map_kinds
func.func @map_kinds(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK-COUNT-6: weft.map {{add|sub|mul|div|max|min}} "i,i->i"
  %0 = weft.map add "i,i->i" (%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = weft.map sub "i,i->i" (%0, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = weft.map mul "i,i->i" (%1, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = weft.map div "i,i->i" (%2, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = weft.map max "i,i->i" (%3, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %5 = weft.map min "i,i->i" (%4, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  // CHECK-COUNT-10: weft.map {{neg|exp|log|sqrt|rsqrt|square|tanh|relu|gelu|silu}} "i->i"
  %6 = weft.map neg "i->i" (%5) : (tensor<8xf32>) -> tensor<8xf32>
  %7 = weft.map exp "i->i" (%6) : (tensor<8xf32>) -> tensor<8xf32>
  %8 = weft.map log "i->i" (%7) : (tensor<8xf32>) -> tensor<8xf32>
  %9 = weft.map sqrt "i->i" (%8) : (tensor<8xf32>) -> tensor<8xf32>
  %10 = weft.map rsqrt "i->i" (%9) : (tensor<8xf32>) -> tensor<8xf32>
  %11 = weft.map square "i->i" (%10) : (tensor<8xf32>) -> tensor<8xf32>
  %12 = weft.map tanh "i->i" (%11) : (tensor<8xf32>) -> tensor<8xf32>
  %13 = weft.map relu "i->i" (%12) : (tensor<8xf32>) -> tensor<8xf32>
  %14 = weft.map gelu "i->i" (%13) : (tensor<8xf32>) -> tensor<8xf32>
  %15 = weft.map silu "i->i" (%14) : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: weft.map softplus "i->i"
  %16 = weft.map softplus "i->i" (%15) : (tensor<8xf32>) -> tensor<8xf32>
  return %16 : tensor<8xf32>
}

// The comparison and derivative map kinds, a broadcast result letter, and
// weft.constant (rank 0 and a sharded result).
// CHECK-LABEL: func.func @compare_broadcast_constant
func.func @compare_broadcast_constant(%a: tensor<4x8xf32>, %b: tensor<8xf32>)
    -> tensor<4x8x2xf32> {
  // CHECK: weft.map gt "ij,j->ij"
  %0 = weft.map gt "ij,j->ij" (%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = weft.map ge "ij,ij->ij" (%0, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = weft.map lt "ij,ij->ij" (%1, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = weft.map le "ij,ij->ij" (%2, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = weft.map eq "ij,ij->ij" (%3, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = weft.map ne "ij,ij->ij" (%4, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = weft.map abs "ij->ij" (%5) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = weft.map sign "ij->ij" (%6) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = weft.map step "ij->ij" (%7) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: weft.map sigmoid "ij->ijk" {{.*}} -> tensor<4x8x2xf32>
  %9 = weft.map sigmoid "ij->ijk" (%8) : (tensor<4x8xf32>) -> tensor<4x8x2xf32>
  // CHECK: weft.constant 1.000000e+00 : tensor<f32>
  %c = weft.constant 1.0 : tensor<f32>
  // CHECK: weft.constant -2.500000e-01 : tensor<4x8x2xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>
  %d = weft.constant -0.25 : tensor<4x8x2xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>
  %e = weft.map mul ",ijk->ijk" (%c, %d) : (tensor<f32>, tensor<4x8x2xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>) -> tensor<4x8x2xf32>
  %f = weft.map add "ijk,ijk->ijk" (%9, %e) : (tensor<4x8x2xf32>, tensor<4x8x2xf32>) -> tensor<4x8x2xf32>
  return %f : tensor<4x8x2xf32>
}

// Element types: f64, f16, bf16.
// CHECK-LABEL: func.func @element_types
func.func @element_types(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>,
                         %c: tensor<2x3xf16>, %d: tensor<2x3xbf16>) -> tensor<2x4xf64> {
  // CHECK: (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  // CHECK: (tensor<2x3xf16>) -> tensor<2x3xf16>
  %1 = weft.map exp "ij->ij" (%c) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  // CHECK: (tensor<2x3xbf16>) -> tensor<3xbf16>
  %2 = weft.reduce sum "ij->j" (%d) : (tensor<2x3xbf16>) -> tensor<3xbf16>
  return %0 : tensor<2x4xf64>
}

// The local-view collectives and the local slice.
// CHECK-LABEL: func.func @local_ops
func.func @local_ops(%p: tensor<2x64x256xf32>, %ids: tensor<2x64xi32>) -> tensor<2x64x256xf32> {
  // CHECK: weft.all_reduce sum %{{.*}} on @mesh over ["model"] : tensor<2x64x256xf32>
  %r = weft.all_reduce sum %p on @mesh over ["model"] : tensor<2x64x256xf32>
  // CHECK: weft.all_reduce max %{{.*}} on @mesh over ["data", "model"] : tensor<2x64x256xf32>
  %rm = weft.all_reduce max %r on @mesh over ["data", "model"] : tensor<2x64x256xf32>
  // CHECK: weft.all_reduce min
  %rn = weft.all_reduce min %rm on @mesh over ["data"] : tensor<2x64x256xf32>
  // CHECK: weft.reduce_scatter sum %{{.*}} on @mesh over ["model"] dim 1 : tensor<2x64x256xf32> -> tensor<2x16x256xf32>
  %s = weft.reduce_scatter sum %rn on @mesh over ["model"] dim 1 : tensor<2x64x256xf32> -> tensor<2x16x256xf32>
  // CHECK: weft.all_gather %{{.*}} on @mesh over ["model"] dim 1 : tensor<2x16x256xf32> -> tensor<2x64x256xf32>
  %g = weft.all_gather %s on @mesh over ["model"] dim 1 : tensor<2x16x256xf32> -> tensor<2x64x256xf32>
  // Two axes: group size 8.
  // CHECK: weft.all_gather %{{.*}} on @mesh over ["model", "data"] dim 0 : tensor<2x64x256xf32> -> tensor<16x64x256xf32>
  %g2 = weft.all_gather %g on @mesh over ["model", "data"] dim 0 : tensor<2x64x256xf32> -> tensor<16x64x256xf32>
  // CHECK: weft.all_to_all %{{.*}} on @mesh over ["data"] split 1 concat 0 : tensor<2x64x256xf32> -> tensor<4x32x256xf32>
  %a = weft.all_to_all %g on @mesh over ["data"] split 1 concat 0 : tensor<2x64x256xf32> -> tensor<4x32x256xf32>
  // CHECK: weft.slice_shard %{{.*}} on @mesh over ["model"] dim 2 : tensor<2x64x256xf32> -> tensor<2x64x64xf32>
  %l = weft.slice_shard %g on @mesh over ["model"] dim 2 : tensor<2x64x256xf32> -> tensor<2x64x64xf32>
  // Integer ids can be sliced and gathered too.
  // CHECK: weft.slice_shard %{{.*}} : tensor<2x64xi32> -> tensor<2x16xi32>
  %li = weft.slice_shard %ids on @mesh over ["model"] dim 1 : tensor<2x64xi32> -> tensor<2x16xi32>
  return %g : tensor<2x64x256xf32>
}

// The local-view embed of a vocabulary block.
// CHECK-LABEL: func.func @local_embed
func.func @local_embed(%ids: tensor<4x64xi32>, %t: tensor<1024x256xf32>) -> tensor<4x64x256xf32> {
  // CHECK: weft.embed "bt,vd->btd" (%{{.*}}, %{{.*}}) vocab on @mesh over ["model"] : (tensor<4x64xi32>, tensor<1024x256xf32>) -> tensor<4x64x256xf32>
  %e = weft.embed "bt,vd->btd" (%ids, %t) vocab on @mesh over ["model"] : (tensor<4x64xi32>, tensor<1024x256xf32>) -> tensor<4x64x256xf32>
  return %e : tensor<4x64x256xf32>
}

// The index ops: scatter_add (embed's transpose), one_hot, iota; global,
// then local with their block of the vocabulary (positions) letter.
// CHECK-LABEL: func.func @index_ops
func.func @index_ops(%ids: tensor<4x64xi32>, %g: tensor<4x64x256xf32>)
    -> (tensor<4096x256xf32>, tensor<4x64x512xf32>, tensor<64xf32>, tensor<8xi32>) {
  // CHECK: weft.scatter_add "bt,btd->vd" (%{{.*}}, %{{.*}}) : (tensor<4x64xi32>, tensor<4x64x256xf32>) -> tensor<4096x256xf32>
  %s = weft.scatter_add "bt,btd->vd" (%ids, %g) : (tensor<4x64xi32>, tensor<4x64x256xf32>) -> tensor<4096x256xf32>
  // CHECK: weft.one_hot "bt->btv" (%{{.*}}) : (tensor<4x64xi32>) -> tensor<4x64x512xf32>
  %h = weft.one_hot "bt->btv" (%ids) : (tensor<4x64xi32>) -> tensor<4x64x512xf32>
  // CHECK: weft.iota : tensor<64xf32>
  %p = weft.iota : tensor<64xf32>
  // CHECK: weft.iota : tensor<8xi32>
  %q = weft.iota : tensor<8xi32>
  return %s, %h, %p, %q : tensor<4096x256xf32>, tensor<4x64x512xf32>, tensor<64xf32>, tensor<8xi32>
}

// CHECK-LABEL: func.func @local_index_ops
func.func @local_index_ops(%ids: tensor<4x64xi32>, %g: tensor<4x64x256xf32>)
    -> (tensor<1024x256xf32>, tensor<4x64x128xf32>, tensor<16xf32>) {
  // CHECK: weft.scatter_add "bt,btd->vd" (%{{.*}}, %{{.*}}) vocab on @mesh over ["model"] : (tensor<4x64xi32>, tensor<4x64x256xf32>) -> tensor<1024x256xf32>
  %s = weft.scatter_add "bt,btd->vd" (%ids, %g) vocab on @mesh over ["model"] : (tensor<4x64xi32>, tensor<4x64x256xf32>) -> tensor<1024x256xf32>
  // CHECK: weft.one_hot "bt->btv" (%{{.*}}) vocab on @mesh over ["model"] : (tensor<4x64xi32>) -> tensor<4x64x128xf32>
  %h = weft.one_hot "bt->btv" (%ids) vocab on @mesh over ["model"] : (tensor<4x64xi32>) -> tensor<4x64x128xf32>
  // CHECK: weft.iota on @mesh over ["model"] : tensor<16xf32>
  %p = weft.iota on @mesh over ["model"] : tensor<16xf32>
  return %s, %h, %p : tensor<1024x256xf32>, tensor<4x64x128xf32>, tensor<16xf32>
}

// Counter-based random numbers: global, then local with the axes splitting
// each dimension; seeds are 64-bit.
// CHECK-LABEL: func.func @random
func.func @random() -> (tensor<4x64x256xf32>, tensor<16x8xf64>, tensor<f32>, tensor<2x32x256xf32>) {
  // CHECK: weft.random uniform seed 7 : tensor<4x64x256xf32>
  %u = weft.random uniform seed 7 : tensor<4x64x256xf32>
  // CHECK: weft.random normal seed -1 : tensor<16x8xf64>
  %n = weft.random normal seed -1 : tensor<16x8xf64>
  // CHECK: weft.random uniform seed 12345678901 : tensor<f32>
  %s = weft.random uniform seed 12345678901 : tensor<f32>
  // CHECK: weft.random uniform seed 7 on @mesh over {{\[}}["data"], ["model"], []] : tensor<2x32x256xf32>
  %l = weft.random uniform seed 7 on @mesh over [["data"], ["model"], []] : tensor<2x32x256xf32>
  return %u, %n, %s, %l : tensor<4x64x256xf32>, tensor<16x8xf64>, tensor<f32>, tensor<2x32x256xf32>
}

// The padding of uneven shards (--weft-pad-uneven): global, then local,
// with fills 0, -inf and an integer fill on ids.
// CHECK-LABEL: func.func @pad_fill
func.func @pad_fill(%x: tensor<12x8xf32>, %ids: tensor<12xi32>, %l: tensor<3x8xf32>)
    -> (tensor<12x8xf32>, tensor<12x8xf32>, tensor<12xi32>, tensor<3x8xf32>) {
  // CHECK: weft.pad_fill %{{.*}} valid [10, 8] fill 0.000000e+00 : tensor<12x8xf32> -> tensor<12x8xf32>
  %a = weft.pad_fill %x valid [10, 8] fill 0.0 : tensor<12x8xf32> -> tensor<12x8xf32>
  // CHECK: weft.pad_fill %{{.*}} valid [10, 7] fill 0xFFF0000000000000 : tensor<12x8xf32> -> tensor<12x8xf32>
  %b = weft.pad_fill %x valid [10, 7] fill 0xFFF0000000000000 : tensor<12x8xf32> -> tensor<12x8xf32>
  // CHECK: weft.pad_fill %{{.*}} valid [11] fill 3.000000e+00 : tensor<12xi32> -> tensor<12xi32>
  %c = weft.pad_fill %ids valid [11] fill 3.0 : tensor<12xi32> -> tensor<12xi32>
  // CHECK: weft.pad_fill %{{.*}} valid [5, 8] fill 0.000000e+00 on @mesh over {{\[}}["data"], []] : tensor<3x8xf32> -> tensor<3x8xf32>
  %d = weft.pad_fill %l valid [5, 8] fill 0.0 on @mesh over [["data"], []] : tensor<3x8xf32> -> tensor<3x8xf32>
  return %a, %b, %c, %d : tensor<12x8xf32>, tensor<12x8xf32>, tensor<12xi32>, tensor<3x8xf32>
}

// Cumulative sums: inclusive, exclusive, reversed.
// CHECK-LABEL: func.func @cumsum
func.func @cumsum(%x: tensor<4x64x8xf32>) -> (tensor<4x64x8xf32>, tensor<4x64x8xf32>, tensor<4x64x8xf32>) {
  // CHECK: weft.cumsum %{{.*}} dim 1 : tensor<4x64x8xf32> -> tensor<4x64x8xf32>
  %a = weft.cumsum %x dim 1 : tensor<4x64x8xf32> -> tensor<4x64x8xf32>
  // CHECK: weft.cumsum %{{.*}} dim 1 exclusive : tensor<4x64x8xf32> -> tensor<4x64x8xf32>
  %b = weft.cumsum %x dim 1 exclusive : tensor<4x64x8xf32> -> tensor<4x64x8xf32>
  // CHECK: weft.cumsum %{{.*}} dim 2 exclusive reverse : tensor<4x64x8xf32> -> tensor<4x64x8xf32>
  %c = weft.cumsum %x dim 2 exclusive reverse : tensor<4x64x8xf32> -> tensor<4x64x8xf32>
  return %a, %b, %c : tensor<4x64x8xf32>, tensor<4x64x8xf32>, tensor<4x64x8xf32>
}

// The k largest along a dimension: values, and a payload's at their places.
// CHECK-LABEL: func.func @top_k
func.func @top_k(%x: tensor<8x64xf32>, %pos: tensor<8x64xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>, tensor<1x64xf32>) {
  // CHECK: weft.top_k %{{.*}} dim 1 k 2 : (tensor<8x64xf32>) -> tensor<8x2xf32>
  %v = weft.top_k %x dim 1 k 2 : (tensor<8x64xf32>) -> tensor<8x2xf32>
  // CHECK: weft.top_k %{{.*}}, %{{.*}} dim 1 k 2 : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x2xf32>
  %i = weft.top_k %x, %pos dim 1 k 2 : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x2xf32>
  // CHECK: weft.top_k %{{.*}} dim 0 k 1 : (tensor<8x64xf32>) -> tensor<1x64xf32>
  %m = weft.top_k %x dim 0 k 1 : (tensor<8x64xf32>) -> tensor<1x64xf32>
  return %v, %i, %m : tensor<8x2xf32>, tensor<8x2xf32>, tensor<1x64xf32>
}

// Split and merged dimensions.
// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<4x64x256xf32>) -> (tensor<4x64x8x32xf32>, tensor<4x64x256xf32>, tensor<256x256xf32>) {
  // CHECK: weft.reshape "bt(hk)->bthk" (%{{.*}}) : (tensor<4x64x256xf32>) -> tensor<4x64x8x32xf32>
  %q = weft.reshape "bt(hk)->bthk" (%x) : (tensor<4x64x256xf32>) -> tensor<4x64x8x32xf32>
  // CHECK: weft.reshape "bthk->bt(hk)" (%{{.*}}) : (tensor<4x64x8x32xf32>) -> tensor<4x64x256xf32>
  %y = weft.reshape "bthk->bt(hk)" (%q) : (tensor<4x64x8x32xf32>) -> tensor<4x64x256xf32>
  // CHECK: weft.reshape "btd->(bt)d" (%{{.*}}) : (tensor<4x64x256xf32>) -> tensor<256x256xf32>
  %f = weft.reshape "btd->(bt)d" (%x) : (tensor<4x64x256xf32>) -> tensor<256x256xf32>
  return %q, %y, %f : tensor<4x64x8x32xf32>, tensor<4x64x256xf32>, tensor<256x256xf32>
}

// weft-propagate: directions, conflicts, multi-axis splits, partial states,
// constraints and determinism.
// RUN: weft-opt --weft-propagate -split-input-file %s | FileCheck %s
// Running the pass twice changes nothing:
// RUN: weft-opt --weft-propagate -split-input-file %s > %t.once.mlir
// RUN: weft-opt --weft-propagate -split-input-file %t.once.mlir > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

weft.mesh @mesh ["model" = 4]
// Forward from the inputs alone: the split of w's f flows to h and a; the
// second einsum contracts f, so y is a partial sum (nothing asked otherwise).
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"model"}>>
func.func @forward(%x: tensor<8x16xf32>,
                   %w: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
                   %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  // CHECK: weft.einsum "td,df->tf"{{.*}}{weft.split = {f = ["model"]}}
  // CHECK-SAME: tensor<8x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  %h = weft.einsum "td,df->tf" (%x, %w) : (tensor<8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32xf32>
  // CHECK: weft.map relu "tf->tf"{{.*}}{weft.split = {f = ["model"]}}
  %a = weft.map relu "tf->tf" (%h) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  // The unannotated w2 takes the split its use needs.
  // CHECK: weft.einsum "tf,fd->td"{{.*}}{weft.split = {f = ["model"]}} : (tensor<8x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
  %y = weft.einsum "tf,fd->td" (%a, %w2) : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

weft.mesh @mesh ["model" = 4]
// Backward from a result annotation alone: every value and argument becomes
// split on t.
// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%arg0: tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, %arg1: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>)
func.func @backward(%x: tensor<8x16xf32>, %s: tensor<8xf32>)
    -> tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {
  // CHECK: weft.map exp "td->td"{{.*}}{weft.split = {t = ["model"]}}
  // CHECK-SAME: -> tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  %e = weft.map exp "td->td" (%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: weft.map mul "td,t->td"{{.*}}{weft.split = {t = ["model"]}}
  %y = weft.map mul "td,t->td" (%e, %s) : (tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  return %y : tensor<8x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
}

// -----

weft.mesh @mesh ["model" = 4]
// A conflict between operands (one axis wanted by t and by f) is resolved by
// bytes, not by operand order: gathering x (t-split, 16 KiB) is cheaper than
// gathering w (f-split, 256 KiB), whichever operand comes first.
// CHECK-LABEL: func.func @conflict_by_cost
func.func @conflict_by_cost(%x: tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
                            %w: tensor<64x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) {
  // CHECK: weft.einsum "td,df->tf"{{.*}}{weft.split = {f = ["model"]}}
  %0 = weft.einsum "td,df->tf" (%x, %w) : (tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<64x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<64x1024xf32>
  // CHECK: weft.einsum "df,td->tf"{{.*}}{weft.split = {f = ["model"]}}
  %1 = weft.einsum "df,td->tf" (%w, %x) : (tensor<64x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<64x1024xf32>
  return
}

// -----

weft.mesh @mesh ["model" = 4]
// The same conflict with the sizes swapped: now w is the small one and is
// gathered, so t keeps the axis.
// CHECK-LABEL: func.func @conflict_other_way
func.func @conflict_other_way(%x: tensor<1024x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
                              %w: tensor<64x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) {
  // CHECK: weft.einsum "td,df->tf"{{.*}}{weft.split = {t = ["model"]}}
  %0 = weft.einsum "td,df->tf" (%x, %w) : (tensor<1024x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<64x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<1024x64xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Two axes on one dim on a 2-D mesh: the batch letter carries both, major to
// minor, through a map and a reduce.
// CHECK-LABEL: func.func @two_axes_one_dim
func.func @two_axes_one_dim(%x: tensor<16x32xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>>) -> tensor<16xf32> {
  // CHECK: weft.map tanh "bd->bd"{{.*}}{weft.split = {b = ["data", "model"]}}
  // CHECK-SAME: -> tensor<16x32xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>>
  %t = weft.map tanh "bd->bd" (%x) : (tensor<16x32xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>>) -> tensor<16x32xf32>
  // CHECK: weft.reduce sum "bd->b"{{.*}}{weft.split = {b = ["data", "model"]}}
  // CHECK-SAME: -> tensor<16xf32, #weft.sharding<@mesh, [{"data", "model"}]>>
  %s = weft.reduce sum "bd->b" (%t) : (tensor<16x32xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// A 3-D mesh: b over x and y, f over z; the contraction over f leaves a
// partial sum over z only.
// CHECK-LABEL: func.func @three_d
func.func @three_d(%a: tensor<8x16xf32, #weft.sharding<@cube, [{"x", "y"}, {}]>>,
                   %w: tensor<16x32xf32, #weft.sharding<@cube, [{}, {"z"}]>>,
                   %w2: tensor<32x16xf32, #weft.sharding<@cube, [{"z"}, {}]>>) -> tensor<8x16xf32> {
  // CHECK: weft.einsum "bd,df->bf"{{.*}}{weft.split = {b = ["x", "y"], f = ["z"]}}
  // CHECK-SAME: -> tensor<8x32xf32, #weft.sharding<@cube, [{"x", "y"}, {"z"}]>>
  %h = weft.einsum "bd,df->bf" (%a, %w) : (tensor<8x16xf32, #weft.sharding<@cube, [{"x", "y"}, {}]>>, tensor<16x32xf32, #weft.sharding<@cube, [{}, {"z"}]>>) -> tensor<8x32xf32>
  // CHECK: weft.einsum "bf,fd->bd"{{.*}}{weft.split = {b = ["x", "y"], f = ["z"]}}
  // CHECK-SAME: -> tensor<8x16xf32, #weft.sharding<@cube, [{"x", "y"}, {}], partial = sum {"z"}>>
  %y = weft.einsum "bf,fd->bd" (%h, %w2) : (tensor<8x32xf32>, tensor<32x16xf32, #weft.sharding<@cube, [{"z"}, {}]>>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

weft.mesh @mesh ["model" = 4]
// Partial sums stay partial through linear ops: a chain of einsums, a scale
// and a sum-reduce, resolved only where the requested result needs it.
// CHECK-LABEL: func.func @partial_sum_chain
func.func @partial_sum_chain(%x: tensor<8x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
                             %w: tensor<64x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
                             %v: tensor<16x4xf32>) -> tensor<8xf32, #weft.sharding<@mesh, [{}]>> {
  // CHECK: weft.einsum "md,dn->mn"{{.*}}{weft.split = {d = ["model"]}}
  // CHECK-SAME: -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"model"}>>
  %p = weft.einsum "md,dn->mn" (%x, %w) : (tensor<8x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<64x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  // CHECK: weft.einsum "mn,nk->mk"{{.*}}{weft.split = {}}
  // CHECK-SAME: -> tensor<8x4xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"model"}>>
  %q = weft.einsum "mn,nk->mk" (%p, %v) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  // CHECK: weft.map scale "mk->mk"
  // CHECK-SAME: -> tensor<8x4xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"model"}>>
  %s = weft.map scale "mk->mk" (%q) {scalar = 0.5 : f64} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: weft.reduce sum "mk->m"
  // CHECK-SAME: -> tensor<8xf32, #weft.sharding<@mesh, [{}]>>
  %r = weft.reduce sum "mk->m" (%s) : (tensor<8x4xf32>) -> tensor<8xf32, #weft.sharding<@mesh, [{}]>>
  return %r : tensor<8xf32, #weft.sharding<@mesh, [{}]>>
}

// -----

weft.mesh @mesh ["model" = 4]
// A max over a split letter (the vocabulary-parallel softmax) is a partial
// max; exp is non-decreasing so it may stay partial, but the subtraction
// needs the real max.
// CHECK-LABEL: func.func @partial_max
func.func @partial_max(%logits: tensor<8x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x64xf32> {
  // CHECK: weft.reduce max "tv->t"{{.*}}{weft.split = {v = ["model"]}}
  // CHECK-SAME: -> tensor<8xf32, #weft.sharding<@mesh, [{}], partial = max {"model"}>>
  %m = weft.reduce max "tv->t" (%logits) : (tensor<8x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8xf32>
  // CHECK: weft.map exp "t->t"
  // CHECK-SAME: -> tensor<8xf32, #weft.sharding<@mesh, [{}], partial = max {"model"}>>
  %em = weft.map exp "t->t" (%m) : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: weft.map sub "tv,t->tv"{{.*}}{weft.split = {v = ["model"]}}
  // CHECK-SAME: -> tensor<8x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  %d = weft.map sub "tv,t->tv" (%logits, %m) : (tensor<8x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<8xf32>) -> tensor<8x64xf32>
  return %d : tensor<8x64xf32>
}

// -----

weft.mesh @mesh ["model" = 4]
// A weft.shard constraint propagates backward into the producer, so the
// producer computes in the constrained layout.
// CHECK-LABEL: func.func @constraint
func.func @constraint(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // CHECK: weft.map neg "td->td"{{.*}}{weft.split = {d = ["model"]}}
  // CHECK-SAME: -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  %n = weft.map neg "td->td" (%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: weft.shard
  %c = weft.shard %n : tensor<8x16xf32> -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  // CHECK: weft.map exp "td->td"{{.*}}{weft.split = {d = ["model"]}}
  %e = weft.map exp "td->td" (%c) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// -----

weft.mesh @mesh ["model" = 4]
// With no annotation at all, everything is replicated over the module's only
// mesh.
// CHECK-LABEL: func.func @unannotated
// CHECK-SAME: (%arg0: tensor<8xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<8xf32, #weft.sharding<@mesh, [{}]>>
func.func @unannotated(%x: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: weft.map relu "i->i"{{.*}}{weft.split = {}}
  %r = weft.map relu "i->i" (%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

weft.mesh @mesh ["model" = 4]
// The result does not depend on the textual order of independent ops: the
// two functions are the same graph written in two orders. The second einsum
// reuses the all-gathered x the first one paid for, so it keeps g split too.
// CHECK-LABEL: func.func @order_a
// CHECK: weft.einsum "td,df->tf"{{.*}}{weft.split = {f = ["model"]}}
// CHECK: weft.einsum "td,dg->tg"{{.*}}{weft.split = {g = ["model"]}}
// CHECK-LABEL: func.func @order_b
// CHECK: weft.einsum "td,dg->tg"{{.*}}{weft.split = {g = ["model"]}}
// CHECK: weft.einsum "td,df->tf"{{.*}}{weft.split = {f = ["model"]}}
func.func @order_a(%x: tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
                   %w: tensor<64x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
                   %v: tensor<64x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
    -> (tensor<64x1024xf32>, tensor<64x8xf32>) {
  %0 = weft.einsum "td,df->tf" (%x, %w) : (tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<64x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<64x1024xf32>
  %1 = weft.einsum "td,dg->tg" (%x, %v) : (tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<64x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<64x8xf32>
  return %0, %1 : tensor<64x1024xf32>, tensor<64x8xf32>
}
func.func @order_b(%x: tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
                   %w: tensor<64x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
                   %v: tensor<64x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
    -> (tensor<64x1024xf32>, tensor<64x8xf32>) {
  %1 = weft.einsum "td,dg->tg" (%x, %v) : (tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<64x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<64x8xf32>
  %0 = weft.einsum "td,df->tf" (%x, %w) : (tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<64x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<64x1024xf32>
  return %0, %1 : tensor<64x1024xf32>, tensor<64x8xf32>
}

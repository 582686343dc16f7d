// Global evaluation with hand-checked values (inputs in float32, float64
// and int64 .npy files): a = [[1, 2], [3, 4]],
// b = [[5, 6], [7, 8]], v = [10, 20], x = [-1, 0.5, 1, 4], y = [1, 4, 9, 16].
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.array([[1, 2], [3, 4]], dtype=np.float32)); np.save('%t/b.npy', np.array([[5, 6], [7, 8]], dtype=np.float64)); np.save('%t/v.npy', np.array([10, 20], dtype=np.float32)); np.save('%t/x.npy', np.array([-1, 0.5, 1, 4], dtype=np.float32)); np.save('%t/y.npy', np.array([1, 4, 9, 16], dtype=np.int64)); np.save('%t/ids.npy', np.array([[1, 0], [0, 1]], dtype=np.int32))"

// RUN: weft-interp %s --func einsums --input 0=%t/a.npy --input arg1=%t/b.npy --print-values | FileCheck %s --check-prefix=EINSUM
// EINSUM: result #0: tensor<2x2xf32> sum 134 sumsq 5194
// EINSUM-NEXT: values: 19 22 43 50
// EINSUM-NEXT: result #1: tensor<2x2xf32> sum 10 sumsq 30
// EINSUM-NEXT: values: 1 3 2 4
// EINSUM-NEXT: result #2: tensor<f32> sum 10 sumsq 100
// EINSUM-NEXT: values: 10
// EINSUM-NEXT: result #3: tensor<2xf32> sum 70 sumsq 3098
// EINSUM-NEXT: values: 17 53
// EINSUM-NEXT: result #4: tensor<2x2x2x2xf32>
// EINSUM-NEXT: values: 5 6 7 8 10 12 14 16 15 18 21 24 20 24 28 32
func.func @einsums(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>, tensor<2xf32>, tensor<2x2x2x2xf32>) {
  %mm = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = weft.einsum "ij->ji" (%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = weft.einsum "ij->" (%a) : (tensor<2x2xf32>) -> tensor<f32>
  %d = weft.einsum "ij,ij->i" (%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
  %o = weft.einsum "ij,kl->ijkl" (%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2x2x2xf32>
  return %mm, %t, %s, %d, %o : tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>, tensor<2xf32>, tensor<2x2x2x2xf32>
}

// Binary maps broadcast by letters; reductions drop letters.
// RUN: weft-interp %s --func maps --input 0=%t/a.npy --input 1=%t/b.npy --input 2=%t/v.npy --print-values | FileCheck %s --check-prefix=MAP
// MAP: result #0:
// MAP-NEXT: values: 11 22 13 24
// MAP-NEXT: result #1:
// MAP-NEXT: values: -9 -8 -17 -16
// MAP-NEXT: result #2:
// MAP-NEXT: values: 5 12 21 32
// MAP-NEXT: result #3:
// MAP-NEXT: values: 0.2 0.333333333333 0.428571428571 0.5
// MAP-NEXT: result #4:
// MAP-NEXT: values: 5 6 7 8
// MAP-NEXT: result #5:
// MAP-NEXT: values: 1 2 3 4
// MAP-NEXT: result #6:
// MAP-NEXT: values: 10 20 10 20
// MAP-NEXT: result #7: tensor<2xf32>
// MAP-NEXT: values: 2 4
// MAP-NEXT: result #8: tensor<2xf32>
// MAP-NEXT: values: 1 2
// MAP-NEXT: result #9: tensor<f32>
// MAP-NEXT: values: 10
func.func @maps(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %v: tensor<2xf32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>,
        tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
  %add = weft.map add "ij,j->ij" (%a, %v) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %sub = weft.map sub "ij,i->ij" (%a, %v) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %mul = weft.map mul "ij,ij->ij" (%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %div = weft.map div "ij,ij->ij" (%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %max = weft.map max "ij,ij->ij" (%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %min = weft.map min "ij,ij->ij" (%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // An operand whose letters are a permutation: "ji" reads v along i.
  %bc = weft.map max "j,ij->ij" (%v, %a) : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %rmax = weft.reduce max "ij->i" (%a) : (tensor<2x2xf32>) -> tensor<2xf32>
  %rmin = weft.reduce min "ij->j" (%a) : (tensor<2x2xf32>) -> tensor<2xf32>
  %rsum = weft.reduce sum "ij->" (%a) : (tensor<2x2xf32>) -> tensor<f32>
  return %add, %sub, %mul, %div, %max, %min, %bc, %rmax, %rmin, %rsum
      : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>,
        tensor<2xf32>, tensor<2xf32>, tensor<f32>
}

// Unary maps with hand-checkable values.
// RUN: weft-interp %s --func unary --input 0=%t/x.npy --input 1=%t/y.npy --print-values | FileCheck %s --check-prefix=UNARY
// UNARY: result #0:
// UNARY-NEXT: values: 1 -0.5 -1 -4
// UNARY-NEXT: result #1:
// UNARY-NEXT: values: 0 0.5 1 4
// UNARY-NEXT: result #2:
// UNARY-NEXT: values: 1 0.25 1 16
// UNARY-NEXT: result #3:
// UNARY-NEXT: values: 1 2 3 4
// UNARY-NEXT: result #4:
// UNARY-NEXT: values: 1 0.5 0.333333333333 0.25
// UNARY-NEXT: result #5:
// UNARY-NEXT: values: -2 1 2 8
// UNARY-NEXT: result #6:
// UNARY-NEXT: values: -0.75 0.75 1.25 4.25
// UNARY-NEXT: result #7:
// UNARY-NEXT: values: 0 1.38629436112 2.19722457734 2.77258872224
func.func @unary(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %neg = weft.map neg "i->i" (%x) : (tensor<4xf32>) -> tensor<4xf32>
  %relu = weft.map relu "i->i" (%x) : (tensor<4xf32>) -> tensor<4xf32>
  %sq = weft.map square "i->i" (%x) : (tensor<4xf32>) -> tensor<4xf32>
  %sqrt = weft.map sqrt "i->i" (%y) : (tensor<4xf32>) -> tensor<4xf32>
  %rsqrt = weft.map rsqrt "i->i" (%y) : (tensor<4xf32>) -> tensor<4xf32>
  %scale = weft.map scale "i->i" (%x) {scalar = 2.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %shift = weft.map shift "i->i" (%x) {scalar = 0.25 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %log = weft.map log "i->i" (%y) : (tensor<4xf32>) -> tensor<4xf32>
  return %neg, %relu, %sq, %sqrt, %rsqrt, %scale, %shift, %log
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Embed looks rows up (ids = [[1, 0], [0, 1]], table = b); weft.shard is the
// identity in the global view.
// RUN: weft-interp %s --func lookup --input 0=%t/ids.npy --input 1=%t/b.npy --print-values | FileCheck %s --check-prefix=EMBED
// EMBED: result #0: tensor<2x2x2xf32>
// EMBED-NEXT: values: 7 8 5 6 5 6 7 8
// EMBED-NEXT: result #1: tensor<2x2x2xf32>
// EMBED-NEXT: values: 7 5 5 7 8 6 6 8
func.func @lookup(%ids: tensor<2x2xi32>, %table: tensor<2x2xf32>)
    -> (tensor<2x2x2xf32>, tensor<2x2x2xf32, #weft.sharding<@mesh, [{"m"}, {}, {}]>>) {
  %t3 = weft.einsum "vd->vd" (%table) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = weft.embed "bt,vd->btd" (%ids, %t3) : (tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x2x2xf32>
  // Feature letter first in the result: result[d, b, t].
  %f = weft.embed "bt,vd->dbt" (%ids, %t3) : (tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x2x2xf32>
  %s = weft.shard %f : tensor<2x2x2xf32> -> tensor<2x2x2xf32, #weft.sharding<@mesh, [{"m"}, {}, {}]>>
  return %e, %s : tensor<2x2x2xf32>, tensor<2x2x2xf32, #weft.sharding<@mesh, [{"m"}, {}, {}]>>
}

weft.mesh @mesh ["m" = 2]

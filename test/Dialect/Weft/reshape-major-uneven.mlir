// Uneven shards across a reshape: a merged dimension (hk) is split as its
// major letter h, so --weft-pad-uneven pads h (to a multiple of the devices
// splitting it) and the merged dimension to h' * K: its pads are whole rows
// of h at the end, the same elements on both sides. (hk) = 6 split over 2
// devices divides the merged size but not h = 3: h is padded to 4 and (hk)
// to 8 (before: --weft-partition emitted a local reshape of 2 rows of h that
// did not verify; found by the differential fuzzer's relaxed probe).
// Each case is compared with the global program; a padded minor letter is
// refused (test/Dialect/Weft/pad-uneven-errors.mlir).
// RUN: weft-opt %s --weft-propagate=reshard-annotated=true --weft-pad-uneven | FileCheck %s
// CHECK-LABEL: func.func @split
// CHECK-SAME: tensor<8xf32, #weft.sharding<@m1, [{"x"}]>> {weft.logical_shape = array<i64: 6>}
// CHECK: weft.reshape "(hk)->hk" {{.*}} -> tensor<4x2xf32
// CHECK-LABEL: func.func @merge
// CHECK: weft.reshape "hk->(hk)" {{.*}} -> tensor<8xf32
// CHECK-LABEL: func.func @heads
// CHECK: weft.reshape "bt(hk)->bthk" {{.*}} : (tensor<2x4x16xf32, {{.*}}>) -> tensor<2x4x4x4xf32
// RUN: weft-opt %s --weft-propagate=reshard-annotated=true --weft-pad-uneven --weft-partition -o %t.local.mlir
// RUN: weft-interp %s --compare %t.local.mlir --all-funcs | FileCheck %s --check-prefix=CMP
// CMP: compare-all: 3 of 3 function(s) match

// A split input.
weft.mesh @m1 ["x" = 2]
func.func @split(%a: tensor<6xf32, #weft.sharding<@m1, [{"x"}]>>) -> tensor<3x2xf32, #weft.sharding<@m1, [{}, {}]>> {
  %r = weft.reshape "(hk)->hk" (%a) : (tensor<6xf32, #weft.sharding<@m1, [{"x"}]>>) -> tensor<3x2xf32, #weft.sharding<@m1, [{}, {}]>>
  return %r : tensor<3x2xf32, #weft.sharding<@m1, [{}, {}]>>
}

// A split result.
weft.mesh @m2 ["x" = 2]
func.func @merge(%a: tensor<3x2xf32, #weft.sharding<@m2, [{}, {}]>>) -> tensor<6xf32, #weft.sharding<@m2, [{"x"}]>> {
  %r = weft.reshape "hk->(hk)" (%a) : (tensor<3x2xf32, #weft.sharding<@m2, [{}, {}]>>) -> tensor<6xf32, #weft.sharding<@m2, [{"x"}]>>
  return %r : tensor<6xf32, #weft.sharding<@m2, [{"x"}]>>
}

// Heads split from the model dimension and merged back, 3 heads over 4
// devices (padded to 4), with a softmax-like max over the heads' features
// and a sum over the padded heads.
weft.mesh @m3 ["x" = 4]
func.func @heads(%a: tensor<2x4x12xf32, #weft.sharding<@m3, [{}, {}, {"x"}]>>) -> (tensor<2x4x3xf32>, tensor<2x4x12xf32>) {
  %q = weft.reshape "bt(hk)->bthk" (%a) : (tensor<2x4x12xf32, #weft.sharding<@m3, [{}, {}, {"x"}]>>) -> tensor<2x4x3x4xf32>
  %e = weft.map exp "bthk->bthk" (%q) : (tensor<2x4x3x4xf32>) -> tensor<2x4x3x4xf32>
  %m = weft.reduce max "bthk->bth" (%e) : (tensor<2x4x3x4xf32>) -> tensor<2x4x3xf32>
  %s = weft.reduce sum "bthk->btk" (%e) : (tensor<2x4x3x4xf32>) -> tensor<2x4x4xf32>
  %y = weft.map mul "bthk,btk->bthk" (%e, %s) : (tensor<2x4x3x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x3x4xf32>
  %z = weft.reshape "bthk->bt(hk)" (%y) : (tensor<2x4x3x4xf32>) -> tensor<2x4x12xf32>
  return %m, %z : tensor<2x4x3xf32>, tensor<2x4x12xf32>
}

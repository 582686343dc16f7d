// Guards N4 (robustness.md): valid uneven programs were refused. The
// uneven-padding pass sized each dimension for the group sizes of its
// values' *types* only, but the partitioner also reshards operands to the
// layout their op's letter map (`weft.split`) requires: a dimension padded
// for one group was then sliced or all-to-all'ed over another that did not
// divide the padded size, and the partitioner's own output failed to
// verify, e.g.
//   'weft.slice_shard' op dimension 2 has size 10, which is not divisible
//   by the group size 3
//   'weft.all_to_all' op dimension 1 has size 15 / 3, not divisible by the
//   group size 2
// --weft-pad-uneven now pads to the lcm of every group size a dimension is
// split by, in a type or in an op's letter map (docs/partitioning.md,
// "Uneven shards"). The functions: the reproducer minimized from
// scripts/fuzz-partition.sh --start 90000 seed 90951 case 8, and the four
// cases it found (seeds 90951 case 8 and 90909 case 58: slice_shard;
// 90826 case 76 and 90893 case 61: all_to_all), as generated.

// RUN: weft-opt --weft-propagate=reshard-annotated=true --weft-pad-uneven --weft-partition %s -o %t.local.mlir
// RUN: FileCheck %s < %t.local.mlir
// The partitioned, padded programs compute what the global ones do.
// RUN: weft-interp %s --compare %t.local.mlir --all-funcs | FileCheck %s --check-prefix=DIFF
// DIFF-NOT: MISMATCH
// DIFF: compare-all: 5 of 5 function(s) match

weft.mesh @m8 ["seq" = 2, "data" = 1, "y" = 3]

// a1's rows (9, split over "seq" = 2) were padded to 10 and then sliced
// over "y" = 3 for the einsum; they are padded to lcm(2, 3) = 6's multiple.
// CHECK-LABEL: func.func @slice_shard_min(
// CHECK-SAME: weft.global_type = tensor<12x12xf32, #weft.sharding<@m8, [{"seq"}, {"y"}]>>, weft.logical_shape = array<i64: 9, 8>
// CHECK: weft.slice_shard %{{.*}} on @m8 over ["seq"] dim 1 : tensor<7x12x12xf32> -> tensor<7x6x12xf32>
// CHECK-NEXT: weft.slice_shard %{{.*}} on @m8 over ["y"] dim 2 : tensor<7x6x12xf32> -> tensor<7x6x4xf32>
// CHECK: weft.einsum "uqx,Eqx->E" {{.*}} : (tensor<7x6x4xf32>, tensor<7x6x4xf32>) -> tensor<7xf32>
func.func @slice_shard_min(%a0: tensor<7x8xf32>,
    %a1: tensor<9x8xf32, #weft.sharding<@m8, [{"seq"}, {"y"}]>>,
    %a2: tensor<4x3xf32, #weft.sharding<@m8, [{"data"}, {}]>>)
    -> (tensor<5x3x4xf32, #weft.sharding<@m8, [{}, {}, {"seq"}]>>) {
  %v1 = weft.map gelu "XJ->XJ" (%a0)
      : (tensor<7x8xf32>) -> tensor<7x8xf32>
  %v2 = weft.map max "nL,UL->nLU" (%v1, %a1)
      : (tensor<7x8xf32>, tensor<9x8xf32, #weft.sharding<@m8, [{"seq"}, {"y"}]>>) -> tensor<7x8x9xf32>
  %v3 = weft.shard %v2 : tensor<7x8x9xf32> -> tensor<7x8x9xf32, #weft.sharding<@m8, [{}, {"seq"}, {"data"}]>>
  %v4 = weft.einsum "uqx,Eqx->E" (%v3, %v2)
      : (tensor<7x8x9xf32, #weft.sharding<@m8, [{}, {"seq"}, {"data"}]>>, tensor<7x8x9xf32>) -> tensor<7xf32>
  %v6 = weft.constant 1.0 : tensor<5x3xf32>
  %v9 = weft.map shift "QM->QM" (%v6) {scalar = 1.5 : f64}
      : (tensor<5x3xf32>) -> tensor<5x3xf32>
  %v10 = weft.map add "Mb,ob->Mbo" (%v9, %a2)
      : (tensor<5x3xf32>, tensor<4x3xf32, #weft.sharding<@m8, [{"data"}, {}]>>) -> tensor<5x3x4xf32, #weft.sharding<@m8, [{}, {}, {"seq"}]>>
  return %v10 : tensor<5x3x4xf32, #weft.sharding<@m8, [{}, {}, {"seq"}]>>
}

// CHECK-LABEL: func.func @case90951_8(
// CHECK-SAME: weft.global_type = tensor<12x12xf32, #weft.sharding<@m8, [{"seq"}, {"y"}]>>, weft.logical_shape = array<i64: 9, 8>
// CHECK: weft.slice_shard %{{.*}} on @m8 over ["y"] dim 2 : tensor<12x6x12xf32> -> tensor<12x6x4xf32>
// CHECK: weft.reduce_scatter sum %{{.*}} on @m8 over ["seq", "y"] dim 0 {{.*}} : tensor<12xf32> -> tensor<2xf32>
func.func @case90951_8(%a0: tensor<7x8xf32>,
    %a1: tensor<9x8xf32, #weft.sharding<@m8, [{"seq"}, {"y"}]>>,
    %a2: tensor<4x3xf32, #weft.sharding<@m8, [{"data"}, {}]>>)
    -> (tensor<5x3x4xf32, #weft.sharding<@m8, [{}, {}, {"seq"}]>>) {
  %v1 = weft.map gelu "XJ->XJ" (%a0)
      : (tensor<7x8xf32>) -> tensor<7x8xf32>
  %v2 = weft.map max "nL,UL->nLU" (%v1, %a1)
      : (tensor<7x8xf32>, tensor<9x8xf32, #weft.sharding<@m8, [{"seq"}, {"y"}]>>) -> tensor<7x8x9xf32>
  %v3 = weft.shard %v2 : tensor<7x8x9xf32> -> tensor<7x8x9xf32, #weft.sharding<@m8, [{}, {"seq"}, {"data"}]>>
  %v4 = weft.einsum "uqx,Eqx->E" (%v3, %v2)
      : (tensor<7x8x9xf32, #weft.sharding<@m8, [{}, {"seq"}, {"data"}]>>, tensor<7x8x9xf32>) -> tensor<7xf32>
  %v5 = weft.map gelu "rS->rS" (%v1)
      : (tensor<7x8xf32>) -> tensor<7x8xf32>
  %v6 = weft.constant 1.0 : tensor<5x3xf32>
  %v7 = weft.reduce sum "r->r" (%v4)
      : (tensor<7xf32>) -> tensor<7xf32, #weft.sharding<@m8, [{"data", "seq", "y"}]>>
  %v8 = weft.constant 1.0 : tensor<4x12xf32, #weft.sharding<@m8, [{"data", "seq"}, {}]>>
  %v9 = weft.map shift "QM->QM" (%v6) {scalar = 1.5 : f64}
      : (tensor<5x3xf32>) -> tensor<5x3xf32>
  %v10 = weft.map add "Mb,ob->Mbo" (%v9, %a2)
      : (tensor<5x3xf32>, tensor<4x3xf32, #weft.sharding<@m8, [{"data"}, {}]>>) -> tensor<5x3x4xf32, #weft.sharding<@m8, [{}, {}, {"seq"}]>>
  return %v10 : tensor<5x3x4xf32, #weft.sharding<@m8, [{}, {}, {"seq"}]>>
}

weft.mesh @m58 ["seq" = 3, "data" = 1, "z" = 2]

// The embed's result (14, split over "seq" = 3) was padded to 15, then
// sliced over "z" = 2 for the einsum.
// CHECK-LABEL: func.func @case90909_58(
// CHECK: weft.all_gather %{{.*}} on @m58 over ["seq"] dim 0 {{.*}} : tensor<6xf32> -> tensor<18xf32>
// CHECK-NEXT: weft.slice_shard %{{.*}} on @m58 over ["z"] dim 0 : tensor<18xf32> -> tensor<9xf32>
// CHECK-NEXT: weft.slice_shard %{{.*}} on @m58 over ["z"] dim 1 : tensor<3x18xf32> -> tensor<3x9xf32>
func.func @case90909_58(%a0: tensor<2x14xf32, #weft.sharding<@m58, [{}, {"seq"}]>>,
    %a1: tensor<i32>,
    %a2: tensor<10x3xf32>,
    %a3: tensor<10x3xf32>,
    %a4: tensor<9x14xf32, #weft.sharding<@m58, [{"seq"}, {"data"}]>>,
    %a5: tensor<5xf32, #weft.sharding<@m58, [{}]>>,
    %a6: tensor<2x8xf32, #weft.sharding<@m58, [{"data"}, {"z", "seq"}]>>,
    %a7: tensor<2x6x8xf32, #weft.sharding<@m58, [{"data"}, {}, {}]>>,
    %a8: tensor<11x2xf32>,
    %a9: tensor<14xi32>,
    %a10: tensor<5x5xf32, #weft.sharding<@m58, [{}, {}]>>,
    %a11: tensor<i32>,
    %a12: tensor<10x7xf32, #weft.sharding<@m58, [{}, {"data", "z"}]>>,
    %a13: tensor<3x14xf32, #weft.sharding<@m58, [{"z", "seq"}, {}]>>)
    -> (tensor<14xf32, #weft.sharding<@m58, [{"z", "data"}]>>, tensor<5xf32, #weft.sharding<@m58, [{"data"}]>>) {
  %v1 = weft.embed ",ca->a" (%a1, %a0)
      : (tensor<i32>, tensor<2x14xf32, #weft.sharding<@m58, [{}, {"seq"}]>>) -> tensor<14xf32, #weft.sharding<@m58, [{}]>>
  %v2 = weft.map max "LW,LW->WL" (%a2, %a3)
      : (tensor<10x3xf32>, tensor<10x3xf32>) -> tensor<3x10xf32>
  %v3 = weft.shard %a2 : tensor<10x3xf32> -> tensor<10x3xf32, #weft.sharding<@m58, [{"z", "data"}, {"seq"}]>>
  %v4 = weft.einsum "n,sn->" (%v1, %a4)
      : (tensor<14xf32, #weft.sharding<@m58, [{}]>>, tensor<9x14xf32, #weft.sharding<@m58, [{"seq"}, {"data"}]>>) -> tensor<f32>
  %v5 = weft.map cos "Y->Y" (%a5)
      : (tensor<5xf32, #weft.sharding<@m58, [{}]>>) -> tensor<5xf32, #weft.sharding<@m58, [{"data"}]>>
  %v6 = weft.map exp "kZ->kZ" (%v2)
      : (tensor<3x10xf32>) -> tensor<3x10xf32>
  %v7 = weft.einsum "VJ,VjJ->Jj" (%a6, %a7)
      : (tensor<2x8xf32, #weft.sharding<@m58, [{"data"}, {"z", "seq"}]>>, tensor<2x6x8xf32, #weft.sharding<@m58, [{"data"}, {}, {}]>>) -> tensor<8x6xf32>
  %v8 = weft.embed "y,wi->yi" (%a9, %a8)
      : (tensor<14xi32>, tensor<11x2xf32>) -> tensor<14x2xf32>
  %v9 = weft.shard %v7 : tensor<8x6xf32> -> tensor<8x6xf32, #weft.sharding<@m58, [{"data"}, {}]>>
  %v10 = weft.embed ",FW->W" (%a11, %a10)
      : (tensor<i32>, tensor<5x5xf32, #weft.sharding<@m58, [{}, {}]>>) -> tensor<5xf32>
  %v11 = weft.map lt "Ce,Cx->Cex" (%v3, %a12)
      : (tensor<10x3xf32, #weft.sharding<@m58, [{"z", "data"}, {"seq"}]>>, tensor<10x7xf32, #weft.sharding<@m58, [{}, {"data", "z"}]>>) -> tensor<10x3x7xf32, #weft.sharding<@m58, [{}, {}, {"z"}]>>
  %v12 = weft.embed ",mJ->J" (%a11, %a13)
      : (tensor<i32>, tensor<3x14xf32, #weft.sharding<@m58, [{"z", "seq"}, {}]>>) -> tensor<14xf32, #weft.sharding<@m58, [{"z", "data"}]>>
  return %v12, %v5 : tensor<14xf32, #weft.sharding<@m58, [{"z", "data"}]>>, tensor<5xf32, #weft.sharding<@m58, [{"data"}]>>
}

weft.mesh @m76 ["model" = 3, "x" = 2]

// 14 (split over "model" = 3) was padded to 15, then all-to-all'ed over
// "x" = 2.
// CHECK-LABEL: func.func @case90826_76(
// CHECK: weft.all_to_all %{{.*}} on @m76 over ["x"] split 1 concat 0 {{.*}} : tensor<9x18xbf16> -> tensor<18x9xbf16>
// CHECK: weft.all_to_all %{{.*}} on @m76 over ["model"] split 1 concat 0 {{.*}} : tensor<3x18xbf16> -> tensor<9x6xbf16>
func.func @case90826_76(%a0: tensor<12x2xbf16>,
    %a1: tensor<13xi32, #weft.sharding<@m76, [{"x", "model"}]>>,
    %a2: tensor<8x14xbf16, #weft.sharding<@m76, [{}, {}]>>,
    %a3: tensor<10xbf16, #weft.sharding<@m76, [{"x"}]>>,
    %a4: tensor<3x9x6x7xbf16, #weft.sharding<@m76, [{}, {}, {"model", "x"}, {}]>>,
    %a5: tensor<8x4x14x8xbf16, #weft.sharding<@m76, [{}, {"x"}, {"model"}, {}]>>)
    -> (tensor<14x8xbf16>) {
  %v1 = weft.embed "q,yI->Iq" (%a1, %a0)
      : (tensor<13xi32, #weft.sharding<@m76, [{"x", "model"}]>>, tensor<12x2xbf16>) -> tensor<2x13xbf16>
  %v2 = weft.embed "y,eF->yF" (%a1, %a2)
      : (tensor<13xi32, #weft.sharding<@m76, [{"x", "model"}]>>, tensor<8x14xbf16, #weft.sharding<@m76, [{}, {}]>>) -> tensor<13x14xbf16, #weft.sharding<@m76, [{"x"}, {}]>>
  %v3 = weft.map shift "V->V" (%a3) {scalar = 1.5 : f64}
      : (tensor<10xbf16, #weft.sharding<@m76, [{"x"}]>>) -> tensor<10xbf16>
  %v4 = weft.einsum "Ut,FU->" (%v2, %v1)
      : (tensor<13x14xbf16, #weft.sharding<@m76, [{"x"}, {}]>>, tensor<2x13xbf16>) -> tensor<bf16>
  %v5 = weft.map relu "HKIS->HKIS" (%a4)
      : (tensor<3x9x6x7xbf16, #weft.sharding<@m76, [{}, {}, {"model", "x"}, {}]>>) -> tensor<3x9x6x7xbf16, #weft.sharding<@m76, [{}, {}, {"x", "model"}, {}]>>
  %v6 = weft.map sigmoid "YI->YI" (%a2)
      : (tensor<8x14xbf16, #weft.sharding<@m76, [{}, {}]>>) -> tensor<8x14xbf16>
  %v7 = weft.map relu "Z->Z" (%v3)
      : (tensor<10xbf16>) -> tensor<10xbf16>
  %v8 = weft.map exp "hf->hf" (%v6)
      : (tensor<8x14xbf16>) -> tensor<8x14xbf16, #weft.sharding<@m76, [{"model"}, {}]>>
  %v9 = weft.reduce min "WO->" (%v8)
      : (tensor<8x14xbf16, #weft.sharding<@m76, [{"model"}, {}]>>) -> tensor<bf16>
  %v10 = weft.einsum "ZF,aBFZ->FZ" (%v8, %a5)
      : (tensor<8x14xbf16, #weft.sharding<@m76, [{"model"}, {}]>>, tensor<8x4x14x8xbf16, #weft.sharding<@m76, [{}, {"x"}, {"model"}, {}]>>) -> tensor<14x8xbf16>
  return %v10 : tensor<14x8xbf16>
}

weft.mesh @m61 ["data" = 2, "z" = 3]

// CHECK-LABEL: func.func @case90893_61(
// CHECK: weft.all_to_all %{{.*}} on @m61 over ["data"] split 1 concat 2 {{.*}} : tensor<2x6x9x8xf64> -> tensor<2x3x18x8xf64>
// CHECK: weft.all_to_all %{{.*}} on @m61 over ["z"] split 1 concat 0 {{.*}} : tensor<6x6x8xf64> -> tensor<18x2x8xf64>
// CHECK: weft.all_to_all %{{.*}} on @m61 over ["data"] split 1 concat 2 {{.*}} : tensor<18x8x3xf64> -> tensor<18x4x6xf64>
func.func @case90893_61(%a0: tensor<2x2x13x7xf64, #weft.sharding<@m61, [{}, {}, {"data"}, {}]>>,
    %a1: tensor<13x7x2xf64, #weft.sharding<@m61, [{"z"}, {}, {}]>>,
    %a2: tensor<7x2xf64>,
    %a3: tensor<5x11xf64, #weft.sharding<@m61, [{}, {}]>>,
    %a4: tensor<5xf64, #weft.sharding<@m61, [{}]>>,
    %a5: tensor<7x7x2xf64>,
    %a6: tensor<13x5xf64, #weft.sharding<@m61, [{"data"}, {}]>>,
    %a7: tensor<2x3xf64>,
    %a8: tensor<1xi32, #weft.sharding<@m61, [{}]>>,
    %a9: tensor<11x9xi32, #weft.sharding<@m61, [{"data"}, {"z"}]>>,
    %a10: tensor<11x9x10xf64, #weft.sharding<@m61, [{}, {"data"}, {}]>>,
    %a11: tensor<10x4xf64>,
    %a12: tensor<10x8xi32, #weft.sharding<@m61, [{}, {"data"}]>>)
    -> (tensor<3xf64>) {
  %v1 = weft.einsum "xCey,eyC->" (%a0, %a1)
      : (tensor<2x2x13x7xf64, #weft.sharding<@m61, [{}, {}, {"data"}, {}]>>, tensor<13x7x2xf64, #weft.sharding<@m61, [{"z"}, {}, {}]>>) -> tensor<f64>
  %v2 = weft.einsum "mhq->" (%a1)
      : (tensor<13x7x2xf64, #weft.sharding<@m61, [{"z"}, {}, {}]>>) -> tensor<f64>
  %v3 = weft.map add "wLE,LE->wEL" (%a1, %a2)
      : (tensor<13x7x2xf64, #weft.sharding<@m61, [{"z"}, {}, {}]>>, tensor<7x2xf64>) -> tensor<13x2x7xf64, #weft.sharding<@m61, [{}, {"z"}, {}]>>
  %v4 = weft.einsum "lW,l->lW" (%a3, %a4)
      : (tensor<5x11xf64, #weft.sharding<@m61, [{}, {}]>>, tensor<5xf64, #weft.sharding<@m61, [{}]>>) -> tensor<5x11xf64>
  %v5 = weft.map shift "r->r" (%a4) {scalar = 1.5 : f64}
      : (tensor<5xf64, #weft.sharding<@m61, [{}]>>) -> tensor<5xf64>
  %v6 = weft.reduce min "fwn->n" (%v3)
      : (tensor<13x2x7xf64, #weft.sharding<@m61, [{}, {"z"}, {}]>>) -> tensor<7xf64>
  %v7 = weft.einsum "CTO,yTO->yCT" (%a1, %a5)
      : (tensor<13x7x2xf64, #weft.sharding<@m61, [{"z"}, {}, {}]>>, tensor<7x7x2xf64>) -> tensor<7x13x7xf64, #weft.sharding<@m61, [{"z"}, {}, {"data"}]>>
  %v8 = weft.map le "E,kE->Ek" (%v5, %a6)
      : (tensor<5xf64>, tensor<13x5xf64, #weft.sharding<@m61, [{"data"}, {}]>>) -> tensor<5x13xf64>
  %v9 = weft.embed "l,jP->lP" (%a8, %a7)
      : (tensor<1xi32, #weft.sharding<@m61, [{}]>>, tensor<2x3xf64>) -> tensor<1x3xf64>
  %v10 = weft.scatter_add "Mz,MzK->TK" (%a9, %a10)
      : (tensor<11x9xi32, #weft.sharding<@m61, [{"data"}, {"z"}]>>, tensor<11x9x10xf64, #weft.sharding<@m61, [{}, {"data"}, {}]>>) -> tensor<4x10xf64>
  %v11 = weft.embed "vS,LI->vSI" (%a12, %a11)
      : (tensor<10x8xi32, #weft.sharding<@m61, [{}, {"data"}]>>, tensor<10x4xf64>) -> tensor<10x8x4xf64>
  %v12 = weft.reduce sum "FO->O" (%a7)
      : (tensor<2x3xf64>) -> tensor<3xf64>
  return %v12 : tensor<3xf64>
}

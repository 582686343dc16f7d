// weft.slice and weft.concat: the sliced or joined dimension is computed
// whole (its letters are never split), every other one splits freely. An
// operand split along that dimension is resharded first (here an
// all-to-all moves the split to another dimension), a result split there
// is sliced after. Checked against the global program on 8 ranks; a
// mutated local program is caught; uneven shards along the joined
// dimension are refused at the op.
// RUN: weft-opt %s | weft-opt | FileCheck %s --check-prefix=ROUNDTRIP
// ROUNDTRIP: weft.concat %arg0, %arg1 dim 2 : (tensor<4x8x16xf32, {{.*}}>, tensor<4x8x8xf32, {{.*}}>) -> tensor<4x8x24xf32>
// ROUNDTRIP: weft.slice %arg0 dim 1 start 2 : tensor<4x8x16xf32, {{.*}}> -> tensor<4x3x16xf32, {{.*}}>
// RUN: weft-opt %s --weft-propagate --weft-pad-uneven --weft-partition -o %t.local.mlir
// RUN: FileCheck %s < %t.local.mlir
// CHECK: %[[Y:.*]] = weft.all_to_all %arg1 on @mesh over ["model"] split 1 concat 2 {{.*}}operand #1 of weft.concat
// CHECK-NEXT: weft.concat %arg0, %[[Y]] dim 2 {{.*}} : (tensor<2x2x16xf32>, tensor<2x2x8xf32>) -> tensor<2x2x24xf32>
// CHECK: %[[X:.*]] = weft.all_to_all %arg0 on @mesh over ["model"] split 2 concat 1 {{.*}}operand #0 of weft.slice
// CHECK-NEXT: weft.slice %[[X]] dim 1 start 2 {{.*}} : tensor<2x8x4xf32> -> tensor<2x3x4xf32>
// CHECK: weft.slice %arg0 dim 2 start 0 {{.*}} : tensor<2x2x16xf32> -> tensor<2x2x8xf32>
// CHECK: weft.slice %arg0 dim 2 start 8 {{.*}} : tensor<2x2x16xf32> -> tensor<2x2x8xf32>
// A result split along the sliced dimension: computed whole, then a free
// local slice of the block.
// CHECK: weft.slice {{.*}} dim 0 start 1 {{.*}} -> tensor<2x2x16xf32>
// CHECK-NEXT: weft.slice_shard {{.*}} on @mesh over ["data"] dim 0 : tensor<2x2x16xf32> -> tensor<1x2x16xf32>
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 4 of 4 result(s) match
// RUN: sed -e 's/dim 2 start 8/dim 2 start 7/' %t.local.mlir > %t.broken.mlir
// RUN: not weft-interp %s --compare %t.broken.mlir | FileCheck %s --check-prefix=BROKEN
// BROKEN: MISMATCH
// Uneven along the joined dimension: refused at the op.
// RUN: sed -e 's/"data" = 2, "model" = 4/"data" = 2, "model" = 3/' %s > %t.uneven.mlir
// RUN: not weft-opt %t.uneven.mlir --weft-propagate --weft-pad-uneven 2>&1 | FileCheck %s --check-prefix=UNEVEN
// UNEVEN: uneven.mlir:[[@LINE+7]]:8: error: 'weft.concat' op joins along dimension 2 (size 16), which a sharding splits over axes that do not divide it (it would be padded to 18)

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @f(%x: tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>,
             %y: tensor<4x8x8xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>)
    -> (tensor<4x8x24xf32>, tensor<4x3x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>, tensor<4x8x8xf32>,
        tensor<2x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) {
  %c = weft.concat %x, %y dim 2 : (tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<4x8x8xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>) -> tensor<4x8x24xf32>
  %s = weft.slice %x dim 1 start 2 : tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<4x3x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
  %lo = weft.slice %x dim 2 start 0 : tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<4x8x8xf32>
  %hi = weft.slice %x dim 2 start 8 : tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<4x8x8xf32>
  %g = weft.map mul "abc,abc->abc" (%lo, %hi) : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %b = weft.slice %x dim 0 start 1 : tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<2x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  return %c, %s, %g, %b : tensor<4x8x24xf32>, tensor<4x3x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>, tensor<4x8x8xf32>, tensor<2x8x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
}

// Guards the weft-opt item of robustness.md: an uneven shard reaching
// --weft-partition (without --weft-pad-uneven) was reported on the func.func
// op, so weft-opt followed the error with a dump of the whole function
// ("see current operation: ...") unless --mlir-print-op-on-diagnostic=false
// was given. It is reported at the argument itself (or at the op whose
// result it is), and nothing is dumped.

// RUN: not weft-opt --weft-partition %s 2>&1 | FileCheck %s
// CHECK: partition-uneven-no-dump.mlir:[[@LINE+7]]:19: error: dimension #0 of argument #0 of @uneven has size 10, which is not divisible by 4 (the product of axes "model"): run --weft-pad-uneven before --weft-partition (weftc does)
// CHECK-NOT: see current operation
// The body (its weft.map) is printed only by a dump; the source line shown
// under the error is the function's first line.
// CHECK-NOT: weft.map

weft.mesh @mesh ["model" = 4]
func.func @uneven(%x: tensor<10xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<10xf32, #weft.sharding<@mesh, [{"model"}]>> {
  %y = weft.map neg "i->i" (%x) {weft.split = {i = ["model"]}}
      : (tensor<10xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<10xf32, #weft.sharding<@mesh, [{"model"}]>>
  return %y : tensor<10xf32, #weft.sharding<@mesh, [{"model"}]>>
}

// -debug-only=PASS prints the pass's trace (WEFT_DEBUG, Debug.h), also with
// Debian's release build of LLVM, which registers no -debug-only itself:
// DEBUG_TYPE equals each pass's flag. Regression test for the consolidation
// issue ("-debug-only=weft-propagate prints nothing").
// RUN: weft-opt --weft-propagate --weft-partition -debug-only=weft-propagate %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROP
// RUN: weft-opt --weft-propagate --weft-partition -debug-only=weft-partition %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PART
// RUN: weft-opt --weft-propagate --weft-partition %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// PROP: [weft-propagate] decided weft.einsum at {{.*}}debug-only.mlir":[[@LINE+7]]:8): letters {f = {"model"}}, cost 0 B per device, 1 candidate(s)
// PROP-NOT: [weft-partition]
// PART-NOT: [weft-propagate]
// PART: [weft-partition] inserted {{.*}}"weft.all_reduce"{{.*}} (function result #0)
// QUIET-NOT: [weft-
weft.mesh @mesh ["model" = 4]
func.func @mlp(%x: tensor<4x256xf32>, %w1: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, %w2: tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x256xf32, #weft.sharding<@mesh, [{}, {}]>> {
  %h = weft.einsum "bd,df->bf" (%x, %w1) : (tensor<4x256xf32>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x1024xf32>
  %y = weft.einsum "bf,fd->bd" (%h, %w2) : (tensor<4x1024xf32>, tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x256xf32, #weft.sharding<@mesh, [{}, {}]>>
  return %y : tensor<4x256xf32, #weft.sharding<@mesh, [{}, {}]>>
}

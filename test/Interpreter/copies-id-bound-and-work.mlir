// weft-interp on copies (weft.slice, weft.concat): ids that reach a lookup
// only through a slice are drawn below the lookup's rows (the id bound
// follows slice, concat and reshape like weft.shard), and the work of a
// copy is its elements (not the product of its letters, where the moved
// dimension has one letter per tensor: a 16M-element slice and a 3-way
// concat were refused as over 2^33 iterations). Fuzzer findings.
// RUN: weft-interp %s | FileCheck %s
// CHECK: result #0: tensor<4x6xf32>
// CHECK: result #1: tensor<2048x4096xf32>
// CHECK: result #2: tensor<1728xf32>
// The bound: ids below 4 (the compiled harness draws them the same way).
// RUN: weftc %s --emit=cpp | FileCheck %s --check-prefix=BOUND
// BOUND: "ids i32 [8] [{0}] bound=4\n"

weft.mesh @m ["x" = 2]
func.func @f(%ids: tensor<8xi32, #weft.sharding<@m, [{"x"}]>>, %t: tensor<4x6xf32>,
             %a: tensor<4096x4096xf32>, %v: tensor<576xf32>)
    -> (tensor<4x6xf32>, tensor<2048x4096xf32>, tensor<1728xf32>) {
  %s = weft.slice %ids dim 0 start 2 : tensor<8xi32, #weft.sharding<@m, [{"x"}]>> -> tensor<4xi32>
  %e = weft.embed "b,vd->bd" (%s, %t) : (tensor<4xi32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %big = weft.slice %a dim 0 start 512 : tensor<4096x4096xf32> -> tensor<2048x4096xf32>
  %c = weft.concat %v, %v, %v dim 0 : (tensor<576xf32>, tensor<576xf32>, tensor<576xf32>) -> tensor<1728xf32>
  return %e, %big, %c : tensor<4x6xf32>, tensor<2048x4096xf32>, tensor<1728xf32>
}

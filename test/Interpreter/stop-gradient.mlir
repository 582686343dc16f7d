// weft.stop_gradient in the interpreter is the identity, on the global
// view and on each rank's block after partitioning.
// RUN: weft-interp %s --print-values | FileCheck %s
// RUN: weft-opt %s --weft-propagate --weft-partition -o %t.local.mlir
// RUN: weft-interp %t.local.mlir --print-values | FileCheck %s

// CHECK: result #0: tensor<8xf32>
// CHECK-NEXT: values: 0 3 6 9 12 15 18 21
weft.mesh @mesh ["x" = 2]
func.func @f() -> tensor<8xf32, #weft.sharding<@mesh, [{}]>> {
  %i = weft.iota : tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>>
  %k = weft.map scale "i->i" (%i) {scalar = 2.0 : f64} : (tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>>) -> tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>>
  %s = weft.stop_gradient %k : tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>> -> tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>>
  %t = weft.map add "i,i->i" (%s, %i) : (tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>>, tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>>) -> tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>>
  %r = weft.shard %t : tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>> -> tensor<8xf32, #weft.sharding<@mesh, [{}]>>
  return %r : tensor<8xf32, #weft.sharding<@mesh, [{}]>>
}

// Every annotated argument and result is checked against its mesh when a
// pass or tool learns the function's mesh (getFunctionMesh), also when no op
// uses it. Regression tests for ../shared/robustness.md D11 and the
// sigfpe-partition-unused-arg reproducer of D1.
// RUN: weft-opt --weft-propagate -split-input-file -verify-diagnostics %s
// RUN: weft-opt --weft-partition -split-input-file -verify-diagnostics %s

// D11: an unused argument names an axis the mesh lacks.
weft.mesh @mesh ["model" = 2]
// expected-error@+1 {{'func.func' op names axis "nope", which mesh @mesh does not have (its axes: "model")}}
func.func @f(%x: tensor<8xf32, #weft.sharding<@mesh, [{"nope"}]>>, %y: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32> {
  %z = weft.map relu "i->i" (%y) : (tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32>
  return %z : tensor<8xf32>
}


// weft.stop_gradient: the identity with a zero gradient. It round-trips,
// its verifier refuses a change of shape or element type, propagation
// passes a partial operand through it (the sharding rule is the identity:
// the partial max of a vocabulary-parallel loss is not resolved for it),
// and partitioning keeps it on the local block.
// RUN: weft-opt %s --split-input-file --verify-diagnostics | weft-opt | FileCheck %s --check-prefix=RT
// RUN: weft-opt %s --split-input-file --verify-diagnostics --weft-propagate | FileCheck %s --check-prefix=PROP
// RUN: weft-opt %s --split-input-file --verify-diagnostics --weft-propagate --weft-partition | FileCheck %s --check-prefix=PART

// RT-LABEL: func.func @sg
// RT: weft.stop_gradient %{{.*}} : tensor<4xf32> -> tensor<4xf32>
// PROP-LABEL: func.func @sg
// The max over the model-split v is partial (max) over model and stays so
// through stop_gradient; the sub reads it partial is not allowed, so the
// resolution happens after it, once.
// PROP: weft.reduce max "bv->b"{{.*}} -> tensor<4xf32, #weft.sharding<@mesh, [{}], partial = max {"model"}>>
// PROP: weft.stop_gradient {{.*}}: tensor<4xf32, #weft.sharding<@mesh, [{}], partial = max {"model"}>> -> tensor<4xf32, #weft.sharding<@mesh, [{}], partial = max {"model"}>>
// PART-LABEL: func.func @sg
// PART: %[[M:.*]] = weft.reduce max "bv->b"
// PART: %[[S:.*]] = weft.stop_gradient %[[M]] {{.*}}: tensor<4xf32> -> tensor<4xf32>
// PART: weft.all_reduce max %[[S]] on @mesh over ["model"]
weft.mesh @mesh ["model" = 2]
func.func @sg(%x: tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {
  %m = weft.reduce max "bv->b" (%x) : (tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4xf32>
  %s = weft.stop_gradient %m : tensor<4xf32> -> tensor<4xf32>
  %y = weft.map sub "bv,b->bv" (%x, %s) : (tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<4xf32>) -> tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  return %y : tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
}

// -----

func.func @bad(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'weft.stop_gradient' op changes the shape or element type: 'tensor<4xf32>' -> 'tensor<4xf64>'; a stop_gradient is the identity}}
  %s = weft.stop_gradient %x : tensor<4xf32> -> tensor<4xf64>
  return %s : tensor<4xf64>
}

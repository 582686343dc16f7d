// weft.stop_gradient lowers to nothing: its result is its operand's
// buffer, so the map reads the einsum's result directly.
// RUN: weft-opt --weft-lower-to-runtime %s | FileCheck %s

// CHECK-NOT: stop_gradient
// CHECK: %[[P:.*]] = call_opaque "weft::rt::gen::einsum"
// CHECK: call_opaque "weft::rt::gen::map"(%arg0, %[[P]])
// CHECK-NOT: stop_gradient
func.func @step(%x: tensor<4x8xf32> {weft.name = "x", weft.global_type = tensor<4x8xf32>},
                %w: tensor<8x6xf32> {weft.name = "w", weft.global_type = tensor<8x6xf32>})
    -> (tensor<4x6xf32> {weft.name = "y", weft.global_type = tensor<4x6xf32>}) {
  %p = weft.einsum "bd,dn->bn" (%x, %w) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %s = weft.stop_gradient %p : tensor<4x6xf32> -> tensor<4x6xf32>
  %r = weft.map relu "bn->bn" (%s) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// RUN: weft-opt %s --split-input-file --weft-autodiff -verify-diagnostics | FileCheck %s
// A function that returns its own gradients (the loss, then one result per
// weft.param argument marked weft.grad_of: a 1F1B pipeline computes them
// itself, docs/pipeline.md) is not differentiated again: --weft-autodiff
// checks the form, names each gradient after its parameter and, as for the
// gradients it builds, constrains an open gradient to its parameter's
// layout.

weft.mesh @mesh ["data" = 2]
// CHECK-LABEL: func.func @own(
// CHECK-SAME: -> (tensor<f32> {weft.name = "loss"}, tensor<4x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.grad_of = 0 : i64, weft.name = "grad_w"})
// CHECK: %[[L:.*]] = weft.reduce sum
// CHECK-NEXT: %[[G:.*]] = weft.map scale
// CHECK-NEXT: %[[C:.*]] = weft.shard %[[G]] : tensor<4x4xf32> -> tensor<4x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
// CHECK-NEXT: return %[[L]], %[[C]]
func.func @own(%w: tensor<4x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.param, weft.name = "w"})
    -> (tensor<f32> {weft.name = "loss"}, tensor<4x4xf32> {weft.grad_of = 0 : i64}) {
  %l = weft.reduce sum "ab->" (%w) : (tensor<4x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<f32>
  // A wrong gradient on purpose: autodiff would give ones, this is 2 w.
  %g = weft.map scale "ab->ab" (%w) {scalar = 2.0 : f64} : (tensor<4x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<4x4xf32>
  return %l, %g : tensor<f32>, tensor<4x4xf32>
}

// -----

func.func @missing(%w: tensor<4xf32> {weft.param}, %v: tensor<4xf32> {weft.param}) -> (tensor<f32>, tensor<4xf32> {weft.grad_of = 0 : i64}) {
  %l = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  // expected-error@+1 {{--weft-autodiff: the function returns its own gradients but none of argument #1 (arg1), a weft.param}}
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

func.func @twice(%w: tensor<4xf32> {weft.param}) -> (tensor<f32>, tensor<4xf32> {weft.grad_of = 0 : i64}, tensor<4xf32> {weft.grad_of = 0 : i64}) {
  %l = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  // expected-error@+1 {{--weft-autodiff: results #1 and #2 are both the gradient of argument #0}}
  return %l, %w, %w : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @not_param(%w: tensor<4xf32> {weft.param}, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32> {weft.grad_of = 1 : i64}) {
  %l = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  // expected-error@+1 {{--weft-autodiff: result #1 is marked weft.grad_of = 1, which is not a weft.param argument}}
  return %l, %x : tensor<f32>, tensor<4xf32>
}

// -----

func.func @shape(%w: tensor<4xf32> {weft.param}) -> (tensor<f32>, tensor<2xf32> {weft.grad_of = 0 : i64}) {
  %l = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  %s = weft.slice %w dim 0 start 0 : tensor<4xf32> -> tensor<2xf32>
  // expected-error@+1 {{--weft-autodiff: result #1 ('tensor<2xf32>') is the gradient of argument #0, of type 'tensor<4xf32>'}}
  return %l, %s : tensor<f32>, tensor<2xf32>
}

// -----

func.func @extra(%w: tensor<4xf32> {weft.param}) -> (tensor<f32>, tensor<4xf32> {weft.grad_of = 0 : i64}, tensor<4xf32>) {
  %l = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  // expected-error@+1 {{--weft-autodiff: result #2 is not marked weft.grad_of; a function that returns its own gradients returns the loss and one gradient per weft.param argument only}}
  return %l, %w, %w : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @loss_last(%w: tensor<4xf32> {weft.param}) -> (tensor<4xf32> {weft.grad_of = 0 : i64}, tensor<f32>) {
  %l = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  // expected-error@+1 {{--weft-autodiff: a function that returns its own gradients (weft.grad_of results) must return the scalar loss first}}
  return %w, %l : tensor<4xf32>, tensor<f32>
}

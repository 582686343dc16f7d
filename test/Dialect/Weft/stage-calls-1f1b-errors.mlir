// RUN: weft-opt %s --weft-stage-calls="stages=2 micro-batches=2 schedule=1f1b" -split-input-file -verify-diagnostics
// RUN: not weft-opt %s --weft-stage-calls="stages=2 schedule=2f2b" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: weft-stage-calls: schedule=2f2b: gpipe or 1f1b
// 1F1B from layer calls (docs/pipeline.md, "1F1B from layer calls") takes
// the loss one micro-batch at a time, so the ops after the chain must make
// it a sum over the batch's rows. Each case breaks that once, and the
// error is at the op that does.
// A max over the rows: the micro-batches' maxima do not add up to it.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}) -> tensor<f32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  // expected-error @+1 {{weft-stage-calls (1f1b): drops the batch's rows other than by a sum}}
  %m = weft.reduce max "bd->d" (%h) : (tensor<8x4xf32>) -> tensor<4xf32>
  %l = weft.reduce sum "d->" (%m) : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The log of the sum: not linear in it.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}) -> tensor<f32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %s = weft.reduce sum "bd->" (%h) : (tensor<8x4xf32>) -> tensor<f32>
  // expected-error @+1 {{weft-stage-calls (1f1b): is not linear in the sum over the batch's rows}}
  %l = weft.map log "->" (%s) : (tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A constant added to the sum would be added once per micro-batch.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}) -> tensor<f32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %s = weft.reduce sum "bd->" (%h) : (tensor<8x4xf32>) -> tensor<f32>
  %c = weft.constant 1.0 : tensor<f32>
  // expected-error @+1 {{weft-stage-calls (1f1b): is not linear in the sum over the batch's rows}}
  %l = weft.map add ",->" (%s, %c) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A batch norm: each row needs the whole batch's mean.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}) -> tensor<f32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %mu = weft.reduce sum "bd->d" (%h) : (tensor<8x4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{weft-stage-calls (1f1b): combines a value summed over the batch's rows with one that has them}}
  %c = weft.map sub "bd,d->bd" (%h, %mu) : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %l = weft.reduce sum "bd->" (%c) : (tensor<8x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An op whose rows 1F1B cannot follow.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}) -> tensor<f32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  // expected-error @+1 {{weft-stage-calls (1f1b): reads the chain's result: 1F1B takes the loss one micro-batch at a time}}
  %r = weft.slice %h dim 0 start 0 : tensor<8x4xf32> -> tensor<1x4xf32>
  %l = weft.reduce sum "bd->" (%r) : (tensor<1x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The target with the batch's rows in dimension 1.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}, %yt: tensor<4x8xf32>) -> tensor<f32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  // expected-error @+1 {{weft-stage-calls (1f1b): reads operand #1 with the batch's rows at dimension 1}}
  %d = weft.map sub "bd,db->bd" (%h, %yt) : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x4xf32>
  %l = weft.reduce sum "bd->" (%d) : (tensor<8x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A value computed from a parameter outside the layers: its gradient
// would not reach the parameter.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}, %v: tensor<4xf32> {weft.param}) -> tensor<f32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %v2 = weft.map scale "d->d" (%v) {scalar = 2.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{weft-stage-calls (1f1b): reads operand #1, computed from the parameter arg3 outside the layers}}
  %p = weft.einsum "bd,d->" (%h, %v2) : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<f32>
  return %p : tensor<f32>
}

// -----

// The entry returns more than the loss.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}) -> (tensor<f32>, tensor<8x4xf32>) {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %l = weft.reduce sum "bd->" (%h) : (tensor<8x4xf32>) -> tensor<f32>
  // expected-error @+1 {{weft-stage-calls (1f1b): 1F1B needs the entry to return its scalar loss alone}}
  return %l, %h : tensor<f32>, tensor<8x4xf32>
}

// -----

// The chain's input is a parameter: it would need a gradient from the
// stage-0 cotangents and a place in the micro-batches at once.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32> {weft.param}, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}) -> tensor<f32> {
  // expected-error @+1 {{weft-stage-calls (1f1b): the chain's input is a parameter}}
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %l = weft.reduce sum "bd->" (%h) : (tensor<8x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// RUN: weft-opt %s --weft-stage-calls="stages=2 micro-batches=2" -split-input-file -verify-diagnostics
// Errors name a line and dump no function: weft-opt prints the op an
// error is attached to, and these are attached to the call or the op at
// fault (one line), or to none (the function's line).
// RUN: not weft-opt %s --weft-stage-calls="stages=2 micro-batches=2" -split-input-file 2>&1 | FileCheck %s --check-prefix=NODUMP
// NODUMP: error: weft-stage-calls: 3 calls of @layer
// NODUMP-NOT: "func.func"
// Negative options are errors, not "off".
// RUN: not weft-opt %s --weft-stage-calls="stages=-1" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not weft-opt %s --weft-stage-calls="stages=2 micro-batches=-3" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: weft-stage-calls: stages={{-?[0-9]+}} micro-batches={{-?[0-9]+}}: neither may be negative
// Without stages=, the annotations alone start the pass: the call inside a
// layer (the last case) is an error, not a crash (it was a division by
// zero).
// RUN: not weft-opt %s --weft-stage-calls -split-input-file 2>&1 | FileCheck %s --check-prefix=NOSTAGES
// NOSTAGES: error: weft-stage-calls: weft.stage on a call in @layer: only the layer calls of the entry, @f, are pipeline stages

// 3 calls do not divide into 2 stages.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{3 calls of @layer do not divide into 2 stages of equal length}}
  %a = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %c = func.call @layer(%b, %w2) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// The calls do not form a chain.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{does not read the previous call's result: the calls of @layer must form one chain}}
  %b = func.call @layer(%x, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %c = weft.map add "bd,bd->bd" (%a, %b) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// A value passed to every call that depends on the batch.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %r: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %o = weft.map add "be,be->be" (%h, %r) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32> {weft.name = "x"}, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{operand 2 is passed to every call and depends on the function's argument x}}
  %a = func.call @layer(%x, %w0, %x) : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1, %x) : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// The batch does not divide into the micro-batches.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<7x16xf32>, %w: tensor<16x16xf32>) -> tensor<7x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<7x16xf32>, tensor<16x16xf32>) -> tensor<7x16xf32>
  return %h : tensor<7x16xf32>
}
func.func @f(%x: tensor<7x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<7x16xf32> {
  // expected-error @+1 {{the batch (dimension 0 of the activation, 7 rows) does not divide into 2 micro-batches}}
  %a = func.call @layer(%x, %w0) : (tensor<7x16xf32>, tensor<16x16xf32>) -> tensor<7x16xf32>
  %b = func.call @layer(%a, %w1) : (tensor<7x16xf32>, tensor<16x16xf32>) -> tensor<7x16xf32>
  return %b : tensor<7x16xf32>
}

// -----

// No "stage" axis.
weft.mesh @mesh ["data" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
// expected-error @+1 {{the mesh has no axis "stage" to split the stages over}}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// An op of the layer that has no per-stage form.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{cannot run once per pipeline stage}}
  %s = weft.slice %h dim 1 start 0 : tensor<8x16xf32> -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// A weight read outside its call (a stage holds it alone).
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> (tensor<8x16xf32>, tensor<16x16xf32>) {
  %a = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{operand 1 differs between calls, so it is a layer's weight, and must be an argument of @f used by this call alone}}
  %b = func.call @layer(%a, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %t = weft.map scale "de->de" (%w1) {scalar = 2.0 : f64} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  return %b, %t : tensor<8x16xf32>, tensor<16x16xf32>
}

// -----

// weft.stage on some calls of the chain only.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) {weft.stage = 0 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{has no integer weft.stage while other calls of the chain have one: annotate every layer call with its stage, or none}}
  %b = func.call @layer(%a, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// A stage skipped.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) {weft.stage = 0 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{weft.stage = 2 after a call on stage 0: the stages run the chain's calls in order, from stage 0, each stage a run of consecutive calls}}
  %b = func.call @layer(%a, %w1) {weft.stage = 2 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// The first call not on stage 0.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{weft.stage = 1 on the first call: the stages run the chain's calls in order, from stage 0}}
  %a = func.call @layer(%x, %w0) {weft.stage = 1 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) {weft.stage = 2 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// Unequal stages: 3 calls on stage 0, 1 on stage 1.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>, %w3: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) {weft.stage = 0 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) {weft.stage = 0 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %c = func.call @layer(%b, %w2) {weft.stage = 0 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{stage 1 has 1 call(s) and stage 0 has 3: the rolling buffer runs one layer function per stage and tick, so every stage runs the same number of calls}}
  %d = func.call @layer(%c, %w3) {weft.stage = 1 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

// A stage that is not an integer.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{weft.stage = "a": a stage is an integer (weft.stage = 1 : i64)}}
  %a = func.call @layer(%x, %w0) {weft.stage = "a"} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) {weft.stage = "b"} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// weft.stage on a call inside a layer, not the entry's.
weft.mesh @mesh ["stage" = 2]
func.func private @inner(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %h = weft.map relu "bd->bd" (%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{weft.stage on a call in @layer: only the layer calls of the entry, @f, are pipeline stages}}
  %r = func.call @inner(%h) {weft.stage = 1 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// A layer weight laid out over the stage axis: the stacked weight's new
// leading dimension is split over it (weftc crashed in stackedType).
weft.mesh @mesh ["stage" = 2, "model" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model", "stage"}]>>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model", "stage"}]>>) -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model", "stage"}]>>, %w1: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model", "stage"}]>>) -> tensor<8x16xf32> {
  // expected-error @+1 {{weft-stage-calls: @layer's argument #1 ('tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model", "stage"}]>>') is laid out over the mesh axis "stage", which the stages are split over}}
  %a = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model", "stage"}]>>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model", "stage"}]>>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// A value inside the layer laid out over the stage axis.
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{weft-stage-calls: a value of the layer ('tensor<8x16xf32, #weft.sharding<@mesh, [{"stage"}, {}]>>') is laid out over the mesh axis "stage", which the stages are split over}}
  %s = weft.shard %h : tensor<8x16xf32> -> tensor<8x16xf32, #weft.sharding<@mesh, [{"stage"}, {}]>>
  %r = weft.map relu "be->be" (%s) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"stage"}, {}]>>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = func.call @layer(%a, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// The attributes of dynamic loss scaling (docs/precision.md), declared in
// the dialect's ODS and verified wherever they appear: `weft.loss_seed` only
// on the backward's seed (a rank-0 float weft.constant 1.0) and
// `weft.finite_grads` only on a rank-0 float function result. A bad value is
// an error at the op that carries it.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

// The forms --weft-autodiff and --weft-optimizer write are accepted.
func.func @good(%a: tensor<f32>) -> (tensor<f32>, tensor<bf16> {weft.finite_grads, weft.name = "grads_finite"}) {
  %seed = weft.constant 1.0 {weft.loss_seed} : tensor<f32>
  %ok = weft.constant 1.0 : tensor<bf16>
  return %seed, %ok : tensor<f32>, tensor<bf16>
}

// -----

func.func @seed_not_one() -> tensor<f32> {
  // expected-error@+1 {{'weft.constant' op weft.loss_seed marks the seed d loss / d loss, which is 1, not 2}}
  %seed = weft.constant 2.0 {weft.loss_seed} : tensor<f32>
  return %seed : tensor<f32>
}

// -----

func.func @seed_not_rank0() -> tensor<4xf32> {
  // expected-error@+1 {{'weft.constant' op weft.loss_seed marks the seed of the backward (d loss / d loss), a rank-0 float weft.constant; it is not for this op}}
  %seed = weft.constant 1.0 {weft.loss_seed} : tensor<4xf32>
  return %seed : tensor<4xf32>
}

// -----

func.func @seed_on_a_map(%a: tensor<f32>) -> tensor<f32> {
  // expected-error@+1 {{'weft.map' op weft.loss_seed marks the seed of the backward (d loss / d loss), a rank-0 float weft.constant; it is not for this op}}
  %s = weft.map exp "->" (%a) {weft.loss_seed} : (tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @seed_not_unit() -> tensor<f32> {
  // expected-error@+1 {{'weft.constant' op weft.loss_seed must be a unit attribute, got 1 : i64}}
  %seed = weft.constant 1.0 {weft.loss_seed = 1} : tensor<f32>
  return %seed : tensor<f32>
}

// -----

// expected-error@+1 {{'func.func' op argument #0: weft.loss_seed marks the backward's seed, an op, not an argument}}
func.func @seed_on_argument(%a: tensor<f32> {weft.loss_seed}) -> tensor<f32> {
  return %a : tensor<f32>
}

// -----

// expected-error@+1 {{'func.func' op result #0: weft.loss_seed marks the backward's seed, an op, not a result}}
func.func @seed_on_result(%a: tensor<f32>) -> (tensor<f32> {weft.loss_seed}) {
  return %a : tensor<f32>
}

// -----

// expected-error@+1 {{'func.func' op result #0: weft.finite_grads marks the step's overflow check (1 or 0), a rank-0 float tensor, not 'tensor<4xf32>'}}
func.func @finite_not_rank0(%a: tensor<4xf32>) -> (tensor<4xf32> {weft.finite_grads}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op result #0: weft.finite_grads marks the step's overflow check (1 or 0), a rank-0 float tensor, not 'tensor<i32>'}}
func.func @finite_int(%a: tensor<i32>) -> (tensor<i32> {weft.finite_grads}) {
  return %a : tensor<i32>
}

// -----

// expected-error@+1 {{'func.func' op result #0: weft.finite_grads must be a unit attribute, got "yes"}}
func.func @finite_not_unit(%a: tensor<f32>) -> (tensor<f32> {weft.finite_grads = "yes"}) {
  return %a : tensor<f32>
}

// -----

// expected-error@+1 {{'func.func' op argument #0: weft.finite_grads marks a result, not an argument}}
func.func @finite_on_argument(%a: tensor<f32> {weft.finite_grads}) -> tensor<f32> {
  return %a : tensor<f32>
}

// -----

func.func @finite_on_op(%a: tensor<f32>) -> tensor<f32> {
  // expected-error@+1 {{'weft.map' op weft.finite_grads marks a function result (the step's overflow check), not an op}}
  %s = weft.map exp "->" (%a) {weft.finite_grads} : (tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}

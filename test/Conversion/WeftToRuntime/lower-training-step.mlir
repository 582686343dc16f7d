// RUN: weft-opt --weft-lower-to-runtime=entry=step %s | mlir-translate --mlir-to-cpp | FileCheck %s
// RUN: not weft-opt --weft-lower-to-runtime --split-input-file %s 2>&1 | FileCheck %s --check-prefix=ERR

// What a training step adds to the lowering (docs/training.md): weft.constant
// as gen::constant with its fill plan planned now, a map that broadcasts
// along a result letter (planMap given the result's shape), and the roles
// of the ProgramInfo: parameters, state, step and lr inputs, outputs that
// update an input.

// CHECK: static const weft::rt::MapPlan &[[FILL:weft_plan[0-9]+]]() {
// CHECK-NEXT: static const weft::rt::MapPlan plan = weft::rt::MapPlan{.spec = "a->a", {{.*}}.outShape = {6}
// CHECK: static const weft::rt::MapPlan &[[BCAST:weft_plan[0-9]+]]() {
// CHECK-NEXT: static const weft::rt::MapPlan plan = weft::rt::MapPlan{.spec = "->ab", .inShapes = {{[{][{][}][}]}}, .outShape = {2, 3}
// CHECK: weft::rt::gen::constant(v1, weft::rt::DType::F32, weft::rt::Shape{2, 3}, [[FILL]](), 0.5, "#0 constant 0.5"
// CHECK: weft::rt::gen::map(v1, weft::rt::gen::Dying{0b1}, weft::rt::MapKind::Scale, [[BCAST]](),
// The update is the last use of the parameter and of %u: the runtime may
// write the new parameter into the donated old one's buffer.
// CHECK: weft::rt::gen::map(v1, weft::rt::gen::Dying{0b11}, weft::rt::MapKind::Sub,
// CHECK: .inputs = weft::rt::decodeTensorTable(
// CHECK-NEXT: "w f32 [2,3] [{},{}] role=1\n"
// CHECK-NEXT: "m_w f32 [2,3] [{},{}] role=2\n"
// CHECK-NEXT: "step f32 [] [] role=3\n"
// CHECK-NEXT: "lr f32 [] [] role=4\n"
// CHECK: .outputs = weft::rt::decodeTensorTable(
// CHECK-NEXT: "new_w f32 [2,3] [{},{}] updates=0\n"
// CHECK-NEXT: "new_m_w f32 [2,3] [{},{}] updates=1\n"
// CHECK: .optimizer = "sgd", .defaultLr = 0.10000000000000001, .microBatches = 1};

func.func @step(
    %w: tensor<2x3xf32> {weft.name = "w", weft.param, weft.global_type = tensor<2x3xf32>},
    %m: tensor<2x3xf32> {weft.name = "m_w", weft.state_of = 0 : i64, weft.global_type = tensor<2x3xf32>},
    %t: tensor<f32> {weft.name = "step", weft.hyperparam = "step", weft.global_type = tensor<f32>},
    %lr: tensor<f32> {weft.name = "lr", weft.hyperparam = "lr", weft.global_type = tensor<f32>})
    -> (tensor<2x3xf32> {weft.name = "new_w", weft.updates = 0 : i64, weft.global_type = tensor<2x3xf32>},
        tensor<2x3xf32> {weft.name = "new_m_w", weft.updates = 1 : i64, weft.global_type = tensor<2x3xf32>})
    attributes {weft.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  %c = weft.constant 0.5 : tensor<2x3xf32>
  %b = weft.map scale "->ab" (%lr) {scalar = 1.0 : f64} : (tensor<f32>) -> tensor<2x3xf32>
  %u = weft.map mul "ab,ab->ab" (%c, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = weft.map sub "ab,ab->ab" (%w, %u) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %n, %m : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// ERR: error: result #0 updates argument #0 but its global type or layout differs: the runtime feeds it back in place
func.func @wrong_type(%w: tensor<2x3xf32> {weft.param, weft.global_type = tensor<2x3xf32>})
    -> (tensor<3x2xf32> {weft.updates = 0 : i64, weft.global_type = tensor<3x2xf32>}) {
  %c = weft.constant 0.0 : tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// ERR: error: result #0 updates argument #0, which is neither a weft.param nor optimizer state
func.func @not_trained(%x: tensor<2xf32> {weft.global_type = tensor<2xf32>})
    -> (tensor<2xf32> {weft.updates = 0 : i64, weft.global_type = tensor<2xf32>}) {
  return %x : tensor<2xf32>
}

// -----

// ERR: error: argument #0: weft.hyperparam must be "step", "lr" or "loss_scale", not "momentum"
func.func @bad_hyper(%x: tensor<f32> {weft.hyperparam = "momentum", weft.global_type = tensor<f32>})
    -> (tensor<f32> {weft.global_type = tensor<f32>}) {
  return %x : tensor<f32>
}

// RUN: weft-opt --weft-lower-to-runtime %s | mlir-translate --mlir-to-cpp | FileCheck %s

// Which operands of a map or fused map the lowering marks as dying there
// (weft::rt::gen::Dying, bit i: the call's i-th tensor operand, 0b01 the
// first), so the runtime may write the result into one of their buffers
// (docs/runtime.md, "In-place elementwise ops"). A mark is a permission:
// the runtime still checks that nothing else holds the buffer and that
// the shapes and strides allow it.

func.func @f(%x: tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>},
             %b: tensor<8xf32> {weft.global_type = tensor<8xf32>})
    -> (tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>},
        tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>}) {
  // CHECK: [[E:v[0-9]+]] = weft::rt::gen::map({{v[0-9]+}}, weft::rt::MapKind::Exp, {{.*}}, [[X:v[0-9]+]], 0.0,
  %e = weft.map exp "ab->ab" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // %x is used once more below: not marked. %e dies here: bit 0.
  // CHECK: [[S:v[0-9]+]] = weft::rt::gen::map({{v[0-9]+}}, weft::rt::gen::Dying{0b01}, weft::rt::MapKind::Add, {{.*}}, [[E]], [[X]],
  %s = weft.map add "ab,ab->ab" (%e, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // A value passed twice is marked at both places: the runtime reuses it
  // only when both read it element for element.
  // CHECK: [[Q:v[0-9]+]] = weft::rt::gen::map({{v[0-9]+}}, weft::rt::gen::Dying{0b11}, weft::rt::MapKind::Mul, {{.*}}, [[S]], [[S]],
  %q = weft.map mul "ab,ab->ab" (%s, %s) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // A fused map: %q and the input %b die here (bits 0 and 2); %x is a
  // function result, alive to the end.
  // CHECK: [[F:v[0-9]+]] = weft::rt::gen::fusedMap({{v[0-9]+}}, weft::rt::gen::Dying{0b101}, {{.*}}, [[Q]], [[X]], {{v[0-9]+}});
  %f = weft.fused_map "ab,ab,b->ab" (%q, %x, %b) steps "s0 = add(in0, in1); s1 = add(s0, in2)" : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: weft::rt::gen::output({{v[0-9]+}}, 0, [[F]]);
  // CHECK: weft::rt::gen::output({{v[0-9]+}}, 1, [[X]]);
  return %f, %x : tensor<4x8xf32>, tensor<4x8xf32>
}

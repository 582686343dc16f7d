// With --round-half-results every op whose result is bf16 rounds it where
// the program stores it, not only weft.convert (docs/interpreter.md, docs/precision.md): the bf16
// einsum of 1 + 2^-7 with itself is 1 + 2^-6 + 2^-14, stored as 1 + 2^-6
// (1.015625); a bf16 map add of 4 and 2^-6 is 4.015625, a tie between the
// bf16 neighbours 4 and 4 + 2^-5, stored as the even 4. Unrounded, the
// results would read 1.01568603515625 (printed 1.01568603516) and 4.015625.
// RUN: weft-interp %s --round-half-results --print-values | FileCheck %s
// Without the flag (the default: the partitioner's oracle compares in
// exact arithmetic) only weft.convert and constants round.
// RUN: weft-interp %s --print-values | FileCheck %s --check-prefix=EXACT
// EXACT: values: 1.01568603516
// EXACT: values: 4.015625
// CHECK: result #0: tensor<f32>
// CHECK-NEXT: values: 1.015625
// CHECK: result #1: tensor<f32>
// CHECK-NEXT: values: 4
func.func @f() -> (tensor<f32>, tensor<f32>) {
  %a = weft.constant 1.0078125 : tensor<bf16>
  %p = weft.einsum ",->" (%a, %a) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  %p32 = weft.convert %p : tensor<bf16> -> tensor<f32>
  // 4 + 2^-6 = 4.015625 is not a bf16 (its spacing at 4 is 2^-5): a map
  // add storing bf16 rounds it to the even 4.
  %four = weft.constant 4.0 : tensor<bf16>
  %e = weft.constant 0.015625 : tensor<bf16>
  %s = weft.map add ",->" (%four, %e) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  %s32 = weft.convert %s : tensor<bf16> -> tensor<f32>
  return %p32, %s32 : tensor<f32>, tensor<f32>
}

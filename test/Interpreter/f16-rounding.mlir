// With --round-half-results every op whose result is f16 rounds it where
// the program stores it, as bf16-rounding.mlir checks for bf16: the f16
// einsum of 1 + 2^-10 with itself is 1 + 2^-9 + 2^-20, stored as 1 + 2^-9
// (1.001953125); a f16 map add of 4 and 2^-9 is 4.001953125, a tie
// between the f16 neighbours 4 and 4 + 2^-8, stored as the even 4.
// Unrounded, the results would read 1.00195407867 and 4.001953125.
// RUN: weft-interp %s --round-half-results --print-values | FileCheck %s
// RUN: weft-interp %s --print-values | FileCheck %s --check-prefix=EXACT
// EXACT: values: 1.00195407867
// EXACT: values: 4.001953125
// CHECK: result #0: tensor<f32>
// CHECK-NEXT: values: 1.001953125
// CHECK: result #1: tensor<f32>
// CHECK-NEXT: values: 4{{$}}
func.func @f() -> (tensor<f32>, tensor<f32>) {
  %a = weft.constant 1.0009765625 : tensor<f16>
  %p = weft.einsum ",->" (%a, %a) : (tensor<f16>, tensor<f16>) -> tensor<f16>
  %p32 = weft.convert %p : tensor<f16> -> tensor<f32>
  // 4 + 2^-9 is not an f16 (its spacing at 4 is 2^-8): a map add storing
  // f16 rounds it to the even 4.
  %four = weft.constant 4.0 : tensor<f16>
  %e = weft.constant 0.001953125 : tensor<f16>
  %s = weft.map add ",->" (%four, %e) : (tensor<f16>, tensor<f16>) -> tensor<f16>
  %s32 = weft.convert %s : tensor<f16> -> tensor<f32>
  return %p32, %s32 : tensor<f32>, tensor<f32>
}

// Bad input to --weft-precision and the optimizer's dtype check: clear
// errors at the function or the parameter, at compile time.
// RUN: not weft-opt %s --weft-precision=policy=fp8 2>&1 | FileCheck %s --check-prefix=POLICY
// POLICY: error: --weft-precision: policy 'fp8': expected f32, bf16-mixed or f16-mixed
// RUN: not weft-opt %s --weft-precision=grad-reduce-dtype=f16 2>&1 | FileCheck %s --check-prefix=RED
// RED: error: --weft-precision: grad-reduce-dtype='f16': expected bf16 or f32
// After the optimizer the step is built: the policy would miss it.
// RUN: not weft-opt %s --weft-autodiff --weft-optimizer --weft-precision=policy=bf16-mixed 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: error: --weft-precision must run before --weft-optimizer
// bf16 parameters: step and lr would be bf16, which the harness cannot
// feed; refused at the parameter, naming the policy that keeps them f32.
// RUN: not weft-opt %s --split-input-file --weft-autodiff --weft-optimizer 2>&1 | FileCheck %s --check-prefix=BF16
// BF16: precision-errors.mlir:22:17: error: --weft-optimizer: the parameters are 'bf16'; the optimizer state and its step and lr inputs must be f32 or f64 (keep the parameters f32 and compute in bf16 with weftc --precision=bf16-mixed)

func.func @f32(%w: tensor<4xf32> {weft.param}) -> tensor<f32> {
  %s = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @bf16(%w: tensor<4xbf16> {weft.param}) -> tensor<bf16> {
  %s = weft.reduce sum "a->" (%w) : (tensor<4xbf16>) -> tensor<bf16>
  return %s : tensor<bf16>
}

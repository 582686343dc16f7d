// P8a derived: a data-parallel loss (x and the target split b on data, the
// weight replicated and marked weft.param). --weft-autodiff builds dw, and
// propagation and partitioning find programs.md's P8a minimum: one
// all-reduce over data of dw [256,1024], 1.5 MiB. The loss stays a partial
// sum (the harness reduces partial outputs when it writes them).
// RUN: weft-opt %s --weft-autodiff | FileCheck %s --check-prefix=AD
// RUN: weft-opt %s --weft-autodiff --weft-propagate --weft-partition --weft-optimize-collectives --weft-comm-report -o /dev/null | FileCheck %s

// AD: -> (tensor<f32>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.grad_of = 2 : i64, weft.name = "grad_w"})
// AD: weft.constant 1.000000e+00 {weft.loss_seed} : tensor<f32>
// AD: weft.einsum "btf,btd->df"

// CHECK: all_reduce(sum) {"data"} 256x1024xf32 256x1024xf32 1572864
// CHECK: total 1 collective(s), 1572864 bytes/device (1536.0 KiB)

weft.mesh @mesh ["data" = 4]
func.func @loss(%x: tensor<16x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
                %t: tensor<16x64x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
                %w: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %y = weft.einsum "btd,df->btf" (%x, %w) : (tensor<16x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<16x64x1024xf32>
  %e = weft.map sub "btf,btf->btf" (%y, %t) : (tensor<16x64x1024xf32>, tensor<16x64x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<16x64x1024xf32>
  %s = weft.map square "btf->btf" (%e) : (tensor<16x64x1024xf32>) -> tensor<16x64x1024xf32>
  %l = weft.reduce sum "btf->" (%s) : (tensor<16x64x1024xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

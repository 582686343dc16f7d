// weft.convert, the dtype cast: f32 -> bf16 -> f32 and f32 -> f16 -> f32
// (each value rounded once to 8 and 11 significant bits), and an f64
// product of f32 operands converted back to f32. The cast is elementwise:
// its result keeps the operand's layout, so the split i stays split.
// mesh x=4: a[i=16,j=32] split i on x; w[j=32,k=8] replicated.
// Inputs are f32 values in [-1, 1); numpy rounds to bf16 and f16 from the
// same f32 values (test/numpy/weft_numpy.py, round_bf16).

weft.mesh @mesh ["x" = 4]

func.func @convert(%a: tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>,
    %w: tensor<32x8xf32, #weft.sharding<@mesh, [{}, {}]>>)
    -> (tensor<16x32xf32> {weft.name = "bf16"}, tensor<16x32xf32> {weft.name = "diff"},
        tensor<16x8xf32> {weft.name = "product"}) {
  %ab = weft.convert %a : tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>> -> tensor<16x32xbf16>
  %af = weft.convert %ab : tensor<16x32xbf16> -> tensor<16x32xf32>
  %ah = weft.convert %a : tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>> -> tensor<16x32xf16>
  %ahf = weft.convert %ah : tensor<16x32xf16> -> tensor<16x32xf32>
  // The two roundings' difference: at most 2^-9 of |a|, exactly as numpy.
  %diff = weft.map sub "ij,ij->ij" (%af, %ahf)
      : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %ad = weft.convert %a : tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>> -> tensor<16x32xf64>
  %wd = weft.convert %w : tensor<32x8xf32, #weft.sharding<@mesh, [{}, {}]>> -> tensor<32x8xf64>
  %p = weft.einsum "ij,jk->ik" (%ad, %wd)
      : (tensor<16x32xf64>, tensor<32x8xf64>) -> tensor<16x8xf64>
  %product = weft.convert %p : tensor<16x8xf64> -> tensor<16x8xf32>
  return %af, %diff, %product : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x8xf32>
}

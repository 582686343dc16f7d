// Every unary map kind and the binary max/min, broadcasting by letters,
// one-operand einsums (a transpose and a sum), reduce min over a split
// letter, and a weft.shard constraint that moves the split from one
// dimension to the other (an all-to-all).
// mesh x=4: a[i=16,j=32] split i on x; b[j] replicated.
// Inputs are uniform in [-1, 1) in the tests; every log and sqrt below takes
// a positive argument.

weft.mesh @mesh ["x" = 4]

func.func @elementwise(%a: tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>,
    %b: tensor<32xf32, #weft.sharding<@mesh, [{}]>>)
    -> (tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"x"}]>>,
        tensor<32x16xf32>,
        tensor<32xf32, #weft.sharding<@mesh, [{}]>>,
        tensor<16xf32>) {
  %n = weft.map neg "ij->ij" (%a)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %t = weft.map tanh "ij->ij" (%n) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %g = weft.map gelu "ij->ij" (%a)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %s = weft.map silu "ij->ij" (%a)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %r = weft.map relu "ij->ij" (%t) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  // max with a broadcast row, min of two full tensors
  %sp = weft.map softplus "ij->ij" (%g) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %mx = weft.map max "ij,j->ij" (%sp, %b)
      : (tensor<16x32xf32>, tensor<32xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<16x32xf32>
  %mn = weft.map min "ij,ij->ij" (%s, %t)
      : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %ex = weft.map exp "ij->ij" (%mn) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %sq = weft.map sqrt "ij->ij" (%ex) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %rs = weft.map rsqrt "ij->ij" (%ex) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  // log(1 + b^2) on the replicated row
  %b2 = weft.map square "j->j" (%b)
      : (tensor<32xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<32xf32>
  %b3 = weft.map shift "j->j" (%b2) {scalar = 1.000000e+00 : f64}
      : (tensor<32xf32>) -> tensor<32xf32>
  %l = weft.map log "j->j" (%b3) : (tensor<32xf32>) -> tensor<32xf32>
  %u = weft.map add "ij,ij->ij" (%mx, %sq) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %v = weft.map sub "ij,ij->ij" (%u, %r) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w = weft.map div "ij,ij->ij" (%v, %rs) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  // the row broadcast with its letters in the other order: "ji" result
  %p = weft.map mul "j,ij->ji" (%l, %w) : (tensor<32xf32>, tensor<16x32xf32>) -> tensor<32x16xf32>
  %ps = weft.map scale "ji->ji" (%p) {scalar = 2.500000e-01 : f64}
      : (tensor<32x16xf32>) -> tensor<32x16xf32>
  // a constraint: split j (dim 1 of the transpose back) instead of i
  %pt = weft.einsum "ji->ij" (%ps) : (tensor<32x16xf32>) -> tensor<16x32xf32>
  %c = weft.shard %pt : tensor<16x32xf32>
      -> tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"x"}]>>
  %rm = weft.reduce min "ij->j" (%w) : (tensor<16x32xf32>) -> tensor<32xf32, #weft.sharding<@mesh, [{}]>>
  %cs = weft.einsum "ij->i" (%c)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"x"}]>>) -> tensor<16xf32>
  return %c, %ps, %rm, %cs : tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"x"}]>>,
      tensor<32x16xf32>, tensor<32xf32, #weft.sharding<@mesh, [{}]>>, tensor<16xf32>
}

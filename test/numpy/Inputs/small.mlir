// Small programs with hand-computed results (evaluator.test).
weft.mesh @mesh ["x" = 2]

func.func @letters(%x: tensor<2x3xf32> {weft.name = "x"}, %w: tensor<3x2xf32> {weft.name = "w"},
    %b: tensor<2xf32> {weft.name = "b"}, %ids: tensor<2xi32> {weft.name = "ids"},
    %table: tensor<3x2xf32, #weft.sharding<@mesh, [{}, {"x"}]>> {weft.name = "table"})
    -> (tensor<2x2xf32> {weft.name = "mm"}, tensor<2x2xf32> {weft.name = "bias_t"},
        tensor<2xf32> {weft.name = "rmax"}, tensor<3xf32> {weft.name = "rmin"},
        tensor<3x2xf32> {weft.name = "rsum_t"}, tensor<2x2xf32> {weft.name = "emb"},
        tensor<2x2xf32> {weft.name = "emb_t"}, tensor<3xf32> {weft.name = "colsum"},
        tensor<3x2xf32> {weft.name = "tr"}) {
  %mm = weft.einsum "ij,jk->ik" (%x, %w) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %bt = weft.map add "ik,k->ki" (%mm, %b) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %rmax = weft.reduce max "ki->i" (%bt) : (tensor<2x2xf32>) -> tensor<2xf32>
  %rmin = weft.reduce min "ij->j" (%x) : (tensor<2x3xf32>) -> tensor<3xf32>
  %x3 = weft.einsum "ij,jk->ijk" (%x, %w) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3x2xf32>
  %rsum = weft.reduce sum "ijk->jk" (%x3) : (tensor<2x3x2xf32>) -> tensor<3x2xf32>
  %emb = weft.embed "n,vd->nd" (%ids, %table)
      : (tensor<2xi32>, tensor<3x2xf32, #weft.sharding<@mesh, [{}, {"x"}]>>) -> tensor<2x2xf32>
  %embt = weft.embed "n,vd->dn" (%ids, %table)
      : (tensor<2xi32>, tensor<3x2xf32, #weft.sharding<@mesh, [{}, {"x"}]>>) -> tensor<2x2xf32>
  %cs = weft.einsum "ij->j" (%x) : (tensor<2x3xf32>) -> tensor<3xf32>
  %sh = weft.shard %x : tensor<2x3xf32> -> tensor<2x3xf32, #weft.sharding<@mesh, [{"x"}, {}]>>
  %tr = weft.einsum "ij->ji" (%sh) : (tensor<2x3xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<3x2xf32>
  return %mm, %bt, %rmax, %rmin, %rsum, %emb, %embt, %cs, %tr
      : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3x2xf32>,
        tensor<2x2xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<3x2xf32>
}

func.func @maps(%u: tensor<4xf64> {weft.name = "u"}, %v: tensor<4xf64> {weft.name = "v"})
    -> (tensor<4xf64> {weft.name = "neg"}, tensor<4xf64> {weft.name = "exp"},
        tensor<4xf64> {weft.name = "log"}, tensor<4xf64> {weft.name = "sqrt"},
        tensor<4xf64> {weft.name = "rsqrt"}, tensor<4xf64> {weft.name = "square"},
        tensor<4xf64> {weft.name = "tanh"}, tensor<4xf64> {weft.name = "relu"},
        tensor<4xf64> {weft.name = "gelu"}, tensor<4xf64> {weft.name = "silu"},
        tensor<4xf64> {weft.name = "scale"}, tensor<4xf64> {weft.name = "shift"},
        tensor<4xf64> {weft.name = "add"}, tensor<4xf64> {weft.name = "sub"},
        tensor<4xf64> {weft.name = "mul"}, tensor<4xf64> {weft.name = "div"},
        tensor<4xf64> {weft.name = "max"}, tensor<4xf64> {weft.name = "min"}) {
  %neg = weft.map neg "i->i" (%u) : (tensor<4xf64>) -> tensor<4xf64>
  %exp = weft.map exp "i->i" (%u) : (tensor<4xf64>) -> tensor<4xf64>
  %log = weft.map log "i->i" (%v) : (tensor<4xf64>) -> tensor<4xf64>
  %sqrt = weft.map sqrt "i->i" (%v) : (tensor<4xf64>) -> tensor<4xf64>
  %rsqrt = weft.map rsqrt "i->i" (%v) : (tensor<4xf64>) -> tensor<4xf64>
  %square = weft.map square "i->i" (%u) : (tensor<4xf64>) -> tensor<4xf64>
  %tanh = weft.map tanh "i->i" (%u) : (tensor<4xf64>) -> tensor<4xf64>
  %relu = weft.map relu "i->i" (%u) : (tensor<4xf64>) -> tensor<4xf64>
  %gelu = weft.map gelu "i->i" (%u) : (tensor<4xf64>) -> tensor<4xf64>
  %silu = weft.map silu "i->i" (%u) : (tensor<4xf64>) -> tensor<4xf64>
  %scale = weft.map scale "i->i" (%u) {scalar = 3.0 : f64} : (tensor<4xf64>) -> tensor<4xf64>
  %shift = weft.map shift "i->i" (%u) {scalar = -1.0 : f64} : (tensor<4xf64>) -> tensor<4xf64>
  %add = weft.map add "i,i->i" (%u, %v) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %sub = weft.map sub "i,i->i" (%u, %v) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %mul = weft.map mul "i,i->i" (%u, %v) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %div = weft.map div "i,i->i" (%u, %v) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %max = weft.map max "i,i->i" (%u, %neg) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %min = weft.map min "i,i->i" (%u, %neg) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %neg, %exp, %log, %sqrt, %rsqrt, %square, %tanh, %relu, %gelu, %silu,
      %scale, %shift, %add, %sub, %mul, %div, %max, %min
      : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
        tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
        tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
        tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// --weft-fuse-elementwise on the local view of a small MLP block (mesh
// model=2, f split): which maps fuse and which never do
// (docs/fusion.md). The fused program equals the global one (weft-interp,
// the unfused oracle), and fusion changes no collective.
// RUN: weft-opt %s --weft-propagate --weft-partition -o %t.local.mlir
// RUN: weft-opt %t.local.mlir --weft-fuse-elementwise -o %t.fused.mlir
// -debug-only=weft-fuse-elementwise traces its decisions (docs/design.md, "Tracing").
// RUN: weft-opt %t.local.mlir --weft-fuse-elementwise -debug-only=weft-fuse-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE: [weft-fuse-elementwise] {{[0-9]+}} maps -> weft.fused_map "{{.*}}" at loc(
// RUN: FileCheck %s < %t.fused.mlir
// RUN: weft-interp %s --func=block --compare %t.fused.mlir --local-func=block | FileCheck %s --check-prefix=CMP
// CMP: compare: 4 of 4 result(s) match
// RUN: weft-interp %s --func=long_chain --compare %t.fused.mlir --local-func=long_chain | FileCheck %s --check-prefix=CMP1
// CMP1: compare: 1 of 1 result(s) match
// RUN: grep -c "weft.all_reduce" %t.local.mlir > %t.before
// RUN: grep -c "weft.all_reduce" %t.fused.mlir | diff - %t.before
// Idempotent: a second run finds nothing more to fuse.
// RUN: weft-opt %t.fused.mlir --weft-fuse-elementwise | diff - %t.fused.mlir

// Bias, gelu and a scale after the first einsum: one fused op; the bias
// (letters f of bf) stays an operand, read with stride 0 along b. The
// bias's own relu is not absorbed: its result spans only f.
// CHECK-LABEL: func.func @block
// CHECK: %[[H:.*]] = weft.einsum "bd,df->bf"
// CHECK-NEXT: %[[RB:.*]] = weft.map relu "f->f"
// CHECK-NEXT: %[[A:.*]] = weft.fused_map "bf,f->bf" (%[[H]], %[[RB]]) steps "s0 = add(in0, in1); s1 = gelu(s0); s2 = scale(s1, 0.5)" : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
// The partial sum is all-reduced before the residual chain: the collective
// is never fused away; the residual add, the square and the mul fuse after
// it (the add is read twice, both times by members).
// CHECK: %[[Y:.*]] = weft.all_reduce sum
// CHECK: weft.fused_map "bd,bd->bd" (%[[Y]], %{{.*}}) steps "s0 = add(in0, in1); s1 = square(s0); s2 = mul(s0, s1)"
// %u, used twice (by the exp and by the return), stays a map of its own;
// the exp joins the add after it.
// CHECK: %[[U:.*]] = weft.map sub "bd,bd->bd"
// CHECK: weft.fused_map "bd,bd->bd" (%[[U]], %{{.*}}) steps "s0 = exp(in0); s1 = add(s0, in1)"
// A transposed operand (letters fd of df) is not absorbed.
// CHECK: %[[T:.*]] = weft.map neg "fd->fd"
// CHECK: weft.map add "df,fd->df" (%{{.*}}, %[[T]])
// A chain of 21 maps: the root's group takes 16 steps (the limit), the
// first 5 fuse apart.
// CHECK-LABEL: func.func @long_chain
// CHECK: weft.fused_map "bf->bf" (%arg0) steps "s0 = tanh(in0); s1 = neg(s0); s2 = tanh(s1); s3 = neg(s2); s4 = tanh(s3)"
// CHECK-NEXT: weft.fused_map "bf->bf" ({{.*}}) steps "s0 = neg(in0);{{.*}}; s14 = neg(s13); s15 = scale(s14, 1)"
// CHECK-NEXT: return

weft.mesh @mesh ["model" = 2]

func.func @block(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
    %w1: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %b1: tensor<16xf32, #weft.sharding<@mesh, [{"model"}]>>,
    %w2: tensor<16x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
        tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
        tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
        tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>) {
  %h = weft.einsum "bd,df->bf" (%x, %w1) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>
  %rb = weft.map relu "f->f" (%b1) : (tensor<16xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<16xf32>
  %hb = weft.map add "bf,f->bf" (%h, %rb) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %g = weft.map gelu "bf->bf" (%hb) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = weft.map scale "bf->bf" (%g) {scalar = 0.5 : f64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = weft.einsum "bf,fd->bd" (%a, %w2) : (tensor<8x16xf32>, tensor<16x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  %r = weft.map add "bd,bd->bd" (%y, %x) : (tensor<8x16xf32>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32>
  %s = weft.map square "bd->bd" (%r) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %o1 = weft.map mul "bd,bd->bd" (%r, %s) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
  %u = weft.map sub "bd,bd->bd" (%x, %x) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
  %e = weft.map exp "bd->bd" (%u) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32>
  %o2 = weft.map add "bd,bd->bd" (%e, %x) : (tensor<8x16xf32>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
  %t = weft.map neg "fd->fd" (%w2) : (tensor<16x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<16x16xf32>
  %o3 = weft.map add "df,fd->df" (%w1, %t) : (tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<16x16xf32>) -> tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  return %o1, %o2, %o3, %u : tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
}

func.func @long_chain(%c0: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>)
    -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>> {
  %c1 = weft.map tanh "bf->bf" (%c0) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32>
  %c2 = weft.map neg "bf->bf" (%c1) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c3 = weft.map tanh "bf->bf" (%c2) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c4 = weft.map neg "bf->bf" (%c3) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c5 = weft.map tanh "bf->bf" (%c4) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c6 = weft.map neg "bf->bf" (%c5) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c7 = weft.map tanh "bf->bf" (%c6) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c8 = weft.map neg "bf->bf" (%c7) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c9 = weft.map tanh "bf->bf" (%c8) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c10 = weft.map neg "bf->bf" (%c9) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c11 = weft.map tanh "bf->bf" (%c10) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c12 = weft.map neg "bf->bf" (%c11) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c13 = weft.map tanh "bf->bf" (%c12) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c14 = weft.map neg "bf->bf" (%c13) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c15 = weft.map tanh "bf->bf" (%c14) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c16 = weft.map neg "bf->bf" (%c15) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c17 = weft.map tanh "bf->bf" (%c16) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c18 = weft.map neg "bf->bf" (%c17) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c19 = weft.map tanh "bf->bf" (%c18) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c20 = weft.map neg "bf->bf" (%c19) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %out = weft.map scale "bf->bf" (%c20) {scalar = 1.0 : f64} : (tensor<8x16xf32>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
  return %out : tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
}

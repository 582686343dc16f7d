// --weft-fuse-epilogues on the local view (mesh model=2, f split): which
// maps fold into the einsum producing their operand and which never do
// (docs/fusion.md, "Epilogues"). The fused program equals the global one
// (weft-interp evaluates weft.fused_einsum unfused).
// RUN: weft-opt %s --weft-propagate --weft-partition -o %t.local.mlir
// RUN: weft-opt %t.local.mlir --weft-fuse-epilogues -o %t.fused.mlir
// RUN: FileCheck %s < %t.fused.mlir
// RUN: weft-opt %t.local.mlir --weft-fuse-epilogues -debug-only=weft-fuse-epilogues -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE: [weft-fuse-epilogues] einsum "bd,df->bf" + 4 maps -> weft.fused_einsum then "bf,f,bf->bf" at loc(
// RUN: weft-interp %s --func=block --compare %t.fused.mlir --local-func=block | FileCheck %s --check-prefix=CMP
// CMP: compare: 5 of 5 result(s) match
// Idempotent: a second run finds nothing more to fuse.
// RUN: weft-opt %t.fused.mlir --weft-fuse-epilogues | diff - %t.fused.mlir

// All four stages, in order: bias (letters f, the result's last), gelu,
// scale, residual (letters bf).
// CHECK-LABEL: func.func @block
// CHECK: %[[Y:.*]] = weft.fused_einsum "bd,df->bf" (%arg0, %arg1, %arg2, %arg3) then "bf,f,bf->bf" steps "s0 = add(in0, in1); s1 = gelu(s0); s2 = scale(s1, 0.5); s3 = add(s2, in2)"
// The einsum's result is also returned: nothing fuses.
// CHECK: %[[H2:.*]] = weft.einsum "bd,df->bf" (%arg0, %arg1)
// CHECK-NEXT: weft.map relu "bf->bf" (%[[H2]])
// The activation before the bias add: the relu folds, the add (a stage
// before it) stays a map.
// CHECK: %[[R:.*]] = weft.fused_einsum "bd,df->bf" (%arg0, %arg1) then "bf->bf" steps "s0 = relu(in0)"
// CHECK-NEXT: weft.map add "bf,f->bf" (%[[R]], %arg2)
// A bias along the rows' letter (b of bf) is not a per-column bias, and the
// residual add may come first (read as add(in0, in1): f32 addition
// commutes): it is the last stage, and the tanh after it
// stays.
// CHECK: %[[E3:.*]] = weft.einsum "bd,df->bf" (%arg0, %arg1)
// CHECK-NEXT: weft.map add "bf,b->bf" (%[[E3]], %arg4)
// CHECK: %[[S:.*]] = weft.fused_einsum "bd,df->bf" (%arg0, %arg1, %arg3) then "bf,bf->bf" steps "s0 = add(in0, in1)"
// CHECK-NEXT: weft.map tanh "bf->bf" (%[[S]])

weft.mesh @mesh ["model" = 2]

func.func @block(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
    %w: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %b: tensor<16xf32, #weft.sharding<@mesh, [{"model"}]>>,
    %r: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %rb: tensor<8xf32, #weft.sharding<@mesh, [{}]>>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
        tensor<8x16xf32>, tensor<8x16xf32>) {
  %h = weft.einsum "bd,df->bf" (%x, %w) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>
  %hb = weft.map add "bf,f->bf" (%h, %b) : (tensor<8x16xf32>, tensor<16xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8x16xf32>
  %g = weft.map gelu "bf->bf" (%hb) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = weft.map scale "bf->bf" (%g) {scalar = 0.5 : f64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = weft.map add "bf,bf->bf" (%a, %r) : (tensor<8x16xf32>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>

  %h2 = weft.einsum "bd,df->bf" (%x, %w) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>
  %y2 = weft.map relu "bf->bf" (%h2) : (tensor<8x16xf32>) -> tensor<8x16xf32>

  %h3 = weft.einsum "bd,df->bf" (%x, %w) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>
  %r3 = weft.map relu "bf->bf" (%h3) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %y3 = weft.map add "bf,f->bf" (%r3, %b) : (tensor<8x16xf32>, tensor<16xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8x16xf32>

  %h4 = weft.einsum "bd,df->bf" (%x, %w) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>
  %y4 = weft.map add "bf,b->bf" (%h4, %rb) : (tensor<8x16xf32>, tensor<8xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<8x16xf32>

  %h5 = weft.einsum "bd,df->bf" (%x, %w) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x16xf32>
  %s5 = weft.map add "bf,bf->bf" (%r, %h5) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %y5 = weft.map tanh "bf->bf" (%s5) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y, %h2, %y3, %y4, %y5 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// --weft-propagate=explain names a weft.shard's dimensions by position
// (`dim #1`), not by placeholder letters that collide with the program's own
// letters (the einsum below uses a, b, c: the shard's explanation used to
// say `b = {"model"}` for its second dimension). Regression test for the
// consolidation issue's explain defect.
// RUN: weft-opt --weft-propagate=explain --mlir-print-op-on-diagnostic=false %s -o /dev/null 2>&1 | FileCheck %s

weft.mesh @mesh ["model" = 2]
func.func @f(%x: tensor<4x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, %w: tensor<8x6xf32>)
    -> tensor<4x6xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {
  // CHECK: remark: letters {a = {"model"}}
  %y = weft.einsum "ab,bc->ac" (%x, %w) : (tensor<4x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<8x6xf32>) -> tensor<4x6xf32>
  // CHECK: remark: letters {dim #1 = {"model"}}
  // CHECK-NEXT: dim #1 = {"model"} from %1 (annotated result of weft.shard at line [[@LINE+5]])
  // CHECK: alternatives:
  // CHECK-NEXT: {dim #0 = {"model"}}: 24 B
  // CHECK-NEXT: {} (nothing split): 48 B
  // CHECK-NOT: {b = {"model"}}
  %z = weft.shard %y : tensor<4x6xf32> -> tensor<4x6xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  return %z : tensor<4x6xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
}

// --weft-schedule-collectives on a collective that reads another one's
// result: the permute of an all-reduced value, as in a 1F1B stage with
// tensor parallelism (make_pipeline_1f1b.py --stages 4 --model 2: the
// stage input's cotangent is all-reduced over "model", then moved back a
// stage), with an all-gather in between whose reader comes before the
// permute. Two bugs, both found on that program:
//  - the permute's start was ordered by the all-reduce's position, before
//    the all-gather's, though it cannot start before the all-reduce's wait
//    (right before the permute); the all-gather, placed after it, then had
//    its first reader above its earliest start and the pass walked off the
//    end of the block (a crash). Now the permute's operand counts as
//    defined where that wait goes: the all-gather starts first and
//    overlaps %c.
//  - the all-gathered %u, read by %v downstream of the permute, was sunk
//    to the end of the function (it depends on a collective and only
//    feeds ops that were "sinkable"), below %v, which stays after the
//    transfer: "operand #1 does not dominate this use". Now an op
//    downstream of a transfer is not sinkable, so neither are its operands.
// RUN: weft-opt %s --weft-schedule-collectives -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// Idempotent: a second run changes nothing.
// RUN: weft-opt %t.mlir --weft-schedule-collectives | diff - %t.mlir

// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = weft.einsum
// CHECK-NEXT: %[[R:.*]] = weft.all_reduce sum %[[A]] {{.*}}weft.async = 4 : i64
// CHECK-NEXT: weft.map relu
// CHECK-NEXT: %[[GIN:.*]] = weft.map neg
// CHECK-NEXT: %[[G:.*]] = weft.all_gather %[[GIN]] {{.*}}weft.async = 1 : i64
// CHECK-NEXT: %[[C:.*]] = weft.map exp
// CHECK-NEXT: %[[GW:.*]] = weft.wait %[[G]]
// CHECK-NEXT: %[[U:.*]] = weft.map relu "bd->bd" (%[[GW]])
// CHECK-NEXT: %[[RW:.*]] = weft.wait %[[R]]
// CHECK-NEXT: %[[P:.*]] = weft.collective_permute %[[RW]]
// CHECK-NEXT: %[[V:.*]] = weft.map add "bd,bd->bd" (%[[P]], %[[U]])
// CHECK-NEXT: %[[O:.*]] = weft.map add "bd,bd->bd" (%[[V]], %[[C]])
// CHECK-NEXT: return %[[O]]

weft.mesh @mesh ["stage" = 2, "model" = 2]

func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %z: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %a = weft.einsum "bd,de->be" (%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %r = weft.all_reduce sum %a on @mesh over ["model"] : tensor<4x8xf32>
  %b = weft.map relu "bd->bd" (%z) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %gin = weft.map neg "bd->bd" (%b) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %g = weft.all_gather %gin on @mesh over ["model"] dim 1 : tensor<4x4xf32> -> tensor<4x8xf32>
  %c = weft.map exp "bd->bd" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u = weft.map relu "bd->bd" (%g) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = weft.collective_permute %r on @mesh over ["stage"] pairs [[0, 1]] : tensor<4x8xf32>
  %v = weft.map add "bd,bd->bd" (%p, %u) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %o = weft.map add "bd,bd->bd" (%v, %c) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

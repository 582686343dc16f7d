// P10 (mixture of experts, GShard style, programs.md) at small shapes: the
// tokens (g) are split on data, the experts (e) too; an all-to-all moves
// the split from g to e before the expert einsums and back after them.
// RUN: weft-interp %s --func moe --compare %s --local-func moe_local | FileCheck %s
// RUN: weft-interp %s --func moe --compare %s --local-func moe_local --seed 2 | FileCheck %s
// CHECK: result #0: match tensor<4x3x2xf32> on 4 rank(s)
// CHECK: compare: 1 of 1 result(s) match
// Skipping the return all-to-all (and relabelling the expert output as if
// it were split on g) is caught.
// RUN: not weft-interp %s --func moe --compare %s --local-func moe_no_return_all_to_all | FileCheck %s --check-prefix=WRONG
// WRONG: result #0: MISMATCH tensor<4x3x2xf32> on 4 rank(s)

weft.mesh @mesh ["data" = 4]

func.func @moe(%x: tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %D: tensor<4x3x4x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}, {}]>>,
    %w_in: tensor<4x2x5xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %w_out: tensor<4x5x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
    -> tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {
  %xe = weft.einsum "gsec,gsm->egcm" (%D, %x)
      : (tensor<4x3x4x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}, {}]>>, tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<4x4x2x2xf32>
  %h = weft.einsum "egcm,emh->egch" (%xe, %w_in)
      : (tensor<4x4x2x2xf32>, tensor<4x2x5xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<4x4x2x5xf32>
  %a = weft.map relu "egch->egch" (%h) : (tensor<4x4x2x5xf32>) -> tensor<4x4x2x5xf32>
  %o = weft.einsum "egch,ehm->egcm" (%a, %w_out)
      : (tensor<4x4x2x5xf32>, tensor<4x5x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<4x4x2x2xf32>
  %y = weft.einsum "egcm,gsec->gsm" (%o, %D)
      : (tensor<4x4x2x2xf32>, tensor<4x3x4x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}, {}]>>) -> tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  return %y : tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
}

func.func @moe_local(
    %x: tensor<1x3x2xf32> {weft.global_type = tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>},
    %D: tensor<1x3x4x2xf32> {weft.global_type = tensor<4x3x4x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}, {}]>>},
    %w_in: tensor<1x2x5xf32> {weft.global_type = tensor<4x2x5xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>},
    %w_out: tensor<1x5x2xf32> {weft.global_type = tensor<4x5x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>})
    -> (tensor<1x3x2xf32> {weft.global_type = tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>}) {
  %xe = weft.einsum "gsec,gsm->egcm" (%D, %x) : (tensor<1x3x4x2xf32>, tensor<1x3x2xf32>) -> tensor<4x1x2x2xf32>
  %xs = weft.all_to_all %xe on @mesh over ["data"] split 0 concat 1 : tensor<4x1x2x2xf32> -> tensor<1x4x2x2xf32>
  %h = weft.einsum "egcm,emh->egch" (%xs, %w_in) : (tensor<1x4x2x2xf32>, tensor<1x2x5xf32>) -> tensor<1x4x2x5xf32>
  %a = weft.map relu "egch->egch" (%h) : (tensor<1x4x2x5xf32>) -> tensor<1x4x2x5xf32>
  %o = weft.einsum "egch,ehm->egcm" (%a, %w_out) : (tensor<1x4x2x5xf32>, tensor<1x5x2xf32>) -> tensor<1x4x2x2xf32>
  %ob = weft.all_to_all %o on @mesh over ["data"] split 1 concat 0 : tensor<1x4x2x2xf32> -> tensor<4x1x2x2xf32>
  %y = weft.einsum "egcm,gsec->gsm" (%ob, %D) : (tensor<4x1x2x2xf32>, tensor<1x3x4x2xf32>) -> tensor<1x3x2xf32>
  return %y : tensor<1x3x2xf32>
}

// Wrong: the expert output [e=1, g=4] is used as if it were [e=4, g=1] by
// a transposing einsum instead of the all-to-all back.
func.func @moe_no_return_all_to_all(
    %x: tensor<1x3x2xf32> {weft.global_type = tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>},
    %D: tensor<1x3x4x2xf32> {weft.global_type = tensor<4x3x4x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}, {}]>>},
    %w_in: tensor<1x2x5xf32> {weft.global_type = tensor<4x2x5xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>},
    %w_out: tensor<1x5x2xf32> {weft.global_type = tensor<4x5x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>})
    -> (tensor<1x3x2xf32> {weft.global_type = tensor<4x3x2xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>}) {
  %xe = weft.einsum "gsec,gsm->egcm" (%D, %x) : (tensor<1x3x4x2xf32>, tensor<1x3x2xf32>) -> tensor<4x1x2x2xf32>
  %xs = weft.all_to_all %xe on @mesh over ["data"] split 0 concat 1 : tensor<4x1x2x2xf32> -> tensor<1x4x2x2xf32>
  %h = weft.einsum "egcm,emh->egch" (%xs, %w_in) : (tensor<1x4x2x2xf32>, tensor<1x2x5xf32>) -> tensor<1x4x2x5xf32>
  %a = weft.map relu "egch->egch" (%h) : (tensor<1x4x2x5xf32>) -> tensor<1x4x2x5xf32>
  %o = weft.einsum "egch,ehm->egcm" (%a, %w_out) : (tensor<1x4x2x5xf32>, tensor<1x5x2xf32>) -> tensor<1x4x2x2xf32>
  %ob = weft.einsum "gecm->egcm" (%o) : (tensor<1x4x2x2xf32>) -> tensor<4x1x2x2xf32>
  %y = weft.einsum "egcm,gsec->gsm" (%ob, %D) : (tensor<4x1x2x2xf32>, tensor<1x3x4x2xf32>) -> tensor<1x3x2xf32>
  return %y : tensor<1x3x2xf32>
}

// P7a (vocabulary-split embedding, programs.md) at small shapes: each rank
// holds 4 rows of the 16-row table, looks up the ids in its block (zeros
// elsewhere), and one all-reduce sums the lookups. Random ids are drawn in
// [0, 16), found through the global embed.
// RUN: weft-interp %s --func embed --compare %s --local-func embed_local | FileCheck %s
// RUN: weft-interp %s --func embed --compare %s --local-func embed_local --seed 3 | FileCheck %s
// CHECK: result #0: match tensor<2x5x3xf32> on 4 rank(s)
// CHECK: compare: 1 of 1 result(s) match
// Without the all-reduce, each rank holds only the rows of its block.
// RUN: not weft-interp %s --func embed --compare %s --local-func embed_no_all_reduce | FileCheck %s --check-prefix=WRONG
// WRONG: result #0: MISMATCH tensor<2x5x3xf32> on 4 rank(s)
// Looking the ids up as if every rank held rows [0, 4) (no `vocab on`) is
// caught too: the ids >= 4 are out of that table's range.
// RUN: not weft-interp %s --func embed --compare %s --local-func embed_unmasked 2>&1 | FileCheck %s --check-prefix=UNMASKED
// UNMASKED: error: id {{[0-9]+}} at index [{{[0-9]+}}, {{[0-9]+}}] of the ids is outside the vocabulary [0, 4) (rank 0)

weft.mesh @mesh ["model" = 4]

func.func @embed(%ids: tensor<2x5xi32>,
    %table: tensor<16x3xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<2x5x3xf32> {
  %e = weft.embed "bt,vd->btd" (%ids, %table)
      : (tensor<2x5xi32>, tensor<16x3xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2x5x3xf32>
  return %e : tensor<2x5x3xf32>
}

func.func @embed_local(
    %ids: tensor<2x5xi32> {weft.global_type = tensor<2x5xi32>},
    %table: tensor<4x3xf32> {weft.global_type = tensor<16x3xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x5x3xf32> {weft.global_type = tensor<2x5x3xf32>}) {
  %p = weft.embed "bt,vd->btd" (%ids, %table) vocab on @mesh over ["model"]
      : (tensor<2x5xi32>, tensor<4x3xf32>) -> tensor<2x5x3xf32>
  %e = weft.all_reduce sum %p on @mesh over ["model"] : tensor<2x5x3xf32>
  return %e : tensor<2x5x3xf32>
}

func.func @embed_no_all_reduce(
    %ids: tensor<2x5xi32> {weft.global_type = tensor<2x5xi32>},
    %table: tensor<4x3xf32> {weft.global_type = tensor<16x3xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x5x3xf32> {weft.global_type = tensor<2x5x3xf32>}) {
  %p = weft.embed "bt,vd->btd" (%ids, %table) vocab on @mesh over ["model"]
      : (tensor<2x5xi32>, tensor<4x3xf32>) -> tensor<2x5x3xf32>
  return %p : tensor<2x5x3xf32>
}

func.func @embed_unmasked(
    %ids: tensor<2x5xi32> {weft.global_type = tensor<2x5xi32>},
    %table: tensor<4x3xf32> {weft.global_type = tensor<16x3xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x5x3xf32> {weft.global_type = tensor<2x5x3xf32>}) {
  %p = weft.embed "bt,vd->btd" (%ids, %table) : (tensor<2x5xi32>, tensor<4x3xf32>) -> tensor<2x5x3xf32>
  %e = weft.all_reduce sum %p on @mesh over ["model"] : tensor<2x5x3xf32>
  return %e : tensor<2x5x3xf32>
}

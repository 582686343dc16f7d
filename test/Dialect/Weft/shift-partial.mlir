// weft.shift of a partial sum (docs/pipeline.md, "Tensor parallelism inside
// the stages"): the shift is linear, so each rank moves its own piece of
// the sum to the next stage and the all-reduce over "model" comes after
// the permute, where the result's layout asks for it. This is the path of
// a pipeline whose stages are tensor parallel: the input cotangent of a
// column-split layer is partial over "model" when the backward shift moves
// it. Before, the shift reduced its operand first (here: all_reduce, then
// the permute), and where its readers were typed partial the partitioner
// failed with "cannot make a value partial over model"
// (test/training/pipeline-tp.test trains that case). Checked against the
// global program on 4 ranks.
// RUN: weft-opt %s --weft-propagate --weft-pad-uneven --weft-partition -o %t.local.mlir
// RUN: FileCheck %s < %t.local.mlir
// CHECK: %[[E:.*]] = weft.einsum "sbk,kd->sbd"{{.*}} -> tensor<1x4x3xf32>
// CHECK: %[[P:.*]] = weft.collective_permute %[[E]] on @mesh over ["stage"] pairs {{\[}}[0, 1]]
// CHECK: weft.all_reduce sum %[[P]] on @mesh over ["model"]
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 1 of 1 result(s) match

weft.mesh @mesh ["stage" = 2, "model" = 2]
func.func @f(%a: tensor<2x4x6xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"model"}]>>,
             %w: tensor<6x3xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<2x4x3xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>> {
  %p = weft.einsum "sbk,kd->sbd" (%a, %w) : (tensor<2x4x6xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"model"}]>>, tensor<6x3xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2x4x3xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}], partial = sum {"model"}>>
  %s = weft.shift %p dim 0 by 1 : tensor<2x4x3xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}], partial = sum {"model"}>> -> tensor<2x4x3xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}], partial = sum {"model"}>>
  %r = weft.shard %s : tensor<2x4x3xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}], partial = sum {"model"}>> -> tensor<2x4x3xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>
  return %r : tensor<2x4x3xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>
}

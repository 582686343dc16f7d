// --weft-combine-collectives keeps each layer call's all-reduces apart
// (per-call, the default): the operands of the two calls of @layer (each
// a weight-gradient-like partial sum over "data" and a partial row sum)
// form one combined all-reduce per call, so a deep model's buckets are the
// same at every layer (docs/calls.md, "Buckets per call"). The pipeline is
// one weft-opt run: the call sites live in the locations, which a printed
// and reparsed file would not keep. per-call=false combines all four.
// RUN: weft-opt %s --weft-inline-calls --weft-propagate=search=greedy --weft-pad-uneven --weft-partition --weft-combine-collectives -o %t.combined.mlir
// RUN: FileCheck %s < %t.combined.mlir
// CHECK: weft.all_reduce sum {{.*}} "combined 2 all-reduces: [function result #1: {{.*}}] [function result #2: {{.*}}]"} : tensor<272xf32>
// CHECK: weft.all_reduce sum {{.*}} "combined 2 all-reduces: [function result #3: {{.*}}] [function result #4: {{.*}}]"} : tensor<272xf32>
// CHECK-NOT: weft.all_reduce
// RUN: weft-interp %s --compare %t.combined.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 5 of 5 result(s) match
// RUN: weft-opt %s --weft-inline-calls --weft-propagate=search=greedy --weft-pad-uneven --weft-partition --weft-combine-collectives=per-call=false | FileCheck %s --check-prefix=ALL
// ALL: weft.all_reduce sum {{.*}} "combined 4 all-reduces: {{.*}} : tensor<544xf32>
// ALL-NOT: weft.all_reduce

weft.mesh @mesh ["data" = 2]

func.func private @layer(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
                         %w: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>)
    -> (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
        tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
        tensor<16xf32, #weft.sharding<@mesh, [{}]>>) {
  %y = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  %g = weft.einsum "bd,be->de" (%x, %y) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>
  %s = weft.reduce sum "be->e" (%y) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<16xf32, #weft.sharding<@mesh, [{}]>>
  return %y, %g, %s : tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32, #weft.sharding<@mesh, [{}]>>
}

func.func @f(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
             %w0: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
             %w1: tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>)
    -> (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
        tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32, #weft.sharding<@mesh, [{}]>>,
        tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32, #weft.sharding<@mesh, [{}]>>) {
  %y0, %g0, %s0 = func.call @layer(%x, %w0) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32, #weft.sharding<@mesh, [{}]>>)
  %y1, %g1, %s1 = func.call @layer(%y0, %w1) : (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>) -> (tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32, #weft.sharding<@mesh, [{}]>>)
  return %y1, %g0, %s0, %g1, %s1 : tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32, #weft.sharding<@mesh, [{}]>>, tensor<16x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<16xf32, #weft.sharding<@mesh, [{}]>>
}

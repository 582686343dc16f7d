// RUN: weft-opt --weft-show-sharding %s -o /dev/null | FileCheck %s
// RUN: weft-opt --weft-show-sharding="values=w" %s -o /dev/null | FileCheck %s --check-prefix=ONLY
// RUN: not weft-opt --weft-show-sharding="values=w,nope" %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// Expected grids written by hand from the layout rule (docs/propagation.md,
// "Seeing the layouts"): ranks row-major on data x model (model fastest);
// a dimension split over axes that do not divide it has ceil-sized blocks.

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @f(
    %x: tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>> {weft.name = "x"},
    %w: tensor<5x4xf32, #weft.sharding<@mesh, [{}, {"data", "model"}]>> {weft.name = "w"},
    %v: tensor<6xf32, #weft.sharding<@mesh, [{"model"}]>>,
    %t: tensor<2x4x6xbf16, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
    -> (tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}], partial = sum {"model"}>> {weft.name = "y"}) {
  %y = weft.shard %x : tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>> -> tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}], partial = sum {"model"}>>
  return %y : tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}], partial = sum {"model"}>>
}

// CHECK-LABEL: @f input 'x': 8x4xf32 [{data}, {model}]
// CHECK-NEXT: +------------+------------+
// CHECK-NEXT: | device 0   | device 1   |
// CHECK-NEXT: | [0:4, 0:2] | [0:4, 2:4] |
// CHECK-NEXT: +------------+------------+
// CHECK-NEXT: | device 2   | device 3   |
// CHECK-NEXT: | [4:8, 0:2] | [4:8, 2:4] |
// CHECK-NEXT: +------------+------------+
// Two axes on one dimension (data major): 4 blocks of ceil(4/4) = 1.
// CHECK: @f input 'w': 5x4xf32 [{}, {data, model}]
// CHECK-NEXT: +------------+------------+------------+------------+
// CHECK-NEXT: | device 0   | device 1   | device 2   | device 3   |
// CHECK-NEXT: | [0:5, 0:1] | [0:5, 1:2] | [0:5, 2:3] | [0:5, 3:4] |
// CHECK-NEXT: +------------+------------+------------+------------+
// Unnamed: its position. Replicated over data.
// CHECK: @f input '#2': 6xf32 [{model}]
// CHECK-NEXT: +-------------+-------------+
// CHECK-NEXT: | devices 0,2 | devices 1,3 |
// CHECK-NEXT: | [0:3]       | [3:6]       |
// CHECK-NEXT: +-------------+-------------+
// Rank 3: one line per block.
// CHECK: @f input '#3': 2x4x6xbf16 [{data}, {}, {}]
// CHECK-NEXT: [0:1, 0:4, 0:6]: devices 0,1
// CHECK-NEXT: [1:2, 0:4, 0:6]: devices 2,3
// CHECK: @f output 'y': 8x4xf32 [{data}, {}] partial sum {model}
// CHECK-NEXT: +-------------+
// CHECK-NEXT: | devices 0,1 |
// CHECK-NEXT: | [0:4, 0:4]  |
// CHECK-NEXT: +-------------+
// CHECK-NEXT: | devices 2,3 |
// CHECK-NEXT: | [4:8, 0:4]  |
// CHECK-NEXT: +-------------+
// CHECK-NEXT: partial sum over {model}: each device of a group holds one summand of its block

// ONLY-NOT: 'x'
// ONLY: @f input 'w'
// ONLY-NOT: '#2'
// ONLY-NOT: 'y'

// UNKNOWN: error: weft-show-sharding: no input or output named 'nope' (names come from weft.name)

// A letter map an earlier run recorded (weft.split) wins ties, so
// propagating a propagated program changes nothing (docs/propagation.md,
// "Known limits"). From the random corpus (gen_random_programs.py --seed
// 30, @case30_7): no plan reads every annotated value as annotated, greedy's
// plan is kept, and the div's two operands, split over seq and z, tie; the
// second run, which sees every layout as an annotation, took z where the
// first had taken seq.
// RUN: weft-opt --weft-propagate %s -o %t.once
// RUN: weft-opt --weft-propagate %t.once -o %t.twice
// RUN: diff %t.once %t.twice
// RUN: FileCheck %s < %t.twice
// CHECK: weft.map div "I,I->I" (%0, %3) {weft.split = {I = ["seq"]}}

weft.mesh @m7 ["seq" = 1, "z" = 4]
func.func @case30_7(%a0: tensor<2x8xf32, #weft.sharding<@m7, [{"z"}, {}]>>,
    %a1: tensor<2xf32>)
    -> (tensor<2xf32, #weft.sharding<@m7, [{}]>>) {
  %v1 = weft.einsum "fe->f" (%a0)
      : (tensor<2x8xf32, #weft.sharding<@m7, [{"z"}, {}]>>) -> tensor<2xf32>
  %v2 = weft.iota : tensor<6xf32>
  %v3 = weft.map square "x->x" (%a1)
      : (tensor<2xf32>) -> tensor<2xf32>
  %v4 = weft.map shift "x->x" (%v3) {scalar = 1.0 : f64}
      : (tensor<2xf32>) -> tensor<2xf32, #weft.sharding<@m7, [{"seq"}]>>
  %v5 = weft.map div "I,I->I" (%v1, %v4)
      : (tensor<2xf32>, tensor<2xf32, #weft.sharding<@m7, [{"seq"}]>>) -> tensor<2xf32, #weft.sharding<@m7, [{}]>>
  return %v5 : tensor<2xf32, #weft.sharding<@m7, [{}]>>
}

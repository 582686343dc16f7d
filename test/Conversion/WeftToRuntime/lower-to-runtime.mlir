// RUN: weft-opt --weft-lower-to-runtime %s | FileCheck %s

// Every local-view op kind on a 2x2 mesh: the plans are fixed at compile
// time (GEMM parameters derived by hand below), every value is released
// right after its last use, arguments never are, and an all-reduce whose
// operand dies there runs in place.

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @step(
    %x: tensor<4x8xf32> {weft.name = "x", weft.global_type = tensor<4x16xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w: tensor<8x6xf32> {weft.global_type = tensor<16x6xf32, #weft.sharding<@mesh, [{"model"}, {}]>>},
    %ids: tensor<2x3xi32> {weft.name = "ids", weft.global_type = tensor<2x3xi32>},
    %table: tensor<5x6xf32> {weft.global_type = tensor<10x6xf32, #weft.sharding<@mesh, [{"data"}, {}]>>})
    -> (tensor<4x6xf32> {weft.name = "y", weft.global_type = tensor<4x6xf32, #weft.sharding<@mesh, [{}, {}]>>},
        tensor<2x3x6xf32> {weft.global_type = tensor<2x3x6xf32>}) {
  %p = weft.einsum "bd,dn->bn" (%x, %w) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %s = weft.all_reduce sum %p on @mesh over ["model"] {weft.reason = "partial"} : tensor<4x6xf32>
  %r = weft.map relu "bn->bn" (%s) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %t = weft.map shift "bn->bn" (%r) {scalar = 5.000000e-01 : f64} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %m = weft.reduce max "bn->b" (%t) : (tensor<4x6xf32>) -> tensor<4xf32>
  %q = weft.map sub "bn,b->bn" (%t, %m) : (tensor<4x6xf32>, tensor<4xf32>) -> tensor<4x6xf32>
  %g = weft.slice_shard %q on @mesh over ["data"] dim 0 : tensor<4x6xf32> -> tensor<2x6xf32>
  %a = weft.all_gather %g on @mesh over ["data"] dim 0 : tensor<2x6xf32> -> tensor<4x6xf32>
  %e = weft.embed "bt,vd->btd" (%ids, %table) vocab on @mesh over ["data"] : (tensor<2x3xi32>, tensor<5x6xf32>) -> tensor<2x3x6xf32>
  %es = weft.reduce_scatter sum %e on @mesh over ["data"] dim 2 : tensor<2x3x6xf32> -> tensor<2x3x3xf32>
  %ea = weft.all_to_all %es on @mesh over ["data"] split 0 concat 2 : tensor<2x3x3xf32> -> tensor<1x3x6xf32>
  %eg = weft.all_gather %ea on @mesh over ["data"] dim 0 : tensor<1x3x6xf32> -> tensor<2x3x6xf32>
  return %a, %eg : tensor<4x6xf32>, tensor<2x3x6xf32>
}

// The weft ops are gone: the module is one C++ translation unit.
// CHECK: emitc.include "weft/rt/Program.h"
// CHECK-NOT: weft.mesh
// CHECK-NOT: func.func
// bd,dn->bn on [4,8] x [8,6]: one plain row-major GEMM, m=4 n=6 k=8,
// lda=8 ldb=6 ldc=6, no permutes.
// CHECK: emitc.verbatim "{{\[\[}}gnu::noinline, gnu::cold]] static const weft::rt::EinsumPlan &weft_plan0() {
// CHECK-SAME: .permuteA = false, .permuteB = false, .swapOperands = false, .gemm = weft::rt::GemmPlan{.m = 4, .n = 6, .k = 8, .transA = false, .transB = false, .lda = 8, .ldb = 6, .ldc = 6, .strideA = 0, .strideB = 0, .strideC = 0, .batch = 1}
// CHECK-SAME: .flops = 384}
// CHECK: static const weft::rt::MapPlan &weft_plan1()
// CHECK: static const weft::rt::MapPlan &weft_plan2()
// bn->b over [4,6]: 4 outputs of 6 elements each.
// CHECK: static const weft::rt::ReducePlan &weft_plan3() {\0A  static const weft::rt::ReducePlan plan = weft::rt::ReducePlan{.spec = \22bn->b\22, .inShape = {4, 6}, .outShape = {4}
// CHECK-SAME: .outElements = 4, .reducedElements = 6}
// CHECK: static const weft::rt::MapPlan &weft_plan4()
// 5 local rows; each id copies one contiguous row of 6.
// CHECK: static const weft::rt::EmbedPlan &weft_plan5()
// CHECK-SAME: .rows = 5, .rowStride = 6, .rowCopy = true, .rowElements = 6, .numIds = 6}

// CHECK-LABEL: emitc.func @weft_step_step(
// CHECK-SAME: %[[CTX:.*]]: !emitc.opaque<"weft::rt::StepContext&">)
// CHECK: %[[X:.*]] = call_opaque "weft::rt::gen::input"(%[[CTX]]) {args = [0 : index, #emitc.opaque<"0">]}
// CHECK: %[[W:.*]] = call_opaque "weft::rt::gen::input"(%[[CTX]]) {args = [0 : index, #emitc.opaque<"1">]}
// CHECK: %[[IDS:.*]] = call_opaque "weft::rt::gen::input"(%[[CTX]]) {args = [0 : index, #emitc.opaque<"2">]}
// CHECK: %[[TABLE:.*]] = call_opaque "weft::rt::gen::input"(%[[CTX]]) {args = [0 : index, #emitc.opaque<"3">]}
// CHECK: %[[P:.*]] = call_opaque "weft::rt::gen::einsum"(%[[CTX]], %[[X]], %[[W]]) {args = [0 : index, #emitc.opaque<"weft_plan0()">, 1 : index, 2 : index, #emitc.opaque<"\22#0 einsum bd,dn->bn\22">]}
// The step's references to its inputs drop at their last use too (the step
// context keeps an input alive; a donated parameter is freed there).
// CHECK-NEXT: call_opaque "weft::rt::gen::release"(%[[X]])
// CHECK-NEXT: call_opaque "weft::rt::gen::release"(%[[W]])
// %p dies at the all-reduce, which therefore runs in place.
// CHECK: %[[S:.*]] = call_opaque "weft::rt::gen::allReduce"(%[[CTX]], %[[P]]) {args = [0 : index, 1 : index, #emitc.opaque<"weft::rt::AxisList{1}">, #emitc.opaque<"weft::rt::ReduceKind::Sum">, #emitc.opaque<"true">, #emitc.opaque<"\22#1 all_reduce sum [model] (partial)\22">]}
// CHECK-NEXT: call_opaque "weft::rt::gen::release"(%[[P]])
// CHECK: %[[R:.*]] = call_opaque "weft::rt::gen::map"(%[[CTX]], %[[S]]) {args = [0 : index, #emitc.opaque<"weft::rt::gen::Dying{0b1}">, #emitc.opaque<"weft::rt::MapKind::Relu">, #emitc.opaque<"weft_plan1()">, 1 : index, #emitc.opaque<"0.0">
// CHECK-NEXT: call_opaque "weft::rt::gen::release"(%[[S]])
// CHECK: %[[T:.*]] = call_opaque "weft::rt::gen::map"(%[[CTX]], %[[R]]) {args = [0 : index, #emitc.opaque<"weft::rt::gen::Dying{0b1}">, #emitc.opaque<"weft::rt::MapKind::Shift">, #emitc.opaque<"weft_plan2()">, 1 : index, #emitc.opaque<"0.5">
// CHECK-NEXT: call_opaque "weft::rt::gen::release"(%[[R]])
// %t is used twice: it lives until the subtraction.
// CHECK: %[[M:.*]] = call_opaque "weft::rt::gen::reduce"(%[[CTX]], %[[T]]) {args = [0 : index, #emitc.opaque<"weft::rt::ReduceKind::Max">, #emitc.opaque<"weft_plan3()">, 1 : index
// CHECK-NOT: release"(%[[T]])
// CHECK: %[[Q:.*]] = call_opaque "weft::rt::gen::map"(%[[CTX]], %[[T]], %[[M]]) {args = [0 : index, #emitc.opaque<"weft::rt::gen::Dying{0b11}">, #emitc.opaque<"weft::rt::MapKind::Sub">, #emitc.opaque<"weft_plan4()">, 1 : index, 2 : index
// CHECK-NEXT: call_opaque "weft::rt::gen::release"(%[[T]])
// CHECK-NEXT: call_opaque "weft::rt::gen::release"(%[[M]])
// CHECK: %[[G:.*]] = call_opaque "weft::rt::gen::sliceShard"(%[[CTX]], %[[Q]]) {args = [0 : index, 1 : index, #emitc.opaque<"0">, #emitc.opaque<"weft::rt::AxisList{0}">, #emitc.opaque<"weft::rt::Shape{2, 6}">
// CHECK: %[[A:.*]] = call_opaque "weft::rt::gen::allGather"(%[[CTX]], %[[G]]) {args = [0 : index, 1 : index, #emitc.opaque<"0">, #emitc.opaque<"weft::rt::AxisList{0}">, #emitc.opaque<"weft::rt::Shape{4, 6}">
// CHECK: %[[E:.*]] = call_opaque "weft::rt::gen::embed"(%[[CTX]], %[[IDS]], %[[TABLE]]) {args = [0 : index, #emitc.opaque<"weft_plan5()">, 1 : index, 2 : index, #emitc.opaque<"weft::rt::AxisList{0}">
// CHECK: %[[ES:.*]] = call_opaque "weft::rt::gen::reduceScatter"(%[[CTX]], %[[E]]) {args = [0 : index, 1 : index, #emitc.opaque<"2">, #emitc.opaque<"weft::rt::AxisList{0}">, #emitc.opaque<"weft::rt::ReduceKind::Sum">, #emitc.opaque<"weft::rt::Shape{2, 3, 3}">
// CHECK: %[[EA:.*]] = call_opaque "weft::rt::gen::allToAll"(%[[CTX]], %[[ES]]) {args = [0 : index, 1 : index, #emitc.opaque<"0">, #emitc.opaque<"2">, #emitc.opaque<"weft::rt::AxisList{0}">, #emitc.opaque<"weft::rt::Shape{1, 3, 6}">
// CHECK: %[[EG:.*]] = call_opaque "weft::rt::gen::allGather"(%[[CTX]], %[[EA]])
// CHECK: call_opaque "weft::rt::gen::output"(%[[CTX]], %[[A]]) {args = [0 : index, #emitc.opaque<"0">, 1 : index]}
// CHECK: call_opaque "weft::rt::gen::output"(%[[CTX]], %[[EG]]) {args = [0 : index, #emitc.opaque<"1">, 1 : index]}
// CHECK: return

// The program description: mesh, names (weft.name, else arg<i>/result<i>),
// global shapes, layouts as mesh axis indices, and the id bound: 5 local
// rows times 2 data blocks = 10 rows.
// CHECK: emitc.global @weft_program : !emitc.opaque<"weft::rt::ProgramInfo"> = #emitc.opaque<"{.name = \22step\22, .source = \22lower-to-runtime.mlir\22, .mesh = {weft::rt::MeshAxis{\22data\22, 2}, weft::rt::MeshAxis{\22model\22, 2}},
// CHECK-SAME: .inputs = weft::rt::decodeTensorTable(
// CHECK-SAME: \22x f32 [4,16] [{},{1}]\\n\22
// CHECK-SAME: \22arg1 f32 [16,6] [{1},{}]\\n\22
// CHECK-SAME: \22ids i32 [2,3] [{},{}] bound=10\\n\22
// CHECK-SAME: \22arg3 f32 [10,6] [{0},{}]\\n\22),
// CHECK-SAME: .outputs = weft::rt::decodeTensorTable(
// CHECK-SAME: \22y f32 [4,6] [{},{}]\\n\22
// CHECK-SAME: \22result1 f32 [2,3,6] [{},{},{}]\\n\22),
// CHECK-SAME: .step = weft_step_step}">

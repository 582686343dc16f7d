// weft-translate --weft-to-json writes the global-view graph: inputs
// (weft.name, else arg<i>), ops in program order with their ids, outputs
// (weft.name, else result<i>). Compact one-line JSON is checked through
// python's json.
// RUN: weft-translate %s --weft-to-json -o %t.json
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); [print(json.dumps(x, sort_keys=True)) for f in d['functions'] for x in f['inputs'] + f['ops'] + f['outputs']]; print(json.dumps(d['meshes'])); print(d['format'], d['version'])" %t.json | FileCheck %s
// Without -o, the JSON goes to stdout.
// RUN: weft-translate %s --weft-to-json | FileCheck %s --check-prefix=STDOUT

weft.mesh @mesh ["data" = 2, "model" = 4]

// CHECK: {"dtype": "i32", "id": 0, "name": "ids", "shape": [8, 4], "sharding": "#weft.sharding<@mesh, [{\"data\"}, {}]>", "ssa": "%arg0"}
// CHECK-NEXT: {"dtype": "f32", "id": 1, "name": "arg1", "shape": [16, 8], "sharding": "#weft.sharding<@mesh, [{\"model\"}, {}]>", "ssa": "%arg1"}
// CHECK-NEXT: {"dtype": "f32", "id": 2, "name": "arg2", "shape": [8], "ssa": "%arg2"}
// CHECK-NEXT: {"dtype": "f32", "kind": "embed", "loc": "{{.*}}to-json.mlir:{{[0-9]+}}:8", "operands": [0, 1], "result": 3, "shape": [8, 4, 8], "spec": "bt,vd->btd", "ssa": "%0"}
// CHECK-NEXT: {"dtype": "f32", "kind": "map", "loc": "{{.*}}", "map": "add", "operands": [3, 2], "result": 4, "shape": [8, 4, 8], "spec": "btd,d->btd", "ssa": "%1"}
// CHECK-NEXT: {"dtype": "f32", "kind": "map", "loc": "{{.*}}", "map": "scale", "operands": [4], "result": 5, "scalar": 0.125, "shape": [8, 4, 8], "spec": "btd->btd", "ssa": "%2"}
// CHECK-NEXT: {"dtype": "f32", "kind": "shard", "loc": "{{.*}}", "operands": [5], "result": 6, "shape": [8, 4, 8], "sharding": "#weft.sharding<@mesh, [{}, {}, {\"model\"}]>", "ssa": "%3"}
// CHECK-NEXT: {"dtype": "f32", "kind": "reduce", "loc": "{{.*}}", "operands": [6], "reduce": "max", "result": 7, "shape": [8, 8], "sharding": "#weft.sharding<@mesh, [{}, {}], partial = max {\"model\"}>", "spec": "btd->db", "ssa": "%4"}
// CHECK-NEXT: {"dtype": "f32", "kind": "einsum", "loc": "{{.*}}", "operands": [7, 7], "result": 8, "shape": [8, 8], "spec": "db,eb->de", "ssa": "%5"}
// CHECK-NEXT: {"dtype": "f32", "id": 8, "name": "gram", "shape": [8, 8]}
// CHECK-NEXT: {"dtype": "f32", "id": 7, "name": "result1", "shape": [8, 8], "sharding": "#weft.sharding<@mesh, [{}, {}], partial = max {\"model\"}>"}
// CHECK-NEXT: {"dtype": "f64", "id": 0, "name": "arg0", "shape": [4], "ssa": "%arg0"}
// CHECK-NEXT: {"dtype": "f64", "kind": "map", "loc": "{{.*}}", "map": "gelu", "operands": [0], "result": 1, "shape": [4], "spec": "i->i", "ssa": "%0"}
// CHECK-NEXT: {"dtype": "f64", "id": 1, "name": "result0", "shape": [4]}
// CHECK-NEXT: [{"axes": [{"name": "data", "size": 2}, {"name": "model", "size": 4}], "name": "mesh"}, {"axes": [{"name": "x", "size": 2}], "name": "m2"}]
// CHECK-NEXT: weft-graph 1
// STDOUT: "format": "weft-graph"

func.func @graph(%ids: tensor<8x4xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "ids"},
    %table: tensor<16x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %bias: tensor<8xf32>)
    -> (tensor<8x8xf32> {weft.name = "gram"},
        tensor<8x8xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>) {
  %e = weft.embed "bt,vd->btd" (%ids, %table)
      : (tensor<8x4xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<8x4x8xf32>
  %a = weft.map add "btd,d->btd" (%e, %bias) : (tensor<8x4x8xf32>, tensor<8xf32>) -> tensor<8x4x8xf32>
  %s = weft.map scale "btd->btd" (%a) {scalar = 1.250000e-01 : f64} : (tensor<8x4x8xf32>) -> tensor<8x4x8xf32>
  %c = weft.shard %s : tensor<8x4x8xf32> -> tensor<8x4x8xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>
  %m = weft.reduce max "btd->db" (%c)
      : (tensor<8x4x8xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>)
      -> tensor<8x8xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>
  %g = weft.einsum "db,eb->de" (%m, %m)
      : (tensor<8x8xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>, tensor<8x8xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>)
      -> tensor<8x8xf32>
  return %g, %m : tensor<8x8xf32>, tensor<8x8xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>
}

weft.mesh @m2 ["x" = 2]

func.func @f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  %g = weft.map gelu "i->i" (%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}

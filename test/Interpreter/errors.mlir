// Bad programs are diagnostics with a location and exit status 1, never a
// crash.
// RUN: not weft-interp %s 2>&1 | FileCheck %s --check-prefix=MANY
// MANY: errors.mlir:0:0: error: weft-interp: expected one function, found {{[0-9]+}} (@global @partly @bad_local_shape @bad_axis ...); choose one with --func=NAME
// RUN: not weft-interp %s --func nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: errors.mlir:0:0: error: weft-interp: no function named 'nope' (the module has @global @partly @bad_local_shape @bad_axis ...)
// RUN: not weft-interp %s --func global --compare %s --local-func nope 2>&1 | FileCheck %s --check-prefix=NOLOCAL
// NOLOCAL: errors.mlir:0:0: error: weft-interp: no function named 'nope' (the module has @global @partly @bad_local_shape @bad_axis ...)
// RUN: not weft-interp %s --all-funcs 2>&1 | FileCheck %s --check-prefix=ALLFUNCS
// ALLFUNCS: weft-interp: error: --all-funcs needs --compare
// RUN: not weft-interp %s --func global --rtol -1 2>&1 | FileCheck %s --check-prefix=RTOL
// RTOL: weft-interp: error: --rtol must be a finite number >= 0, got -1

weft.mesh @mesh ["m" = 2]
weft.mesh @mesh2 ["n" = 2]

func.func @global(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// A local function without weft.global_type, given to --compare.
// RUN: not weft-interp %s --func global --compare %s --local-func global 2>&1 | FileCheck %s --check-prefix=NOATTR
// NOATTR: errors.mlir:[[@LINE-6]]:1: error: argument #0 has no `weft.global_type` attribute; a local-view function gives every argument and result its global type

// The attribute on some arguments only.
// RUN: not weft-interp %s --func partly 2>&1 | FileCheck %s --check-prefix=PARTLY
// PARTLY: errors.mlir:[[@LINE+1]]:1: error: result #0 has no `weft.global_type` attribute
func.func @partly(%x: tensor<2xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{"m"}]>>}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// RUN: not weft-interp %s --func bad_local_shape 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: errors.mlir:[[@LINE+1]]:1: error: argument #0 has local shape 4x3, but its global type 'tensor<4x3xf32, #weft.sharding<@mesh, [{"m"}, {}]>>' gives blocks of shape 2x3
func.func @bad_local_shape(%x: tensor<4x3xf32> {weft.global_type = tensor<4x3xf32, #weft.sharding<@mesh, [{"m"}, {}]>>})
    -> (tensor<4x3xf32> {weft.global_type = tensor<4x3xf32>}) {
  return %x : tensor<4x3xf32>
}

// RUN: not weft-interp %s --func bad_axis 2>&1 | FileCheck %s --check-prefix=AXIS
// AXIS: errors.mlir:[[@LINE+1]]:1: error: 'func.func' op names axis "zz", which mesh @mesh does not have (its axes: "m")
func.func @bad_axis(%x: tensor<2xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{"zz"}]>>})
    -> (tensor<2xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{"m"}]>>}) {
  return %x : tensor<2xf32>
}

// RUN: not weft-interp %s --func uneven 2>&1 | FileCheck %s --check-prefix=UNEVEN
// UNEVEN: errors.mlir:[[@LINE+1]]:1: error: 'func.func' op dimension #0 of the global type of argument #0 has size 3, which is not divisible by 2
func.func @uneven(%x: tensor<1xf32> {weft.global_type = tensor<3xf32, #weft.sharding<@mesh, [{"m"}]>>})
    -> (tensor<1xf32> {weft.global_type = tensor<1xf32>}) {
  return %x : tensor<1xf32>
}

// RUN: not weft-interp %s --func no_mesh 2>&1 | FileCheck %s --check-prefix=NOMESH
// NOMESH: errors.mlir:[[@LINE+1]]:1: error: 'func.func' op refers to mesh @nowhere, which is not defined
func.func @no_mesh(%x: tensor<2xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@nowhere, [{"m"}]>>})
    -> (tensor<2xf32> {weft.global_type = tensor<2xf32>}) {
  return %x : tensor<2xf32>
}

// RUN: not weft-interp %s --func encoded 2>&1 | FileCheck %s --check-prefix=ENCODED
// ENCODED: errors.mlir:[[@LINE+1]]:1: error: argument #0 has type 'tensor<2xf32, #weft.sharding<@mesh, [{}]>>': local types carry no #weft.sharding
func.func @encoded(%x: tensor<2xf32, #weft.sharding<@mesh, [{}]>> {weft.global_type = tensor<2xf32>})
    -> (tensor<2xf32> {weft.global_type = tensor<2xf32>}) {
  %y = weft.einsum "i->i" (%x) : (tensor<2xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// The global types of the local function disagree with the global function.
// RUN: not weft-interp %s --func global --compare %s --local-func other_shape 2>&1 | FileCheck %s --check-prefix=DISAGREE
// DISAGREE: errors.mlir:[[@LINE+2]]:1: error: the weft.global_type of argument #0 disagrees with the global function
// DISAGREE: errors.mlir:[[@LINE+1]]:1: remark: global function: 'tensor<4xf32>', weft.global_type: 'tensor<8xf32, #weft.sharding<@mesh, [{"m"}]>>'
func.func @other_shape(%x: tensor<4xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@mesh, [{"m"}]>>})
    -> (tensor<4xf32> {weft.global_type = tensor<4xf32>}) {
  return %x : tensor<4xf32>
}

// RUN: not weft-interp %s --func global --compare %s --local-func two_args 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: errors.mlir:[[@LINE+1]]:1: error: the local function takes 2 argument(s) but the global function @global takes 1
func.func @two_args(%x: tensor<4xf32> {weft.global_type = tensor<4xf32>}, %y: tensor<4xf32> {weft.global_type = tensor<4xf32>})
    -> (tensor<4xf32> {weft.global_type = tensor<4xf32>}) {
  return %x : tensor<4xf32>
}

// RUN: not weft-interp %s --func global --compare %s --local-func two_results 2>&1 | FileCheck %s --check-prefix=RESULTS
// RESULTS: errors.mlir:[[@LINE+1]]:1: error: the local function returns 2 result(s) but the global function @global returns 1
func.func @two_results(%x: tensor<4xf32> {weft.global_type = tensor<4xf32>})
    -> (tensor<4xf32> {weft.global_type = tensor<4xf32>}, tensor<4xf32> {weft.global_type = tensor<4xf32>}) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}

// The first file of --compare must be the global view.
// RUN: not weft-interp %s --func two_results --compare %s --local-func two_results 2>&1 | FileCheck %s --check-prefix=SWAPPED
// SWAPPED: weft-interp: error: '{{.*}}errors.mlir' is a local-view program (it has weft.global_type attributes); the first file of --compare is the global view

// RUN: not weft-interp %s --func collective_in_global 2>&1 | FileCheck %s --check-prefix=GLOBALCOLL
// GLOBALCOLL: errors.mlir:[[@LINE+2]]:8: error: 'weft.all_reduce' is a local-view op and cannot run in the global view (pass the per-rank program to --compare)
func.func @collective_in_global(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = weft.all_reduce sum %x on @mesh over ["m"] : tensor<4xf32>
  return %y : tensor<4xf32>
}

// RUN: not weft-interp %s --func vocab_in_global 2>&1 | FileCheck %s --check-prefix=GLOBALVOCAB
// GLOBALVOCAB: errors.mlir:[[@LINE+2]]:8: error: 'weft.embed' is a local-view op and cannot run in the global view
func.func @vocab_in_global(%ids: tensor<3xi32>, %t: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %e = weft.embed "t,vd->td" (%ids, %t) vocab on @mesh over ["m"] : (tensor<3xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %e : tensor<3x4xf32>
}

// RUN: not weft-interp %s --func shard_in_local 2>&1 | FileCheck %s --check-prefix=LOCALSHARD
// LOCALSHARD: errors.mlir:[[@LINE+3]]:8: error: weft.shard is a global-view op; a local-view program has none
func.func @shard_in_local(%x: tensor<4xf32> {weft.global_type = tensor<4xf32>})
    -> (tensor<4xf32> {weft.global_type = tensor<4xf32>}) {
  %y = weft.shard %x : tensor<4xf32> -> tensor<4xf32, #weft.sharding<@mesh, [{}]>>
  %z = weft.einsum "i->i" (%y) : (tensor<4xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// RUN: not weft-interp %s --func two_meshes 2>&1 | FileCheck %s --check-prefix=TWOMESH
// TWOMESH: errors.mlir:[[@LINE+3]]:8: error: names mesh @mesh2 but the function already uses mesh @mesh; one function runs on one mesh
func.func @two_meshes(%x: tensor<2xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{"m"}]>>})
    -> (tensor<2xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{"m"}]>>}) {
  %y = weft.all_reduce sum %x on @mesh2 over ["n"] : tensor<2xf32>
  return %y : tensor<2xf32>
}

// RUN: not weft-interp %s --func unsupported 2>&1 | FileCheck %s --check-prefix=NOEVAL
// NOEVAL: errors.mlir:[[@LINE+2]]:8: error: the interpreter does not evaluate 'arith.constant' (it runs the weft ops and func.return)
func.func @unsupported() -> tensor<2xf32> {
  %c = arith.constant dense<1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// RUN: not weft-interp %s --func declaration 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: errors.mlir:[[@LINE+1]]:1: error: function @declaration has no body to evaluate
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// Ranks that should hold the same replicated value and do not: each rank
// returns its own block as if it were the whole (replicated) result.
// RUN: not weft-interp %s --func replicas_disagree | FileCheck %s --check-prefix=REPLICAS
// REPLICAS: result #0: tensor<2xf32>
// REPLICAS-NEXT: result #0: replicas disagree: ranks 0 and 1 hold {{.*}} at [{{[01]}}] ({{[12]}} element(s) beyond atol 1e-10 + rtol 1e-09 * max |value| {{.*}})
func.func @replicas_disagree(%x: tensor<2xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{"m"}]>>})
    -> (tensor<2xf32> {weft.global_type = tensor<2xf32>}) {
  return %x : tensor<2xf32>
}

// Non-tensor and dynamic signatures are not evaluated.
// RUN: not weft-interp %s --func dynamic 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: weft-interp: error: function @dynamic takes a non-tensor or dynamic argument
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
// RUN: not weft-interp %s --func scalar_result 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: weft-interp: error: function @scalar_result returns a non-tensor or dynamic result
func.func @scalar_result() -> i32 {
  %c = arith.constant 1 : i32
  return %c : i32
}

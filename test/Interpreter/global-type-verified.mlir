// A malformed weft.global_type is rejected by the dialect's verifier when the
// file is read, before the interpreter evaluates anything (the cases are in
// test/Dialect/Weft/global-type-errors.mlir).
// RUN: not weft-interp %s 2>&1 | FileCheck %s
// CHECK: global-type-verified.mlir:[[@LINE+1]]:1: error: 'func.func' op argument #0: local type 'tensor<4xf64>' does not match the element type and rank of its weft.global_type 'tensor<4xf32>'
func.func @element_type(%x: tensor<4xf64> {weft.global_type = tensor<4xf32>}) -> (tensor<4xf64> {weft.global_type = tensor<4xf64>}) {
  return %x : tensor<4xf64>
}

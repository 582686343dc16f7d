// Guards D3 (robustness.md): weft-interp bounds what it simulates (every
// rank's copy of every value lives in this process, in double) with a clear
// error at the mesh, function or op, never "LLVM ERROR: out of memory" nor
// an uncaught std::length_error: at most --max-ranks ranks (default 4096)
// and --max-elements elements per value over all ranks (default 2^28).
// Meshes and tensors beyond what Weft supports at all (2^20 devices, 2^48
// elements, wrapping products: D1, D2) are the verifier's
// (test/Dialect/Weft/limits-errors.mlir; here mesh-product-wraps.test).

// RUN: not weft-interp %s --func many_ranks 2>&1 | FileCheck %s --check-prefix=RANKS
// RANKS: simulation-limits.mlir:[[@LINE+14]]:1: error: mesh @big has 8192 devices; weft-interp simulates at most 4096 ranks (raise with --max-ranks), one tensor per rank for every value
// RUN: not weft-interp %s --func few_ranks --max-ranks 2 2>&1 | FileCheck %s --check-prefix=FEW
// FEW: error: mesh @four has 4 devices; weft-interp simulates at most 2 ranks (raise with --max-ranks)
// RUN: weft-interp %s --func few_ranks --max-ranks 4 | FileCheck %s --check-prefix=FOUR
// FOUR: local view of @few_ranks on 4 rank(s); results assembled
// RUN: not weft-interp %s --func huge_unused 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: simulation-limits.mlir:[[@LINE+25]]:1: error: argument #1 ('tensor<1099511627776xf32>') holds 1099511627776 element(s); weft-interp simulates at most 268435456 per tensor (raise with --max-elements)
// RUN: not weft-interp %s --func replicated_everywhere 2>&1 | FileCheck %s --check-prefix=OVER
// OVER: simulation-limits.mlir:[[@LINE+30]]:8: error: result #0 ('tensor<131072xf32>') holds 536870912 element(s) over 4096 ranks; weft-interp simulates at most 268435456 per tensor (raise with --max-elements)
// RUN: not weft-interp %s --func few_ranks --max-elements 100 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: error: argument #0 ('tensor<32xf32>') holds 128 element(s) over 4 ranks; weft-interp simulates at most 100 per tensor
// RUN: not weft-interp %s --func few_ranks --max-ranks 0 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: weft-interp: error: --max-ranks, --max-elements and --max-work must be >= 1

weft.mesh @big ["a" = 8192]
weft.mesh @four ["m" = 4]
weft.mesh @wide ["w" = 4096]

func.func @many_ranks(%x: tensor<8xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@big, [{}]>>})
    -> (tensor<8xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@big, [{}]>>}) {
  %y = weft.map relu "i->i" (%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @few_ranks(%x: tensor<32xf32> {weft.global_type = tensor<128xf32, #weft.sharding<@four, [{"m"}]>>})
    -> (tensor<32xf32> {weft.global_type = tensor<128xf32, #weft.sharding<@four, [{"m"}]>>}) {
  %y = weft.map neg "i->i" (%x) : (tensor<32xf32>) -> tensor<32xf32>
  return %y : tensor<32xf32>
}

// An argument no op uses, found by the mutation fuzzer.
func.func @huge_unused(%x: tensor<16xf32>, %y: tensor<1099511627776xf32>) {
  return
}

// 2^17 elements replicated on 4096 ranks: 2^29 simulated elements.
func.func @replicated_everywhere(%x: tensor<32xf32> {weft.global_type = tensor<131072xf32, #weft.sharding<@wide, [{"w"}]>>})
    -> (tensor<131072xf32> {weft.global_type = tensor<131072xf32, #weft.sharding<@wide, [{}]>>}) {
  %g = weft.all_gather %x on @wide over ["w"] dim 0 : tensor<32xf32> -> tensor<131072xf32>
  %y = weft.map neg "i->i" (%g) : (tensor<131072xf32>) -> tensor<131072xf32>
  return %y : tensor<131072xf32>
}


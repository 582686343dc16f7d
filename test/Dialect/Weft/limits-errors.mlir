// Bounds on meshes and tensors (include/weft/Dialect/Weft/IR/Limits.h): every
// product of sizes is checked before anything divides or allocates by it.
// Regression tests for ../shared/robustness.md D1, D2 (mesh products that
// wrapped to 0 or 1), D3 (meshes too big), D7 (element counts that
// overflowed the comm report's bytes) and D12 (zero-sized dimensions).
// RUN: weft-opt -split-input-file -verify-diagnostics %s

// D1: two axes whose sizes multiply to 2^64 (wrapped to 0, then SIGFPE).
// expected-error@+1 {{'weft.mesh' op has more than 1048576 devices (the product of its axis sizes); Weft supports at most that many}}
weft.mesh @mesh ["a" = 4294967296, "b" = 4294967296]
func.func @f(%x: tensor<8xf32, #weft.sharding<@mesh, [{"a", "b"}]>>) -> tensor<8xf32> {
  %y = weft.map relu "i->i" (%x) : (tensor<8xf32, #weft.sharding<@mesh, [{"a", "b"}]>>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// D2: a product that wraps to exactly 1 (7 * 7905747460161236407 mod 2^64).
// expected-error@+1 {{'weft.mesh' op has more than 1048576 devices}}
weft.mesh @mesh ["a" = 7, "b" = 7905747460161236407]

// -----

// D3: 2^32 devices, no overflow but far beyond any machine.
// expected-error@+1 {{'weft.mesh' op has more than 1048576 devices}}
weft.mesh @mesh ["a" = 65536, "b" = 65536]

// -----

// The bound itself is allowed: 2^20 devices.
weft.mesh @mesh ["a" = 1024, "b" = 1024]

// -----

// D7: 2^60 elements (the comm report printed negative bytes).
weft.mesh @mesh ["model" = 4]
func.func @f(%x: tensor<1048576x1048576x1048576xf32>) -> tensor<1048576x1048576x1048576xf32> {
  // expected-error@+1 {{has more than 281474976710656 elements; Weft supports at most that many}}
  %y = weft.map relu "ijk->ijk" (%x) : (tensor<1048576x1048576x1048576xf32>) -> tensor<1048576x1048576x1048576xf32>
  return %y : tensor<1048576x1048576x1048576xf32>
}

// -----

// D12: a zero-sized dimension (failed later with "local dimension 0 (0) does
// not divide global dimension 0").
weft.mesh @mesh ["model" = 2]
func.func @f(%x: tensor<0x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<0x8xf32> {
  // expected-error@+1 {{'weft.map' op dimension #0 of operand #0 has size 0; weft tensors have sizes of at least 1}}
  %z = weft.map relu "ij->ij" (%x) : (tensor<0x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<0x8xf32>
  return %z : tensor<0x8xf32>
}

// -----

// Collectives are bounded too.
weft.mesh @mesh ["model" = 2]
func.func @f(%x: tensor<0xf32>) -> tensor<0xf32> {
  // expected-error@+1 {{'weft.all_reduce' op dimension #0 of operand #0 has size 0}}
  %r = weft.all_reduce sum %x on @mesh over ["model"] : tensor<0xf32>
  return %r : tensor<0xf32>
}

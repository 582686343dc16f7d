// RUN: weft-opt --weft-lower-to-runtime -split-input-file -verify-diagnostics %s

// A global-view function (sharding encodings left) is not lowered.
weft.mesh @mesh ["model" = 2]
// expected-error@+1 {{argument #0 still has a sharding encoding}}
func.func @global(%x: tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {
  return %x : tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
}

// -----

// The local type must be the block of the global type: 8 / 2 = 4, not 8.
weft.mesh @mesh ["model" = 2]
// expected-error@+1 {{argument #0: local type 'tensor<4x8xf32>' is not the per-device block of the global type 'tensor<4x8xf32>' (expected shape 'tensor<4x4xf32>')}}
func.func @wrong_block(%x: tensor<4x8xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>}) -> (tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>}) {
  return %x : tensor<4x8xf32>
}

// -----

// Inputs cannot be partial: nothing says how to split the user's values.
weft.mesh @mesh ["model" = 2]
// expected-error@+1 {{argument #0 is partial; inputs must not be partial}}
func.func @partial_input(%x: tensor<4x8xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"model"}>>}) -> (tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>}) {
  return %x : tensor<4x8xf32>
}

// -----

// The runtime has no i64 tensors: the signature is refused, not lowered as f32.
weft.mesh @mesh ["model" = 2]
// expected-error@+1 {{argument #0 has element type 'i64', which the runtime does not support}}
func.func @i64_input(%x: tensor<4xi64> {weft.global_type = tensor<4xi64>}) -> (tensor<4xi64> {weft.global_type = tensor<4xi64>}) {
  return %x : tensor<4xi64>
}

// -----

// weft.shard belongs to the global view.
weft.mesh @mesh ["model" = 2]
func.func @shard(%x: tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>}) -> (tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>}) {
  // expected-error@+1 {{weft.shard belongs to the global view}}
  %y = weft.shard %x : tensor<4x8xf32> -> tensor<4x8xf32, #weft.sharding<@mesh, [{}, {}]>>
  %z = weft.map relu "ij->ij" (%y) : (tensor<4x8xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// -----

// Outputs name .npy files: two with one name would overwrite each other.
weft.mesh @mesh ["model" = 2]
// expected-error@+1 {{two inputs or outputs are named 'y'}}
func.func @same_name(%x: tensor<4xf32> {weft.name = "y", weft.global_type = tensor<4xf32>}) -> (tensor<4xf32> {weft.name = "y", weft.global_type = tensor<4xf32>}) {
  return %x : tensor<4xf32>
}

// -----

// Without entry=, the module must hold exactly one function.
// expected-error@+1 {{weft-lower-to-runtime: expected one function, found 2 (@a @b); choose one with entry=NAME}}
module {
  weft.mesh @mesh ["model" = 2]
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
  func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}


// -----

// An error a pattern reports during the conversion is the only one: the
// conversion driver's "failed to legalize operation" echo is dropped.
weft.mesh @mesh ["model" = 2]
func.func @encoded_result(%x: tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>}) -> (tensor<4x8xf32> {weft.global_type = tensor<4x8xf32>}) {
  // expected-error@+1 {{the result still has a sharding encoding}}
  %y = weft.map relu "ij->ij" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32, #weft.sharding<@mesh, [{}, {}]>>
  %z = weft.map relu "ij->ij" (%y) : (tensor<4x8xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// Bad #weft.sharding attributes: syntax, rules of the attribute itself, and
// rules checked against the mesh.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

weft.mesh @mesh ["data" = 2, "model" = 4]
// The number of dimension lists must equal the rank.
// expected-error@+1 {{sharding has 2 dimension lists but the tensor has rank 3}}
func.func @rank(%a: tensor<4x8x16xf32, #weft.sharding<@mesh, [{}, {}]>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// An axis is used at most once, across dimensions.
// expected-error@+1 {{mesh axis "model" is used more than once in the sharding}}
func.func @twice(%a: tensor<8x8xf32, #weft.sharding<@mesh, [{"model"}, {"model"}]>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// An axis is used at most once within a dimension.
// expected-error@+1 {{mesh axis "data" is used more than once in the sharding}}
func.func @twice_in_dim(%a: tensor<8x8xf32, #weft.sharding<@mesh, [{"data", "data"}, {}]>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// An axis may not split a dimension and be partial.
// expected-error@+1 {{mesh axis "model" is used more than once in the sharding}}
func.func @split_and_partial(%a: tensor<8x8xf32, #weft.sharding<@mesh, [{"model"}, {}], partial = sum {"model"}>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Axis names are non-empty.
// expected-error@+1 {{empty mesh axis name in dimension #0}}
func.func @empty_axis(%a: tensor<8xf32, #weft.sharding<@mesh, [{""}]>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// The partial reduction is sum, max or min.
// expected-error@+1 {{unknown partial reduction 'prod' (expected sum, max or min)}}
func.func @bad_kind(%a: tensor<8xf32, #weft.sharding<@mesh, [{}], partial = prod {"model"}>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// A partial sharding names its axes.
// expected-error@+1 {{a partial sharding needs at least one axis}}
func.func @partial_no_axes(%a: tensor<8xf32, #weft.sharding<@mesh, [{}], partial = sum {}>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// The mesh is a symbol reference.
// expected-error@+1 {{expected valid '@'-identifier for symbol name}}
func.func @no_symbol(%a: tensor<8xf32, #weft.sharding<mesh, [{}]>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Axes are quoted strings.
// expected-error@+1 {{expected string}}
func.func @unquoted(%a: tensor<8xf32, #weft.sharding<@mesh, [{model}]>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Dimension lists are in braces.
// expected-error@+1 {{expected '{'}}
func.func @no_braces(%a: tensor<8xf32, #weft.sharding<@mesh, ["model"]>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Unknown trailing field.
// expected-error@+1 {{expected 'partial'}}
func.func @unknown_field(%a: tensor<8xf32, #weft.sharding<@mesh, [{}], replicated = sum {"model"}>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Dynamic dimensions cannot be sharded.
// expected-error@+1 {{sharded tensors need a static shape}}
func.func @dynamic(%a: tensor<?xf32, #weft.sharding<@mesh, [{"model"}]>>) {
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Axes must exist in the mesh (checked by the ops using the value).
func.func @unknown_axis(%a: tensor<8xf32, #weft.sharding<@mesh, [{"pipe"}]>>) {
  // expected-error@+1 {{'weft.map' op names axis "pipe", which mesh @mesh does not have (its axes: "data", "model")}}
  %0 = weft.map relu "i->i" (%a) : (tensor<8xf32, #weft.sharding<@mesh, [{"pipe"}]>>) -> tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Partial axes must exist in the mesh.
func.func @unknown_partial_axis(%a: tensor<8xf32, #weft.sharding<@mesh, [{}], partial = sum {"pipe"}>>) {
  // expected-error@+1 {{'weft.map' op names axis "pipe"}}
  %0 = weft.map relu "i->i" (%a) : (tensor<8xf32, #weft.sharding<@mesh, [{}], partial = sum {"pipe"}>>) -> tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// The mesh must be declared.
func.func @no_mesh(%a: tensor<8xf32, #weft.sharding<@other, [{"model"}]>>) {
  // expected-error@+1 {{'weft.map' op refers to mesh @other, which is not defined (declare it with weft.mesh)}}
  %0 = weft.map relu "i->i" (%a) : (tensor<8xf32, #weft.sharding<@other, [{"model"}]>>) -> tensor<8xf32>
  return
}

// -----

// The mesh symbol must be a weft.mesh.
func.func @not_a_mesh(%a: tensor<8xf32, #weft.sharding<@not_a_mesh, [{"model"}]>>) {
  // expected-error@+1 {{'weft.map' op refers to mesh @not_a_mesh, which is not a weft.mesh}}
  %0 = weft.map relu "i->i" (%a) : (tensor<8xf32, #weft.sharding<@not_a_mesh, [{"model"}]>>) -> tensor<8xf32>
  return
}

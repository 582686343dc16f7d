// Bad weft.mesh declarations.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

// A mesh needs at least one axis.
// expected-error@+1 {{'weft.mesh' op needs at least one axis}}
weft.mesh @mesh []

// -----

// Axis names are unique.
// expected-error@+1 {{'weft.mesh' op has two axes named "x"}}
weft.mesh @mesh ["x" = 2, "x" = 4]

// -----

// Axis names are non-empty.
// expected-error@+1 {{'weft.mesh' op has an axis with an empty name}}
weft.mesh @mesh ["" = 2]

// -----

// Sizes are at least 1.
// expected-error@+1 {{'weft.mesh' op axis "x" has size 0; sizes must be at least 1}}
weft.mesh @mesh ["x" = 0]

// -----

// Negative sizes.
// expected-error@+1 {{'weft.mesh' op axis "y" has size -2; sizes must be at least 1}}
weft.mesh @mesh ["x" = 2, "y" = -2]

// -----

// An axis needs a size.
// expected-error@+1 {{expected '='}}
weft.mesh @mesh ["x"]

// -----

// Axis names are quoted strings.
// expected-error@+1 {{expected string}}
weft.mesh @mesh [x = 2]

// -----

// The mesh needs a symbol name.
// expected-error@+1 {{expected valid '@'-identifier for symbol name}}
weft.mesh ["x" = 2]

// -----

// Two meshes with one name.
// expected-note@+1 {{see existing symbol definition here}}
weft.mesh @mesh ["x" = 2]
// expected-error@+1 {{redefinition of symbol named 'mesh'}}
weft.mesh @mesh ["y" = 2]

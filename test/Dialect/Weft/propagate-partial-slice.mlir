// KNOWN BUG (found 2026-11-25, not fixed): a reduce whose annotated result
// is partial over more axes than its annotated operand is split over needs
// the operand sliced locally (data -> data, model: no communication), and
// weft-propagate refuses every letter map instead ("internal error").
// weftc's own plan for T1 under the calibrated CPU profile contains such a
// reduce (the b1 gradient), so re-propagating T1's global view fails
// (repropagate.py lists it as a known failure). This test fails until
// weft-propagate accepts it; then remove XFAIL.
// XFAIL: *
// RUN: weft-opt --weft-propagate=search=greedy %s -o /dev/null
// RUN: weft-opt --weft-propagate %s -o /dev/null

weft.mesh @mesh ["data" = 2, "model" = 2]
func.func @f(%x: tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{}], partial = sum {"data", "model"}>> {
  %r = weft.reduce sum "bd->d" (%x) : (tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{}], partial = sum {"data", "model"}>>
  return %r : tensor<4xf32, #weft.sharding<@mesh, [{}], partial = sum {"data", "model"}>>
}

#!/usr/bin/env bash
# Sets up, builds, and shows weft on the Megatron MLP (examples/canonical/p1.mlir):
# the program parsed, verified and printed back.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WEFT_BUILD_DIR:-$root/build}"

"$root/scripts/build.sh" --target weft-opt
example="$root/examples/canonical/p1.mlir"
echo "demo: $example, parsed and verified by weft-opt:"
"$build/bin/weft-opt" "$example"

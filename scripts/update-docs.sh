#!/usr/bin/env bash
# Regenerates the ODS reference docs and copies them into docs/generated/.
# A lit test (test/docs/generated-docs.test) fails while they differ.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WEFT_BUILD_DIR:-$root/build}"
cmake --build "$build" --target weft-docs
mkdir -p "$root/docs/generated"
rm -f "$root/docs/generated/"*.md
cp "$build/docs/"*.md "$root/docs/generated/"
echo "docs/generated updated from $build/docs"

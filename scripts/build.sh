#!/usr/bin/env bash
# Configures (once) and builds weft into build/ (or $WEFT_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WEFT_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
start=$(date +%s)
# build.ninja, not CMakeCache.txt: a configure that failed leaves the cache
# but no build file, and must run again.
if [ ! -f "$build/build.ninja" ]; then
  echo "build: configuring $build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
echo "build: building (ninja, $(nproc) cores)"
cmake --build "$build" "$@"
echo "build: done in $(( $(date +%s) - start )) s"

#!/usr/bin/env bash
# Sets up, builds and runs every test: the lit suite (compiler, examples, end
# to end) and the runtime's CTest suite (unit and MPI tests). Exits non-zero
# if anything fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WEFT_BUILD_DIR:-$root/build}"

"$root/scripts/build.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

status=0
start=$(date +%s)
echo "test: lit suite"
# lit's output is kept (lit.log) so that a failure's key lines can be
# repeated at the very end, where a truncated CI log still shows them.
cmake --build "$build" --target check-weft 2>&1 | tee "$build/lit.log" ||
  status=1
echo "test: lit suite took $(( $(date +%s) - start )) s"

start=$(date +%s)
echo "test: runtime suite (ctest)"
ctest --test-dir "$build" --output-on-failure || status=1
echo "test: ctest took $(( $(date +%s) - start )) s"

if [ $status -ne 0 ]; then
  # A digest of the lit failures: the failing tests and the lines that say
  # why (a check's FAIL line, an error), at most 60.
  if [ -f "$build/lit.log" ]; then
    echo "test: lit failures (digest of $build/lit.log):"
    grep -E "^FAIL: |: FAIL|error: |Error: " "$build/lit.log" | cut -c1-400 |
      head -60 || true
  fi
  echo "test: FAILED" >&2
else
  echo "test: all passed"
fi
exit $status

#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer into
# build-asan/ (or $WEFT_ASAN_BUILD_DIR) and runs the whole suite there: the
# lit suite (weft-opt, weft-interp, weftc, the mutation fuzzer, and the
# programs weftc compiles, which weftc builds with the same flags) and the
# runtime's ctest suite. Run it before each submission; not part of CI
# (it takes several times the normal suite).
#
#   scripts/sanitize.sh [extra cmake --build args]
#
# Notes (docs/testing.md):
# - ASAN_OPTIONS=allow_user_poisoning=0: MLIR's parser poisons memory in a
#   way an instrumented client misreads against Debian's uninstrumented
#   libMLIR.so (a false use-after-poison).
# - detect_leaks=0: Open MPI and libMLIR's global state are reported as
#   leaks at exit; leaks are not what this run looks for.
# - The CUDA backend is left out (nvcc does not take these flags; no GPU here).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WEFT_ASAN_BUILD_DIR:-$root/build-asan}"
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

"$root/scripts/setup.sh"
# build.ninja: a configure that failed leaves a cache but no build file.
if [ ! -f "$build/build.ninja" ]; then
  echo "sanitize: configuring $build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DWEFT_RUNTIME_CUDA=OFF >/dev/null
fi
start=$(date +%s)
cmake --build "$build" "$@"
echo "sanitize: built in $(( $(date +%s) - start )) s"

export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
start=$(date +%s)
cmake --build "$build" --target check-weft || status=1
ctest --test-dir "$build" --output-on-failure || status=1
echo "sanitize: suite took $(( $(date +%s) - start )) s"
if [ $status -ne 0 ]; then
  echo "sanitize: FAILED" >&2
  exit 1
fi
echo "sanitize: all passed (ASan + UBSan)"

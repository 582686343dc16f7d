#!/usr/bin/env bash
# Formats the project's C++ and CUDA sources with clang-format 22 (LLVM
# style, .clang-format), or with --check lists the files that differ and
# exits 1. The test suite runs --check (test/Format/clang-format.test), so
# run this before committing:
#
#   scripts/format.sh           # format every tracked source in place
#   scripts/format.sh --check   # what CI checks
#   scripts/format.sh FILE...   # format just these
#
# clang-format's output changes between major versions; scripts/setup.sh
# installs clang-format-22, the version of the LLVM we build against.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cf="${CLANG_FORMAT:-clang-format-22}"
if ! command -v "$cf" >/dev/null; then
  echo "format.sh: $cf not found (scripts/setup.sh installs clang-format-22)" >&2
  exit 2
fi
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
cd "$root"
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.inc' '*.cu' '*.cuh')
fi
if [ "$check" = 1 ]; then
  bad=()
  for f in "${files[@]}"; do
    if ! "$cf" --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format.sh: ${#bad[@]} of ${#files[@]} files are not clang-formatted (run scripts/format.sh):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format.sh: ${#files[@]} files clang-formatted"
else
  "$cf" -i "${files[@]}"
fi

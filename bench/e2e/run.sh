#!/usr/bin/env bash
# One command for the end-to-end benchmark (issue 6): builds weftc and the
# runtime harness, compiles P1, P6, P9 (b=4 and b=16; unsharded and model=2),
# and prints the 1-rank vs direct-sgemm and 2-rank vs 1-rank tables.
# Options are passed to run.py (--rounds, --iters, --warmup, --programs, ...).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec python3 "$here/run.py" "$@"

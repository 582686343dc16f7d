#!/usr/bin/env bash
# The long kill-and-resume loop of issue 28 (the test command runs 20 kills:
# test/training/kill-resume.test). Builds T1 and its data, then kills the
# training job KILLS times at random points and checks every resume against
# an uninterrupted run (test/training/kill_resume.py).
#   scripts/kill-resume.sh [KILLS=200] [SEED=1]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WEFT_BUILD_DIR:-$root/build}"
kills="${1:-200}" seed="${2:-1}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work="$(mktemp -d -t weft-kill-resume.XXXXXX)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/examples/training/t1_data.py" --out "$work/data" >/dev/null
"$build/bin/weftc" "$root/examples/training/t1_sae.mlir" --train=adamw --lr 1e-3 -o "$work/t1"
d="$work/data"
/usr/bin/python3 "$root/test/training/kill_resume.py" --exe "$work/t1" --np 4 \
  --steps 8 --kills "$kills" --seed "$seed" --seconds 36000 --work "$work/run" -- \
  --input x="$d/x.npy" --input W_enc="$d/W_enc.npy" --input b_enc="$d/b_enc.npy" \
  --input W_dec="$d/W_dec.npy" --input b_dec="$d/b_dec.npy"

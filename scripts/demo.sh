#!/usr/bin/env bash
# Sets up, builds, then compiles examples/canonical/p1.mlir (the Megatron MLP)
# with weftc, runs it on 4 CPU ranks with random inputs and --profile, runs
# the one-device (--unsharded) build on the same inputs, and compares the two
# outputs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WEFT_BUILD_DIR:-$root/build}"
example="${1:-$root/examples/canonical/p1.mlir}"
ranks="${2:-4}"

"$root/scripts/build.sh" --target weftc weft-opt weft_rt_main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
mpirun=(mpirun --oversubscribe --mca pml ob1 --bind-to none)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
name="$(basename "$example" .mlir)"

echo "== $example"
echo "== the per-rank program and its communication (weftc --emit=local --comm-report)"
"$build/bin/weftc" "$example" --emit=local --comm-report -o "$work/$name.local.mlir"
echo "== compiling (weftc -v)"
"$build/bin/weftc" -v "$example" -o "$work/$name"
"$build/bin/weftc" "$example" --unsharded -o "$work/$name.ref"

echo "== running on $ranks ranks: mpirun -np $ranks $name --random-inputs 1 --profile"
"${mpirun[@]}" -np "$ranks" "$work/$name" --random-inputs 1 --output-dir "$work/sharded" \
  --iters 5 --warmup 1 --profile
echo "== running the unsharded build on 1 rank"
"${mpirun[@]}" -np 1 "$work/$name.ref" --random-inputs 1 --output-dir "$work/ref"

echo "== check: sharded vs unsharded outputs"
# Debian's python3-numpy is for /usr/bin/python3; a python3 earlier in PATH
# (pyenv, venv) may lack numpy.
py=python3
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c "import numpy" 2>/dev/null; then py="$candidate"; break; fi
done
"$py" - "$work/sharded" "$work/ref" <<'PY'
import glob, os, sys
import numpy as np
sharded, ref = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(ref, "*.npy")))
if not files:
    sys.exit("no outputs were written")
worst = 0.0
for f in files:
    a = np.load(os.path.join(sharded, os.path.basename(f)))
    b = np.load(f)
    err = float(np.max(np.abs(a.astype(np.float64) - b))) / max(1e-30, float(np.max(np.abs(b))))
    worst = max(worst, err)
    print(f"  {os.path.basename(f)}: shape {a.shape}, max |sharded - unsharded| / max |unsharded| = {err:.2e}")
if worst > 1e-5:
    sys.exit(f"MISMATCH: relative error {worst:.2e} > 1e-5")
print("  match (within 1e-5)")
PY

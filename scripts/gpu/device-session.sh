#!/usr/bin/env bash
# The GPU checks of one device-tool session, as one command on the GPU
# machine (docs/performance.md, "The CUDA backend on a GPU"):
#   1. installs the runtime's packages (scripts/gpu/install-deps.sh);
#   2. scripts/run-gpu-tests.sh with the bundle: the backend, collective
#      and harness tests, then every bundled example and training program
#      on cuda against numpy and the cpu backend, training programs also
#      with --cuda-graph against op by op (bit for bit);
#   3. with JAX=1 (the default), bench/gpu/jax_train.py: T2 and the Llama
#      example against JAX on the same GPU, f32 and bf16-mixed.
# Prepare here (needs MLIR):
#   python3 scripts/gpu/bundle.py --bin build/bin --out .gpu/bundle
#   bash scripts/gpu/fetch-deps.sh .gpu/debs
# then carry .gpu. Logs go to $OUT (the device tool's) or /tmp/weft-gpu.
#   STAGE=tests|jax|all (default all), BUNDLE, ITERS, JAX_STEPS, JAX_ROUNDS
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/weft-gpu}"
mkdir -p "$out"
cd "$root"
stage="${STAGE:-all}"
. scripts/gpu/install-deps.sh .gpu/debs
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
status=0
if [ "$stage" != jax ]; then
  BUNDLE="${BUNDLE:-.gpu/bundle}" CUDA_ARCH=90 NP_LIST=1 ITERS="${ITERS:-20}" \
    scripts/run-gpu-tests.sh build-rt-cuda 2>&1 | tee "$out/gpu-tests.log"
  status=${PIPESTATUS[0]}
fi
if [ "$stage" != tests ]; then
  PYTHONUNBUFFERED=1 python3 bench/gpu/jax_train.py \
    --programs build-rt-cuda/programs --steps "${JAX_STEPS:-100}" \
    --rounds "${JAX_ROUNDS:-3}" 2>&1 | tee "$out/jax.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
exit $status

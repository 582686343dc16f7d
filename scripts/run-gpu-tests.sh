#!/usr/bin/env bash
# Builds the runtime with the CUDA backend and runs the backend unit tests
# and the collective tests against it. Needs nvcc, cuBLAS, NCCL, MPI and at
# least one GPU; the collective tests want one GPU per rank (ranks share GPUs
# round-robin otherwise, which NCCL rejects for ranks of one communicator).
#
#   scripts/run-gpu-tests.sh [build-dir]        (default: build-rt-cuda)
#   CUDA_ARCH=90 NP_LIST="1 2 4 8" scripts/run-gpu-tests.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build-rt-cuda}"
arch="${CUDA_ARCH:-native}"

cmake -S "$root/runtime" -B "$build" -G Ninja -DWEFT_RUNTIME_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$arch"
ninja -C "$build" weft-rt-backend-tests weft-rt-mpi-tests

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus="$(nvidia-smi --list-gpus 2>/dev/null | wc -l)"
fi
if [ "$gpus" -eq 0 ]; then
  echo "run-gpu-tests: no GPU found (nvidia-smi lists none); the CUDA backend"
  echo "was built and linked, nothing to run. SKIPPED."
  exit 0
fi

export WEFT_TEST_BACKEND=cuda
echo "== backend unit tests on cuda ($gpus GPUs) =="
"$build/tests/weft-rt-backend-tests"

mpirun_flags=(--oversubscribe)
if [ "$(id -u)" -eq 0 ]; then mpirun_flags+=(--allow-run-as-root); fi
for np in ${NP_LIST:-1 2 4 8}; do
  if [ "$np" -gt "$gpus" ]; then
    echo "== collectives on $np ranks: SKIPPED (only $gpus GPUs) =="
    continue
  fi
  echo "== collectives on $np ranks (cuda, NCCL) =="
  timeout 300 mpirun "${mpirun_flags[@]}" -np "$np" -x WEFT_TEST_BACKEND \
    "$build/tests/weft-rt-mpi-tests"
done
echo "run-gpu-tests: all passed"

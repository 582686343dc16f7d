#!/usr/bin/env bash
# Builds the runtime with the CUDA backend and runs, on the GPUs of this
# machine: the backend unit tests, the collective tests, and (when a bundle
# made by scripts/gpu/bundle.py is given) every example end to end on one
# GPU against numpy's reference and against the CPU backend. Needs nvcc,
# cuBLAS, NCCL, MPI, GoogleTest and at least one GPU; no MLIR (the examples
# arrive as generated C++). The collective tests want one GPU per rank: NCCL
# rejects two ranks of one communicator on one device, so rank counts above
# the GPU count are skipped.
#
#   scripts/run-gpu-tests.sh [build-dir]            (default: build-rt-cuda)
#   CUDA_ARCH=90 NP_LIST="1 2 4 8" BUNDLE=.gpu/bundle scripts/run-gpu-tests.sh
#
# On a machine without packages (the device tool's GPU machines), first
#   . scripts/gpu/install-deps.sh      (packages from scripts/gpu/fetch-deps.sh)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build-rt-cuda}"
arch="${CUDA_ARCH:-native}"
bundle="${BUNDLE:-}"
[ -z "$bundle" ] || bundle="$(cd "$bundle" && pwd)"

cmake_args=(-DWEFT_RUNTIME_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch"
  -DWEFT_RUNTIME_BENCH=OFF)
targets=(weft-rt-backend-tests weft-rt-mpi-tests weft-rt-harness-tests)
if [ -n "$bundle" ]; then
  cmake_args+=(-DWEFT_RUNTIME_PROGRAMS_DIR="$bundle/programs")
  for f in "$bundle"/programs/*.cpp; do
    targets+=("prog-$(basename "$f" .cpp)")
  done
fi
start=$(date +%s)
cmake -S "$root/runtime" -B "$build" -G Ninja "${cmake_args[@]}"
ninja -C "$build" "${targets[@]}"
echo "run-gpu-tests: built in $(( $(date +%s) - start )) s"

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus="$(nvidia-smi --list-gpus 2>/dev/null | wc -l)"
fi
if [ "$gpus" -eq 0 ]; then
  echo "run-gpu-tests: no GPU found (nvidia-smi lists none); the CUDA backend"
  echo "was built and linked, nothing to run. SKIPPED."
  exit 0
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

status=0
export WEFT_TEST_BACKEND=cuda WEFT_TEST_REQUIRE_BACKEND=1
echo "== backend unit tests on cuda ($gpus GPUs) =="
"$build/tests/weft-rt-backend-tests" || status=1

mpirun_flags=(--oversubscribe)
if [ "$(id -u)" -eq 0 ]; then mpirun_flags+=(--allow-run-as-root); fi
for np in ${NP_LIST:-1 2 4 8}; do
  if [ "$np" -gt "$gpus" ]; then
    echo "== collectives on $np ranks: SKIPPED (only $gpus GPUs) =="
    continue
  fi
  echo "== collectives on $np ranks (cuda, NCCL) =="
  timeout 300 mpirun "${mpirun_flags[@]}" -np "$np" -x WEFT_TEST_BACKEND -x WEFT_TEST_REQUIRE_BACKEND \
    "$build/tests/weft-rt-mpi-tests" || status=1
  # The harness on padded (uneven) tensors: clipped reads, weft.pad_fill,
  # cropped outputs and checkpoints.
  echo "== harness on padded tensors on $np ranks (cuda) =="
  timeout 300 mpirun "${mpirun_flags[@]}" -np "$np" -x WEFT_TEST_BACKEND -x WEFT_TEST_REQUIRE_BACKEND \
    "$build/tests/weft-rt-harness-tests" || status=1
done
unset WEFT_TEST_BACKEND WEFT_TEST_REQUIRE_BACKEND

if [ -n "$bundle" ]; then
  echo "== examples end to end on one GPU (cuda vs numpy, cuda vs cpu) =="
  python3 "$root/scripts/gpu/check.py" --bundle "$bundle" \
    --programs "$build/programs" --iters "${ITERS:-20}" || status=1
fi
if [ $status -ne 0 ]; then
  echo "run-gpu-tests: FAILED"
  exit 1
fi
echo "run-gpu-tests: all passed"

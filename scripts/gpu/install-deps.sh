#!/usr/bin/env bash
# On the GPU machine: unpacks the packages of scripts/gpu/fetch-deps.sh and
# copies their files into / without replacing any file already there (the
# image's own libraries win), then points NCCL_HOME at an NCCL when the CUDA
# toolkit has none (pip's nvidia-nccl). Prints what it found. Source it:
#   . scripts/gpu/install-deps.sh [.gpu/debs]
dir="${1:-.gpu/debs}"
if ! command -v mpirun >/dev/null 2>&1 && [ -d "$dir" ]; then
  stage=/tmp/weft-deps
  rm -rf "$stage" && mkdir -p "$stage"
  for f in "$dir"/*.deb; do dpkg -x "$f" "$stage"; done
  cp -rn "$stage"/. / 2>/dev/null || true
  # Debian's alternatives are symlinks dpkg would have made.
  [ -e /usr/bin/mpirun ] || ln -s orterun /usr/bin/mpirun
  [ -e /usr/bin/mpicc ] || ln -s opal_wrapper /usr/bin/mpicc
  [ -e /usr/lib/x86_64-linux-gnu/libblas.so.3 ] ||
    ln -s openblas-pthread/libblas.so.3 /usr/lib/x86_64-linux-gnu/libblas.so.3
  ldconfig
fi
if [ ! -f /usr/local/cuda/include/nccl.h ] && [ -z "${NCCL_HOME:-}" ]; then
  nccl_py=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null || true)
  if [ -n "$nccl_py" ] && [ -f "$nccl_py/include/nccl.h" ]; then
    [ -e "$nccl_py/lib/libnccl.so" ] || ln -s libnccl.so.2 "$nccl_py/lib/libnccl.so"
    export NCCL_HOME="$nccl_py"
    export LD_LIBRARY_PATH="$nccl_py/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
fi
echo "install-deps: mpirun=$(command -v mpirun || echo none) NCCL_HOME=${NCCL_HOME:-(cuda toolkit)} nvcc=$(command -v nvcc || echo none)"

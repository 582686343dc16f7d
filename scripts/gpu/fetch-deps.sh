#!/usr/bin/env bash
# For a GPU machine that cannot reach a package registry: downloads, here,
# the Debian 12 packages the runtime needs that a CUDA image lacks (Open MPI,
# OpenBLAS, GoogleTest) into DIR (default .gpu/debs). scripts/gpu/install-deps.sh
# unpacks them there. Needs apt-get (run `apt-get update` once first).
set -euo pipefail
dir="${1:-.gpu/debs}"
mkdir -p "$dir"
cd "$dir"
apt-get download \
  openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev \
  libhwloc15 libevent-2.1-7 libevent-core-2.1-7 libevent-pthreads-2.1-7 \
  libpmix2 libmunge2 \
  libopenblas0 libopenblas0-pthread libopenblas-dev libopenblas-pthread-dev \
  libgtest-dev googletest >/dev/null
ls

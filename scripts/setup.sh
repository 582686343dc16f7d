#!/usr/bin/env bash
# Installs what weft needs from Debian 12's packages. Idempotent: quiet when
# everything is already there. Uses sudo when not run as root.
set -euo pipefail

pkgs=(
  cmake ninja-build g++ git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools   # MLIR 22, lit, FileCheck
  libopenblas-dev openmpi-bin libopenmpi-dev                # CPU backend
  libdnnl-dev                                               # CPU backend: f32 GEMMs (oneDNN)
  ocl-icd-opencl-dev                                        # Debian's dnnl-config.cmake requires OpenCL
  libgtest-dev                                              # runtime unit tests
  python3 python3-numpy                                     # numpy reference in tests
  python3-pytest                                            # python/tests (the Python front end)
  clang-format-22                                           # scripts/format.sh --check (a test)
)

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# libmlir-19 conflicts with libmlir-22.
if installed libmlir-19-dev || installed libmlir-19; then
  echo "setup: libmlir-19 is installed and conflicts with libmlir-22; remove it first" >&2
  exit 1
fi

missing=()
for p in "${pkgs[@]}"; do
  installed "$p" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
  --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"

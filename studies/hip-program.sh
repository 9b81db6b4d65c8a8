#!/usr/bin/env bash
# Compiles one standalone HIP file of a study into a program for the GPU present: with nvcc through HIP's
# NVIDIA platform (the architecture of the GPU present; HIP's headers from .deps/ where carried), else with
# hipcc. What the studies that run a program of their own share (launch-limits/, separate-process/,
# compare-speed/, context-start/); arguments after OUTPUT go to the compiler.
#   studies/hip-program.sh SOURCE OUTPUT [compiler arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source_file=$1 output=$2
shift 2
if command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  includes=()
  [ -d "$root/.deps/usr/include" ] && includes+=(-isystem "$root/.deps/usr/include")
  "$nvcc" -x cu -std=c++17 -O3 -arch=native -D__HIP_PLATFORM_NVIDIA__ -include "$root/include/kbench/contract/cuda_compat.hpp" \
    --expt-relaxed-constexpr "${includes[@]}" "$@" "$source_file" -o "$output"
else
  hipcc -std=c++17 -O3 "$@" "$source_file" -o "$output"
fi

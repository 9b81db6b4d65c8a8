#!/usr/bin/env bash
# The launch-limits probe (probe.hip): what the runtime of the GPU present does with a launch over each
# device limit, directly and under stream capture. Built with nvcc through HIP's NVIDIA platform (or hipcc
# on AMD); needs a GPU.
#   studies/launch-limits/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  includes=()
  [ -d "$root/.deps/usr/include" ] && includes+=(-isystem "$root/.deps/usr/include")
  "$nvcc" -x cu -std=c++17 -O2 -arch=native -D__HIP_PLATFORM_NVIDIA__ -include "$root/include/kbench/contract/cuda_compat.hpp" \
    "${includes[@]}" "$root/studies/launch-limits/probe.hip" -o "$work/probe"
else
  hipcc -std=c++17 -O2 "$root/studies/launch-limits/probe.hip" -o "$work/probe"
fi
"$work/probe"

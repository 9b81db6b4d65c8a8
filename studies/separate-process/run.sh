#!/usr/bin/env bash
# The separate-process sketch (sketch.hip): a kernel of about 5 us and one of about 500 us on the H200 (a
# scale of 2.5 M and 250 M floats), each launched 200 times in the verdict's process and 200 times by a
# candidate process of its own on the same buffers, shared through IPC handles. Built with nvcc through HIP's
# NVIDIA platform (or hipcc on AMD); needs a GPU.
#   studies/separate-process/run.sh [launches]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/studies/separate-process"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launches=${1:-200}
if command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  includes=()
  [ -d "$root/.deps/usr/include" ] && includes+=(-isystem "$root/.deps/usr/include")
  "$nvcc" -x cu -std=c++17 -O3 -arch=native -D__HIP_PLATFORM_NVIDIA__ -include "$root/include/kbench/contract/cuda_compat.hpp" \
    "${includes[@]}" "$here/sketch.hip" -o "$work/sketch"
else
  hipcc -std=c++17 -O3 "$here/sketch.hip" -o "$work/sketch"
fi
for floats in 2500000 250000000; do
  "$work/sketch" "$floats" "$launches"
done

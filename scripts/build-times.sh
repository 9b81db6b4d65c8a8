#!/usr/bin/env bash
# Build-time benchmark (not a test): how long a project waits for kbench on this machine.
#   - kbench's own library for a project (the kbench_main target), a first build, with -j JOBS (2);
#   - one few-line kernel test file (tests/rmsnorm_test.hip) compiled alone, once kbench_main is built,
#     for AMD with GPU_TARGETS=gfx906;gfx90a and with gfx90a alone, and for NVIDIA sm_90.
#   - a file holding only `#include <kbench/compare.hpp>`, syntax only (hipcc -fsyntax-only).
#   scripts/build-times.sh [source tree (default: this one)] [out file]
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
out=${2:-/dev/stdout}
jobs=${JOBS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ! -e /dev/kfd ] && [ -z "${ROCM_TARGET_LST:-}" ]; then
  export ROCM_TARGET_LST="$work/targets.lst"
  printf 'gfx906\ngfx90a\n' > "$ROCM_TARGET_LST"
fi
seconds() { local t0; t0=$(date +%s.%N); "$@" > "$work/last.log" 2>&1 || { cat "$work/last.log"; exit 1; }
            echo "$(date +%s.%N) - $t0" | bc | xargs printf '%.1f'; }
object_of() { ninja -C "$1" -t targets all | sed -n "s|^\([^:]*$2\.o\): .*|\1|p" | head -1; }
report() { printf '%-62s %6s s\n' "$1" "$2" | tee -a "$work/report"; }
echo "kbench build times, $(nproc) cores, -j $jobs, $(git -C "$src" rev-parse --short HEAD 2>/dev/null)" | tee -a "$work/report"

configure() {  # configure <dir> <cmake args...>
  local dir=$1; shift
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
}

CXX=hipcc configure "$work/amd" -DKBENCH_GPU_PLATFORM=amd "-DGPU_TARGETS=gfx906;gfx90a"
report "AMD gfx906;gfx90a: kbench_main, first build" "$(seconds cmake --build "$work/amd" --target kbench_main -j "$jobs")"
obj=$(object_of "$work/amd" rmsnorm_test.hip)
report "AMD gfx906;gfx90a: tests/rmsnorm_test.hip" "$(seconds ninja -C "$work/amd" "$obj")"
CXX=hipcc configure "$work/amd" -DKBENCH_GPU_PLATFORM=amd "-DGPU_TARGETS=gfx90a"
cmake --build "$work/amd" --target kbench_main -j "$jobs" > /dev/null
report "AMD gfx90a alone: tests/rmsnorm_test.hip" "$(seconds ninja -C "$work/amd" "$obj")"
echo '#include <kbench/compare.hpp>' > "$work/contract.hip"
report "AMD: hipcc -fsyntax-only of #include <kbench/compare.hpp>" \
  "$(seconds hipcc -std=c++17 -x hip --offload-arch=gfx90a -fsyntax-only -I "$src/include" "$work/contract.hip")"

if command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  configure "$work/nvidia" -DKBENCH_GPU_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
  report "NVIDIA sm_90: kbench_main, first build" "$(seconds cmake --build "$work/nvidia" --target kbench_main -j "$jobs")"
  obj=$(object_of "$work/nvidia" rmsnorm_test.hip)
  report "NVIDIA sm_90: tests/rmsnorm_test.hip" "$(seconds ninja -C "$work/nvidia" "$obj")"
fi
[ "$out" = /dev/stdout ] || cp "$work/report" "$out"

#!/usr/bin/env bash
# Build-time benchmark (not a test): how long a project waits for kbench on this machine, against a
# yardstick measured on the same machine, so that figures from machines of different speeds compare as
# ratios. Each figure but the edit's is a first build (a fresh build folder), with -j JOBS (2):
#   yardstick    one fixed kernel file (written here, kbench-free) compiled with hipcc for gfx90a, and
#                with nvcc for sm_90: what this machine's compilers take for a GPU translation unit
#   the library  everything a kernel test program links: kbench_procedure (the procedure, GPU code) and
#                kbench_main (main, the adapters, the reports; host code); budget 60 s with -j 2
#   a test file  tests/kernels/rmsnorm_test.hip compiled alone, once the library is built, for AMD
#                gfx906;gfx90a, gfx90a alone, and NVIDIA sm_90; budget 5 s per GPU architecture
#   an edit      edit to rebuilt test program: a kernel file touched (as an editor's save would), then its
#                test program rebuilt with everything else built, for AMD gfx906;gfx90a and NVIDIA sm_90:
#                kernels/rmsnorm/rmsnorm_v2.hip, a source of its own (it alone compiled again, the program
#                linked), and kernels/softmax/softmax_v2.hip, included into its test file (the test file
#                compiled again with kbench's contract)
#   the contract a file holding only `#include <kbench/compare.hpp>`, syntax only (hipcc -fsyntax-only)
# A single file's time moves by a third from one minute to the next on a shared 2-core machine: the
# yardsticks, the test files and the rebuilds are each the median of three. The edit touches the kernel
# file of the source tree measured (its time stamp only), so that tree's own builds rebuild it once too.
#   studies/build-times.sh [source tree (default: this one)] [out file]
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
nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
# No compiler cache: every figure is a first build.
export CCACHE_DISABLE=1

# Arithmetic in awk, which every machine has (bc is missing from some: every figure read 0.0 there).
seconds() { local t0; t0=$(date +%s.%N); "$@" > "$work/last.log" 2>&1 || { cat "$work/last.log" >&2; exit 1; }
            awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
# The median of three compiles of one object in build folder <dir> (removed before each, so rebuilt alone).
object_seconds() { local runs=() i; for i in 1 2 3; do rm -f "$1/$2"; runs+=("$(seconds ninja -C "$1" "$2")"); done; median3 "${runs[@]}"; }
# The object of source file <name> in build folder <dir>: that file's, not one whose name ends in it
# (add_rmsnorm_test.hip is not rmsnorm_test.hip).
object_of() { ninja -C "$1" -t targets all | sed -n "s|^\([^:]*/$2\.o\): .*|\1|p" | head -1; }
# The median of three rebuilds of test program <family>_test in build folder <dir>, each after kernel file
# kernels/<family>/<family>_v2.hip was touched, once the program is built.
#   edit_seconds <dir> <family>
edit_seconds() {
  local runs=() i
  seconds ninja -C "$1" "$2_test" > /dev/null
  for i in 1 2 3; do
    touch "$src/kernels/$2/$2_v2.hip"
    runs+=("$(seconds ninja -C "$1" "$2_test")")
  done
  median3 "${runs[@]}"
}
# report <what> <seconds> [yardstick seconds] [budget seconds]
report() {
  local ratio="" budget=""
  [ -z "${3:-}" ] || ratio=$(awk -v s="$2" -v y="$3" 'BEGIN { printf "%5.1f x yardstick", s / y }')
  [ -z "${4:-}" ] || budget=$(awk -v s="$2" -v b="$4" 'BEGIN {printf "budget %g s: %s", b, (s <= b ? "met" : "MISSED")}')
  printf '%-58s %6s s  %-19s %s\n' "$1" "$2" "$ratio" "$budget" | tee -a "$work/report"
}
echo "kbench build times, $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), -j $jobs," \
  "$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")" | tee -a "$work/report"

configure() {  # configure <dir> <cmake args...>
  local dir=$1; shift
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
}

# The yardstick: a vectorized scale kernel and its launcher, no kbench.
cat > "$work/yardstick.hip" <<'EOF'
#include <hip/hip_runtime.h>
template <int Width>
__global__ void scale(const float* __restrict__ x, float* __restrict__ y, float a, long n) {
  const long i = (static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x) * Width;
#pragma unroll
  for (int k = 0; k < Width; ++k) {
    if (i + k < n) y[i + k] = a * x[i + k];
  }
}
void launch(const float* x, float* y, float a, long n, hipStream_t s) {
  if (n % 4 == 0) {
    hipLaunchKernelGGL(scale<4>, dim3((n / 4 + 255) / 256), dim3(256), 0, s, x, y, a, n);
  } else {
    hipLaunchKernelGGL(scale<1>, dim3((n + 255) / 256), dim3(256), 0, s, x, y, a, n);
  }
}
EOF
# AMD where hipcc is (a GPU machine of NVIDIA's has none): its yardstick, here, its builds below.
amd=$(command -v hipcc || true)
if [ -n "$amd" ]; then
  amd_yardstick_once() { seconds hipcc -std=c++17 -O3 -x hip --offload-arch=gfx90a -c "$work/yardstick.hip" -o "$work/yardstick.o"; }
  amd_yardstick=$(median3 "$(amd_yardstick_once)" "$(amd_yardstick_once)" "$(amd_yardstick_once)")
  report "yardstick: hipcc -O3, gfx90a, one kernel file" "$amd_yardstick"
else
  echo "AMD: no hipcc on this machine, its figures left out" | tee -a "$work/report"
fi
if [ -n "$nvcc" ]; then
  # HIP's headers from the compiler's own paths (Debian's, in /usr/include), or from $HIP_INCLUDE_DIR.
  nvidia_yardstick_once() {
    seconds "$nvcc" -std=c++17 -O3 -arch=sm_90 -x cu -D__HIP_PLATFORM_NVIDIA__ \
      -include "$src/include/kbench/contract/cuda_compat.hpp" ${HIP_INCLUDE_DIR:+-isystem "$HIP_INCLUDE_DIR"} \
      -c "$work/yardstick.hip" -o "$work/yardstick-nv.o"
  }
  nvidia_yardstick=$(median3 "$(nvidia_yardstick_once)" "$(nvidia_yardstick_once)" "$(nvidia_yardstick_once)")
  report "yardstick: nvcc -O3, sm_90, one kernel file" "$nvidia_yardstick"
fi

if [ -n "$amd" ]; then
  CXX=hipcc configure "$work/amd" -DKBENCH_GPU_PLATFORM=amd "-DGPU_TARGETS=gfx906;gfx90a"
  report "AMD gfx906;gfx90a: the library (kbench_procedure, kbench_main)" \
    "$(seconds cmake --build "$work/amd" --target kbench_procedure kbench_main -j "$jobs")" "$amd_yardstick" 60
  obj=$(object_of "$work/amd" rmsnorm_test.hip)
  report "AMD gfx906;gfx90a: tests/kernels/rmsnorm_test.hip (2 targets)" "$(object_seconds "$work/amd" "$obj")" "$amd_yardstick" 10
  report "AMD gfx906;gfx90a: edit to rebuilt program, kernel a source" "$(edit_seconds "$work/amd" rmsnorm)" "$amd_yardstick"
  report "AMD gfx906;gfx90a: edit to rebuilt program, kernel included" "$(edit_seconds "$work/amd" softmax)" "$amd_yardstick"
  rm -rf "$work/amd"
  CXX=hipcc configure "$work/amd" -DKBENCH_GPU_PLATFORM=amd "-DGPU_TARGETS=gfx90a"
  report "AMD gfx90a alone: the library" \
    "$(seconds cmake --build "$work/amd" --target kbench_procedure kbench_main -j "$jobs")" "$amd_yardstick" 60
  report "AMD gfx90a alone: tests/kernels/rmsnorm_test.hip" "$(object_seconds "$work/amd" "$obj")" "$amd_yardstick" 5
  echo '#include <kbench/compare.hpp>' > "$work/contract.hip"
  report "AMD: hipcc -fsyntax-only of #include <kbench/compare.hpp>" \
    "$(seconds hipcc -std=c++17 -x hip --offload-arch=gfx90a -fsyntax-only -I "$src/include" "$work/contract.hip")"
fi
if [ -n "$nvcc" ]; then
  configure "$work/nvidia" -DKBENCH_GPU_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$nvcc"
  report "NVIDIA sm_90: the library (kbench_procedure, kbench_main)" \
    "$(seconds cmake --build "$work/nvidia" --target kbench_procedure kbench_main -j "$jobs")" "$nvidia_yardstick" 60
  obj=$(object_of "$work/nvidia" rmsnorm_test.hip)
  report "NVIDIA sm_90: tests/kernels/rmsnorm_test.hip" "$(object_seconds "$work/nvidia" "$obj")" "$nvidia_yardstick" 5
  report "NVIDIA sm_90: edit to rebuilt program, kernel a source" "$(edit_seconds "$work/nvidia" rmsnorm)" \
    "$nvidia_yardstick" 3
  report "NVIDIA sm_90: edit to rebuilt program, kernel included" "$(edit_seconds "$work/nvidia" softmax)" "$nvidia_yardstick"
fi
[ "$out" = /dev/stdout ] || cp "$work/report" "$out"

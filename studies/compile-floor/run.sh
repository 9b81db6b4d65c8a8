#!/usr/bin/env bash
# The floor under a test file's compile through nvcc (HIP's NVIDIA platform), three compiles each, with the
# flags kbench's build gives (sm_90, --threads 0): a kernel file of HIP alone; rmsnorm_test.hip's case with
# its two kernels against the lightest contract a test file could see (declarations only); and
# tests/kernels/rmsnorm_test.hip as shipped. What a test file's edit-to-rebuild can reach on this machine,
# whatever kbench's contract weighs. Needs nvcc and HIP's headers; no GPU.
#   studies/compile-floor/run.sh [extra nvcc flags]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/studies/compile-floor"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
includes=("-I$root/include" "-I$root/kernels" "-I$here")
[ -d "$root/.deps/usr/include" ] && includes+=(-isystem "$root/.deps/usr/include")
flags=(-x cu -std=c++17 -O3 "--generate-code=arch=compute_90,code=[compute_90,sm_90]" -D__HIP_PLATFORM_NVIDIA__
       -include "$root/include/kbench/contract/cuda_compat.hpp" --expt-relaxed-constexpr --threads=0 "$@")
printf '#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\nvoid launch(float* x, hipStream_t s) { hipLaunchKernelGGL(k, dim3(1), dim3(32), 0, s, x); }\n' > "$work/hip_alone.hip"
echo "nvcc compile floor, $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), milliseconds of three compiles each:"
for file in "$work/hip_alone.hip" "$here/rmsnorm_lightest.hip" "$root/tests/kernels/rmsnorm_test.hip"; do
  times=()
  for _ in 1 2 3; do
    start=$(date +%s%N)
    "$nvcc" "${flags[@]}" "${includes[@]}" -c "$file" -o "$work/out.o"
    times+=("$(( ($(date +%s%N) - start) / 1000000 ))")
  done
  printf '  %-40s %s ms\n' "$(basename "$file")" "${times[*]}"
done

#!/usr/bin/env bash
# The tests: everything that can be checked on this machine, GPU or not.
#   1. host-side unit tests (tolerance engine, statistics, reports, options, JSON) and header checks, g++;
#      the same under ASan and UBSan; the libFuzzer targets for a bounded time (clang)
#   2. the AMD build (hipcc, GPU_TARGETS gfx906;gfx90a): every kernel, test and example, then ctest
#   3. the NVIDIA build (nvcc, sm_90) when nvcc is present: the same
#   4. an out-of-tree consumer through find_package, add_subdirectory and a plain copy, for AMD and (with
#      nvcc) NVIDIA
#   5. newer ROCm: the AMD build against HIP 7.2 (Debian sid + experimental, in a chroot) for gfx942 and
#      gfx950, then ctest (scripts/newer-rocm.sh); needs root and the Debian mirror, KBENCH_NEWER_ROCM=0
#      leaves it out
# Without a GPU the kernel tests report "skipped" with their reason; with one, they run.
# Each stage's time is printed at the end of every run, passed or failed, with a warning when the run
# comes within 20% of CI's limit (KBENCH_CI_LIMIT seconds, 5400). A compiler cache (ccache, in
# $KBENCH_BUILD/ccache) compiles once what several builds compile with the same compiler and flags.
set -euo pipefail
source "$(dirname "$0")/common.sh"
started=$(date +%s)
stage "dependencies"
# libFuzzer, sanitizer runtimes, plots, schema; the Python module and its tests (docs/python.md)
KBENCH_EXTRA_PACKAGES="clang-14 libclang-rt-14-dev python3-matplotlib python3-jsonschema ccache python3-dev pybind11-dev python3-pytest python3-pip python3-setuptools python3-wheel"
ensure_deps
mkdir -p "$KBENCH_BUILD"
: > "$KBENCH_BUILD/ctest-tally"
use_compiler_cache
# Stage 5's chroot is made meanwhile (debootstrap and apt: the network and the disk, little CPU).
prepare_pid=""
if [ "${KBENCH_NEWER_ROCM:-}" != 0 ]; then
  "$KBENCH_ROOT/scripts/newer-rocm.sh" --prepare > "$KBENCH_BUILD/newer-rocm-prepare.log" 2>&1 &
  prepare_pid=$!
fi
trap 'status=$?; [ -z "$prepare_pid" ] || kill "$prepare_pid" 2>/dev/null || true
      print_stage_times "$started" "$status" "${KBENCH_CI_LIMIT:-5400}" "CI'"'"'s limit"; exit $status' EXIT

stage "1/5 host-side unit tests"
# The unit tests at -O1 (two unity batches, 46 s each at -O3 with g++, 27 at -O1); their UB is the
# sanitizers' to find, below. kbench-compare and the header checks get the project's flags.
configure_and_build "$KBENCH_BUILD/host" -DKBENCH_GPU_PLATFORM=none -DKBENCH_UNIT_TEST_OPTIONS=-O1
run_ctest "$KBENCH_BUILD/host" -j "$JOBS"

stage "1/5 host-side unit tests under AddressSanitizer and UndefinedBehaviorSanitizer"
# The header checks, which only compile, were done by the build above.
# The Python module in the host and NVIDIA builds: a sanitized module would need the sanitizers preloaded into python.
configure_and_build "$KBENCH_BUILD/host-sanitize" -DKBENCH_GPU_PLATFORM=none -DCMAKE_BUILD_TYPE=Debug -DKBENCH_HEADER_CHECKS=none -DKBENCH_PYTHON=OFF \
  "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
run_ctest "$KBENCH_BUILD/host-sanitize" -j "$JOBS"

stage "1/5 fuzzing the tolerance engine, the reports and the option parser (${KBENCH_FUZZ_SECONDS:=30} s each)"
"$KBENCH_ROOT/tests/fuzz/run.sh" "$KBENCH_BUILD/fuzz" "$KBENCH_FUZZ_SECONDS"

stage "2/5 AMD build (hipcc, GPU_TARGETS=${KBENCH_AMD_TARGETS:=gfx906;gfx90a})"
# hipcc asks rocm_agent_enumerator for targets when a file names none (the host-only unit tests); without
# a GPU driver that script dies with a traceback. A target list answers it: the same targets.
if [ ! -e /dev/kfd ] && [ -z "${ROCM_TARGET_LST:-}" ]; then
  export ROCM_TARGET_LST="$KBENCH_BUILD/amd-targets.lst"
  tr ';' '\n' <<< "$KBENCH_AMD_TARGETS" > "$ROCM_TARGET_LST"
fi
# Each header is checked to compile alone once per set of libraries and platform code: the host build
# checked the host headers; the AMD build checks the GPU headers, the NVIDIA build the headers that differ
# by platform (tests/CMakeLists.txt); the chroot of stage 5, with other libraries, checks them all.
# The host-side unit tests run again, compiled by clang at -O0 (the host build's compiler was g++, at -O1;
# clang takes 12 s a unity batch at -O0, 24 at -O1, and the tests then run in 3.6 s instead of 0.9).
CXX=hipcc configure_and_build "$KBENCH_BUILD/amd" -DKBENCH_GPU_PLATFORM=amd "-DGPU_TARGETS=$KBENCH_AMD_TARGETS" \
  -DKBENCH_HEADER_CHECKS=gpu -DKBENCH_UNIT_TEST_OPTIONS=-O0 -DKBENCH_PYTHON=OFF
run_ctest "$KBENCH_BUILD/amd" -j "$JOBS"

if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  stage "3/5 NVIDIA build (nvcc, CMAKE_CUDA_ARCHITECTURES=${KBENCH_CUDA_ARCHS:=90})"
  # The host-side unit tests and programs with the host build's compiler and flags: the cache's. The Python
  # module with its GPU path (docs/python.md): its replay onto kernel_case is tested here, its runs skip.
  configure_and_build "$KBENCH_BUILD/nvidia" -DKBENCH_GPU_PLATFORM=nvidia -DKBENCH_HEADER_CHECKS=platform -DKBENCH_UNIT_TEST_OPTIONS=-O1 \
    "-DCMAKE_CUDA_ARCHITECTURES=$KBENCH_CUDA_ARCHS" -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
  run_ctest "$KBENCH_BUILD/nvidia" -j "$JOBS"
else
  say "3/5 NVIDIA build: not run (no nvcc on this machine)"
fi

stage "4/5 consumers: find_package, add_subdirectory, copy (AMD)"
# For the AMD build's targets, so that kbench's library is the compile that build made (the cache's).
KBENCH_CONSUMER_TARGETS=$KBENCH_AMD_TARGETS \
  "$KBENCH_ROOT/tests/consumer/run.sh" "$KBENCH_BUILD/consumer" "$KBENCH_BUILD/host" 2>&1 | tee "$KBENCH_BUILD/consumer.log"
tally_ctest "$KBENCH_BUILD/consumer.log" "consumer, AMD (find_package, add_subdirectory, copy)"
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  stage "4/5 consumers: find_package, add_subdirectory, copy (NVIDIA)"
  CUDACXX="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" KBENCH_CONSUMER_PLATFORM=nvidia \
    "$KBENCH_ROOT/tests/consumer/run.sh" "$KBENCH_BUILD/consumer-nvidia" "$KBENCH_BUILD/host" 2>&1 | tee "$KBENCH_BUILD/consumer-nvidia.log"
  tally_ctest "$KBENCH_BUILD/consumer-nvidia.log" "consumer, NVIDIA (find_package, add_subdirectory, copy)"
fi

# Debian 12's HIP 5.2 knows neither gfx942 (MI300) nor gfx950 (MI355): those are built with HIP 7.2.
if [ "${KBENCH_NEWER_ROCM:-}" = 0 ]; then
  say "5/5 newer ROCm: not run (KBENCH_NEWER_ROCM=0)"
else
  stage "5/5 newer ROCm: HIP 7.2 for gfx942;gfx950 in a chroot of Debian sid/experimental"
  newer_status=0
  wait "$prepare_pid" || newer_status=$?
  prepare_pid=""
  # What making the chroot said and how long it took (a failure other than 77 is tried again below).
  grep -E "^== |^  [a-z]" "$KBENCH_BUILD/newer-rocm-prepare.log" || true
  [ "$newer_status" -eq 77 ] || { newer_status=0; "$KBENCH_ROOT/scripts/newer-rocm.sh" || newer_status=$?; }
  # 77: it cannot run on this machine (not root, no debootstrap, no mirror), and said why.
  [ "$newer_status" -eq 0 ] || [ "$newer_status" -eq 77 ] || exit "$newer_status"
fi

stage_end
say "all tests passed in $(( $(date +%s) - started )) s; what ran, build by build:"
print_tally
[ "$(detect_gpu)" != none ] || echo "  (no GPU here: the skipped tests are the GPU tests, each with the reason listed above)"

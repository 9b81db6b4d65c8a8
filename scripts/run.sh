#!/usr/bin/env bash
# The main job: every shipped kernel comparison (correctness, then timing) on the GPU present, with
# kbench's reports. Without a GPU it builds for AMD and NVIDIA and says what it could not run.
#   scripts/run.sh                reports also land in build/reports/
#   scripts/run.sh --self-tests   then builds and runs kbench's own GPU self-tests too (the test command,
#                                 scripts/test.sh, runs them on a GPU machine as well)
set -euo pipefail
source "$(dirname "$0")/common.sh"
self_tests=0
case "${1:-}" in
  "") ;;
  --self-tests) self_tests=1 ;;
  *) echo "usage: scripts/run.sh [--self-tests]" >&2; exit 2 ;;
esac
started=$(date +%s)
stage "dependencies"
ensure_deps
# Each stage's time, at the end of every run; on a GPU, against the main job's budget (75 s on the H200
# from a fresh copy, build included).
gpu=$(detect_gpu)
budget=0
[ "$gpu" = none ] || budget=${KBENCH_RUN_BUDGET:-75}
trap 'status=$?; print_stage_times "$started" "$status" "$budget" "the main job'"'"'s budget"; exit $status' EXIT
reports="$KBENCH_BUILD/reports"
mkdir -p "$reports/json"
export KBENCH_JSON="$reports/json/"  # every test program writes <program>.<mode>.json there
export KBENCH_REQUIRE_GPU=1  # on a GPU machine, a GPU test that cannot run is a failure
# Each case is sampled until its medians are known to +-0.5%, here for at most 3 s (a program run alone: 10 s);
# a case stopped by the limit says how well its median is known. The main job's figures are measured so.
export KBENCH_MAX_TIME=${KBENCH_MAX_TIME:-3}

# The kernel comparisons alone are built, then checked, then timed (timing checks correctness again before
# it times anything), both always run; with --self-tests the rest is built afterwards and kbench's own
# GPU self-tests (label harness) run, so that they never hold up a comparison.
# One test per GPU at a time, over every GPU present: CTest hands each test a GPU from the resource spec
# (scripts/resource-spec.sh), and the test's JSON names it (device.ordinal, assigned_by, pci_bus_id).
run_on_gpu() {
  local dir=$1 correctness=0 perf=0 documents=0 harness=0 gpus
  "$KBENCH_ROOT/scripts/resource-spec.sh" "$reports/gpus.json"
  gpus=$(grep -c '"id"' "$reports/gpus.json")
  set -- --resource-spec-file "$reports/gpus.json" -j "$gpus"
  # Tests of cases that span more GPUs than there are (label gpusN) would wait for resources that never
  # come: left out, and said so.
  local more="" left_out="harness"
  for ((n = gpus + 1; n <= 8; ++n)); do more="$more${more:+|}$n"; done
  if [ -n "$more" ] && [ "$gpus" -lt 8 ]; then
    left_out="$left_out|gpus($more)"
    say "left out: the tests of cases that span more than $gpus GPU(s) (labels gpus$((gpus + 1)) and up)"
  fi
  # Correctness runs time nothing, so on one NVIDIA GPU several share it (KBENCH_CORRECTNESS_SLOTS,
  # default 6 there: the stage took 12 s on the H200 against 17 s at 4, and no less at 8; 1 on AMD): a
  # fault there stays in its own process's context, and the load of the others only adds to what the
  # reruns under load put on the device. Not with several GPUs, where CTest could give a case that spans
  # two of them one GPU twice.
  local slots=${KBENCH_CORRECTNESS_SLOTS:-$([ "$gpu" = nvidia ] && echo 6 || echo 1)}
  [ "$gpus" -eq 1 ] || slots=1
  "$KBENCH_ROOT/scripts/resource-spec.sh" "$reports/gpus-correctness.json" "$slots"
  stage "correctness on the $gpu GPU(s), $slots test(s) per GPU at a time"
  run_ctest "$dir" -L correctness -LE "^($left_out)\$" --verbose --resource-spec-file "$reports/gpus-correctness.json" \
    -j "$((gpus * slots))" > "$reports/correctness.log" 2>&1 || correctness=$?
  grep -E "^[0-9]+: (PASS|FAIL) |^[0-9]+: +(!|-) |Test +#|tests passed|FAILED" "$reports/correctness.log" || true
  # Timing checks each case again before it times it; where the correctness stage just passed on these same
  # programs, that check is a later seed's (--quick): the probe of the tolerance, the reruns under load, the
  # oracle, the misalignments and the edges were just made. Run alone (ctest -L perf), perf makes them all.
  local quick=0
  [ "$correctness" -ne 0 ] || quick=1
  stage "timing on the $gpu GPU(s)$([ "$quick" -eq 0 ] || echo ", first checks --quick after the correctness stage")"
  (if [ "$quick" -eq 1 ]; then export KBENCH_QUICK=1; fi
   run_ctest "$dir" -L perf -LE "^($left_out)\$" --verbose "$@") > "$reports/perf.log" 2>&1 || perf=$?
  sed -n '/kbench perf on/,/^[0-9]*: *$/p' "$reports/perf.log" | sed 's/^[0-9]*: //'
  grep -E "Test +#|tests passed|FAIL" "$reports/perf.log" || true
  stage "the results documents against their schema (schema/kbench-results-1.schema.json)"
  check_documents "$reports/json" || documents=$?
  if [ "$self_tests" -eq 1 ]; then
    stage "kbench's own GPU self-tests (mutation, trust, device comparison, multi-device): build, then run"
    if cmake --build "$dir" -j "$JOBS" > "$reports/self-tests-build.log" 2>&1; then
      run_ctest "$dir" -L harness "$@" > "$reports/self-tests.log" 2>&1 || harness=$?
      grep -E "Test +#|tests passed|FAIL" "$reports/self-tests.log" || true
    else
      tail -40 "$reports/self-tests-build.log"
      harness=1
    fi
  fi
  stage_end
  say "full reports in $reports (correctness exit $correctness, perf exit $perf, documents exit $documents," \
      "self-tests exit $harness)"
  [ "$correctness" -eq 0 ] && [ "$perf" -eq 0 ] && [ "$documents" -eq 0 ] && [ "$harness" -eq 0 ]
}

# check_documents <folder>: every results document there against the schema, with the first python3 that
# has jsonschema; without one, says so (exit 0: nothing was checked, and the line says it).
check_documents() {
  local python="" status=0
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c "import jsonschema" 2>/dev/null; then
      python=$candidate
      break
    fi
  done
  if [ -z "$python" ]; then
    echo "NOT CHECKED: no python3 here has jsonschema (Debian: python3-jsonschema)"
    return 0
  fi
  "$python" "$KBENCH_ROOT/tests/data/check_schema.py" "$KBENCH_ROOT/schema/kbench-results-1.schema.json" "$1"/*.json \
    > "$reports/schema.log" 2>&1 || status=$?
  tail -1 "$reports/schema.log"
  [ "$status" -eq 0 ] || { grep -v ": valid$" "$reports/schema.log" | head -40; return "$status"; }
}

# configure_comparisons <dir> <cmake args...>: configures, then builds only the kernel comparisons, each a
# stage of its own (on a GPU machine the configure step is a sizeable part of the build's time). The Python
# module is not one of them: its search is left out (KBENCH_PYTHON=OFF).
configure_comparisons() {
  configure "$@"
  stage "building the comparisons"
  cmake --build "$1" -j "$JOBS" --target kbench_kernel_tests
}

case "$gpu" in
  nvidia)
    stage "NVIDIA GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); configuring (HIP's NVIDIA platform)"
    configure_comparisons "$KBENCH_BUILD/nvidia-native" -DKBENCH_GPU_PLATFORM=nvidia -DKBENCH_PYTHON=OFF \
      -DCMAKE_CUDA_ARCHITECTURES="${KBENCH_CUDA_ARCHS:-$(nvidia_gpu_archs)}"
    run_on_gpu "$KBENCH_BUILD/nvidia-native"
    ;;
  amd)
    targets=$(amd_gpu_targets)
    stage "AMD GPU: $targets; configuring"
    CXX=hipcc configure_comparisons "$KBENCH_BUILD/amd-native" -DKBENCH_GPU_PLATFORM=amd -DKBENCH_PYTHON=OFF "-DGPU_TARGETS=$targets"
    run_on_gpu "$KBENCH_BUILD/amd-native"
    ;;
  none)
    unset KBENCH_REQUIRE_GPU
    stage "no GPU here: building for AMD (gfx906;gfx90a) and NVIDIA (sm_90) to show that everything compiles"
    CXX=hipcc configure_and_build "$KBENCH_BUILD/amd" -DKBENCH_GPU_PLATFORM=amd "-DGPU_TARGETS=gfx906;gfx90a"
    if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
      configure_and_build "$KBENCH_BUILD/nvidia" -DKBENCH_GPU_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
    else
      echo "no nvcc: the NVIDIA build was not attempted"
    fi
    say "NOT RUN: no GPU on this machine, so none of these kernel comparisons ran:"
    ctest --test-dir "$KBENCH_BUILD/amd" -N -L gpu | grep "Test *#" | sed 's/.*: /  /'
    echo "Run scripts/run.sh on a machine with an AMD or NVIDIA GPU to check and time them."
    ;;
esac

#!/usr/bin/env bash
# One call on the lent GPU machine (the device tool), with every log under $OUT. Needs .deps/
# (scripts/device/pack-device-deps.sh) carried along. Stages, so that a call fits its time limit:
#   scripts/device/device-session.sh main      build, then the main job (correctness and timing of every
#                                              case), then edits of a kernel file to a rebuilt program
#   scripts/device/device-session.sh extra     build, then the PyTorch comparison and the timing-accuracy
#                                              table (studies/)
#   scripts/device/device-session.sh sanitize  build, then compute-sanitizer over the kernel tests
#   scripts/device/device-session.sh harness   build, then kbench's own GPU tests (mutation and trust
#                                              suites, the verdict and fault isolation, reads outside a
#                                              buffer, the edges and nearby
#                                              shapes, device comparison and its speed, multi-device, timing
#                                              cases, examples)
#   scripts/device/device-session.sh probes    no build: the launch-limits probe and the separate-process
#                                              sketch (studies/)
#   KBENCH_SESSION_TESTS=<regex>               also run `ctest -R <regex>` (correctness, then perf) first
#   KBENCH_SESSION_SLOTS="6 8"                 main: the correctness stage again, that many tests at a time
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository's root: its paths below are relative to it
stage=${1:-main}
out=${OUT:-/tmp/kbench-out}
mkdir -p "$out"
export JOBS=16 KBENCH_BUILD=$PWD/build
source scripts/common.sh
ensure_deps > /dev/null
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv
  nvcc --version | tail -1
} 2>&1 | tee "$out/machine.txt"
build_native() {
  configure_and_build "$KBENCH_BUILD/nvidia-native" -DKBENCH_GPU_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=$(nvidia_gpu_archs) \
    > "$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
}
if [ "$stage" != main ] && [ -n "${KBENCH_SESSION_TESTS:-}" ]; then
  build_native
  mkdir -p build/reports/json && export KBENCH_JSON=$PWD/build/reports/json/ KBENCH_REQUIRE_GPU=1 KBENCH_MAX_TIME=3
  for label in correctness perf; do
    ctest --test-dir build/nvidia-native -L $label -R "$KBENCH_SESSION_TESTS" --output-on-failure > "$out/$label-subset.log" 2>&1
    grep -E "Test +#|tests passed|FAIL" "$out/$label-subset.log"
  done
  unset KBENCH_JSON KBENCH_REQUIRE_GPU KBENCH_MAX_TIME
fi
case "$stage" in
  main)
    export KBENCH_CONFIGURE_PROFILE=1  # run.sh times each case for at most 3 s, as the README runs it
    time scripts/run.sh > "$out/run.log" 2>&1
    status=$?
    tail -c 20000 "$out/run.log" | grep -v "^\[" | tail -150
    (cd build/reports && tar czf "$out/reports.tgz" .)
    # Where the stages' seconds went (each check's and timing step's, summed), and the build's units by time.
    python3 studies/check-costs.py build/reports/json --configure build/nvidia-native.configure.trace.json \
      > "$out/check-costs.md" 2>&1; cat "$out/check-costs.md"
    [ -f build/nvidia-native/.ninja_log ] && cp build/nvidia-native/.ninja_log "$out/ninja_log.txt"
    # KBENCH_SESSION_SLOTS="6 8": the correctness stage again with that many tests sharing the GPU, its wall
    # time each (the main job runs 6): whether more would shorten it.
    for slots in ${KBENCH_SESSION_SLOTS:-}; do
      scripts/resource-spec.sh "$PWD/build/reports/gpus-trial.json" "$slots" > /dev/null
      started=$SECONDS
      ctest --test-dir build/nvidia-native -L correctness -LE "^(harness|gpus[2-8])\$" -j "$slots" \
        --resource-spec-file "$PWD/build/reports/gpus-trial.json" > "$out/correctness-slots-$slots.log" 2>&1
      echo "correctness with $slots tests at a time: exit $?, $((SECONDS - started)) s" | tee -a "$out/check-costs.md"
    done
    # Edit to verdict, three edits each: the kernel file touched, its test program rebuilt (rmsnorm's kernel
    # a source of its own, softmax's included into its test file), then rmsnorm's correctness run.
    elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
    for family in rmsnorm softmax; do
      for edit in 1 2 3; do
        touch "kernels/$family/${family}_v2.hip"
        started=$EPOCHREALTIME
        ninja -C build/nvidia-native "${family}_test" > /dev/null
        echo "edit to rebuilt ${family}_test: $(elapsed "$started") s" | tee -a "$out/check-costs.md"
      done
    done
    started=$EPOCHREALTIME
    build/nvidia-native/tests/rmsnorm_test correctness > "$out/rmsnorm-correctness.log" 2>&1
    echo "rmsnorm_test correctness: exit $?, $(elapsed "$started") s" | tee -a "$out/check-costs.md"
    exit "$status"
    ;;
  extra)
    build_native
    if [[ ",${KBENCH_SESSION_SKIP:-}," != *,pytorch,* ]]; then
      PYTHONUNBUFFERED=1 python3 studies/compare-pytorch.py --build build/nvidia-native --out build/reports/pytorch > "$out/pytorch.log" 2>&1
      tail -22 "$out/pytorch.log"
    fi
    PYTHONUNBUFFERED=1 python3 studies/timing-accuracy.py --build build/nvidia-native --out build/reports/timing \
      --skip "${KBENCH_SESSION_SKIP:-}" > "$out/timing.log" 2>&1
    tail -22 "$out/timing.log"
    (cd build/reports && tar czf "$out/reports-extra.tgz" .)
    if [[ ",${KBENCH_SESSION_SKIP:-}," != *,sanitize,* ]]; then
      OUT=build/reports/sanitize scripts/device/sanitize.sh build/nvidia-native "${KBENCH_SANITIZE_ELEMENTS:-2000000}" \
        "${KBENCH_SANITIZE_ONLY:-.}" 2>&1 | tee "$out/sanitize.log" | tail -40
      (cd build/reports && tar czf "$out/reports-sanitize.tgz" sanitize)
    fi
    ;;
  harness)
    build_native
    ctest --test-dir build/nvidia-native -R "mutation|trust|verdict|isolation|bounds|exploit|edges|nearby|device_compare|multi_device|timing_test|example" \
      --output-on-failure --verbose > "$out/harness.log" 2>&1
    status=$?
    grep -E "Test +#|tests passed|tests failed|FAILED|failed|passed \(|device comparison of" "$out/harness.log" | tail -40
    exit "$status"
    ;;
  probes)
    # No build of kbench: the studies that measure the runtime itself (launches over limits, the
    # separate-process sketch), each a program of its own.
    studies/launch-limits/run.sh 2>&1 | tee "$out/launch-limits.log"
    studies/separate-process/run.sh 2>&1 | tee "$out/separate-process.log"
    ;;
  sanitize)
    build_native
    OUT=build/reports/sanitize scripts/device/sanitize.sh build/nvidia-native "${KBENCH_SANITIZE_ELEMENTS:-2000000}" \
      "${KBENCH_SANITIZE_ONLY:-.}" 2>&1 | tee "$out/sanitize.log" | tail -40
    (cd build/reports && tar czf "$out/reports-sanitize.tgz" sanitize)
    ;;
esac

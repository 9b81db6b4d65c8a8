#!/usr/bin/env bash
# One call on the lent GPU machine (the device tool): the main job, then the extra measurements, with
# every log under $OUT. Needs .deps/ (scripts/pack-device-deps.sh) carried along.
set -uo pipefail
out=${OUT:-/tmp/kbench-out}
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv
  cmake --version | head -1
  nvcc --version | tail -2
} 2>&1 | tee "$out/machine.txt"
export JOBS=16
time scripts/run.sh 2>&1 | tee "$out/run.log"
status=${PIPESTATUS[0]}
cp build/reports/*.log "$out/" 2>/dev/null
# compute-sanitizer over the small shapes of the kernel tests (the big ones would take minutes).
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 build/nvidia-native/tests/rmsnorm_test correctness \
      --seed 1 "rmsnorm/rows=37 cols=1531" > "$out/sanitizer-$tool.log" 2>&1
    echo "compute-sanitizer $tool: exit $? ($(grep -c 'PASS' "$out/sanitizer-$tool.log") PASS lines)" | tee -a "$out/run.log"
  done
fi
# Catch2 3, where the machine has it: the same programs built against it, run once.
v3=$(ls -d /usr/lib/*/cmake/Catch2 /usr/lib/cmake/Catch2 2>/dev/null | head -1)
if [ -n "$v3" ] && grep -qs 'PACKAGE_VERSION "3' "$v3/Catch2ConfigVersion.cmake"; then
  (source scripts/common.sh && ensure_deps >/dev/null &&
   configure_and_build build/catch2-v3 -DKBENCH_GPU_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=native "-DCatch2_DIR=$v3" >/dev/null &&
   ctest --test-dir build/catch2-v3 -L "unit|correctness" -E mutation --output-on-failure) > "$out/catch2-v3.log" 2>&1
  echo "Catch2 3 build: exit $? (log catch2-v3.log)" | tee -a "$out/run.log"
fi
exit "$status"

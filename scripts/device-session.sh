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
exit "$status"

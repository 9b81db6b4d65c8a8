#!/usr/bin/env bash
# One call on the lent GPU machine (the device tool), with every log under $OUT. Needs .deps/
# (scripts/pack-device-deps.sh) carried along. Stages, so that a call fits its time limit:
#   scripts/device-session.sh main      build, then the main job (correctness and timing of every case)
#   scripts/device-session.sh extra     the PyTorch comparison, the timing-accuracy table, compute-sanitizer
set -uo pipefail
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
case "$stage" in
  main)
    export KBENCH_MAX_TIME=${KBENCH_MAX_TIME:-3}
    time scripts/run.sh > "$out/run.log" 2>&1
    status=$?
    tail -c 20000 "$out/run.log" | grep -v "^\[" | tail -150
    (cd build/reports && tar czf "$out/reports.tgz" .)
    exit "$status"
    ;;
  extra)
    export OUT_REPORTS=build/reports
    PYTHONUNBUFFERED=1 python3 scripts/compare-pytorch.py --build build/nvidia-native --out build/reports/pytorch 2>&1 | tee "$out/pytorch.log" | tail -25
    PYTHONUNBUFFERED=1 python3 scripts/timing-accuracy.py --build build/nvidia-native --out build/reports/timing 2>&1 | tee "$out/timing.log" | tail -25
    OUT=build/reports/sanitize scripts/sanitize.sh build/nvidia-native 2>&1 | tee "$out/sanitize.log" | tail -40
    (cd build/reports && tar czf "$out/reports-extra.tgz" pytorch timing sanitize)
    ;;
esac

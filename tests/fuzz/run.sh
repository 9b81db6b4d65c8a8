#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan, and runs each for a bounded time from its seed
# corpus. Usage: tests/fuzz/run.sh <build dir> [seconds per target, default 30]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?build dir}
seconds=${2:-30}
clang=$(command -v clang++-14 || command -v clang++)
CXX=$clang cmake -S "$here/../.." -B "$build" -G Ninja -DKBENCH_GPU_PLATFORM=none -DKBENCH_FUZZ=ON >/dev/null
cmake --build "$build" --target kbench_compare_fuzz kbench_options_fuzz
# Both targets at once, one core each. A crash, a leak, undefined behaviour or a broken invariant stops a
# run with a non-zero status; the input that did it is saved under $build/artifacts.
mkdir -p "$build/artifacts"
targets=(compare options)
pids=()
for target in "${targets[@]}"; do
  corpus="$build/corpus-$target"
  mkdir -p "$corpus"
  cp "$here/corpus/$target/"* "$corpus/"
  echo "-- fuzzing $target for $seconds s"
  "$build/tests/fuzz/kbench_${target}_fuzz" "$corpus" -max_total_time="$seconds" -max_len=4096 \
    -artifact_prefix="$build/artifacts/" -print_final_stats=1 > "$build/$target.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!targets[@]}"; do
  target=${targets[$i]}
  if ! wait "${pids[$i]}"; then
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$build/$target.log" | head -20
    echo "-- fuzzing $target failed (log: $build/$target.log)"
    failed=1
  else
    echo "-- $target: $(grep -E "stat::number_of_executed_units" "$build/$target.log")"
  fi
done
[ "$failed" -eq 0 ] || exit 1
echo "-- fuzzing found nothing"

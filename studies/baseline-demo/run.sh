#!/usr/bin/env bash
# The baseline procedure on the GPU present: a baseline from one build, ten runs of the same build against
# it (each must say "same" throughout), one run of a build with one kernel made slower on purpose (it must
# say "slower" for that case only and exit 1), and kbench-compare on the files (the same verdicts).
#   studies/baseline-demo/run.sh <build folder> <kbench-compare binary> <output folder>
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 compare=$2 out=$3
mkdir -p "$out"
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${KBENCH_DEMO_CMAKE_ARGS:-} > "$out/demo-build.log" 2>&1 &&
  cmake --build "$build" >> "$out/demo-build.log" 2>&1 || { tail -30 "$out/demo-build.log"; exit 1; }
"$build/demo" perf --json "$out/baseline.json" > "$out/baseline.log" 2>&1 || { tail -30 "$out/baseline.log"; exit 1; }
same=0
for i in $(seq 1 10); do
  "$build/demo" perf --json "$out/same-$i.json" --baseline "$out/baseline.json" > "$out/same-$i.log" 2>&1
  status=$?
  line=$(grep "^baseline:" "$out/same-$i.log")
  echo "run $i of the same build: exit $status; $line"
  [ $status -eq 0 ] && [[ "$line" == *"2 same, 0 faster, 0 slower, 0 now failing"* ]] && same=$((same + 1))
done
"$build/demo_slow" perf --json "$out/slow.json" --baseline "$out/baseline.json" > "$out/slow.log" 2>&1
slow_status=$?
sed -n '/against the baseline/,$p' "$out/slow.log"
"$compare" "$out/baseline.json" "$out/slow.json" --markdown "$out/compare.md" > "$out/compare.log" 2>&1
compare_status=$?
cat "$out/compare.log"
echo "same build: $same of 10 runs gave 'same' for both cases; slowed build exit $slow_status; kbench-compare exit $compare_status"
[ $same -eq 10 ] && [ $slow_status -eq 1 ] && [ $compare_status -eq 1 ]

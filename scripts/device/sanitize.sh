#!/usr/bin/env bash
# Runs every kernel test's correctness mode under compute-sanitizer (memcheck, then racecheck) on the
# NVIDIA GPU present, on the shapes small enough for the tools (--max-elements), one seed each; and its
# perf mode, briefly, under memcheck.
#   scripts/device/sanitize.sh [build dir, default build/nvidia-native] [max elements, default 2000000] [name regex]
# Every shape of a program larger than the limit is left out (kbench's --max-elements); each program keeps
# its odd shapes at the default. A program with no shape left reports "0 checked".
set -uo pipefail
build=${1:-build/nvidia-native}
max=${2:-2000000}
only=${3:-.}
out=${OUT:-build/reports}
mkdir -p "$out"
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
[ -n "$sanitizer" ] || { echo "compute-sanitizer not found"; exit 1; }
status=0
for tool in memcheck racecheck; do
  for test in "$build"/tests/*_test "$build"/examples/example_*; do
    name=$(basename "$test")
    # kbench's own harness tests have no correctness mode of their kernels; the mutation suite writes out of
    # bounds on purpose (into kbench's guard regions, which the sanitizer rightly accepts).
    [ -x "$test" ] && [[ "$name" != kbench_* ]] && [[ "$name" =~ $only ]] || continue
    log="$out/sanitize-$tool-$name.log"
    timeout "${KBENCH_SANITIZE_TIMEOUT:-60}" "$sanitizer" --tool "$tool" --error-exitcode 9 "$test" correctness --seed-count 1 --max-elements "$max" \
      > "$log" 2>&1
    rc=$?
    errors=$(grep -oE "(ERROR SUMMARY: [0-9]* error|RACECHECK SUMMARY: [0-9]* hazards)" "$log" | tail -1)
    printf '%-10s %-28s exit %-3s %s, %s checked\n' "$tool" "$name" "$rc" "${errors:-no summary}" "$(grep -c '^PASS' "$log")"
    # 77 with "nothing ran": --max-elements left no shape of this program (reported as 0 checked).
    [ "$rc" -eq 0 ] || { [ "$rc" -eq 77 ] && grep -q "nothing ran" "$log"; } || status=1
    if [ "$tool" = memcheck ]; then
      # The perf procedure too (input rotation, the checks of the timed launches), briefly. Timings under
      # the sanitizer are meaningless and may be flagged: only its error summary counts here.
      log="$out/sanitize-$tool-perf-$name.log"
      timeout "${KBENCH_SANITIZE_TIMEOUT:-60}" "$sanitizer" --tool memcheck "$test" perf --seed-count 1 --max-elements "$max" \
        --warmup 1 --warmup-time 0 --iterations 10 --max-iterations 20 --max-time 0.1 > "$log" 2>&1
      errors=$(grep -o "ERROR SUMMARY: [0-9]* error" "$log" | tail -1)
      printf '%-10s %-28s %s\n' "memcheck" "$name perf" "${errors:-no summary}"
      [[ "$errors" == "ERROR SUMMARY: 0 error" ]] || status=1
    fi
  done
done
exit $status

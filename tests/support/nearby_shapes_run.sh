#!/bin/sh
# Runs a kbench program and checks its exit status and output, passing a skip (77: no GPU) on as a skip
# (tests/harness/nearby_shapes_test.hip):
#   nearby_shapes_run.sh PROGRAM STATUS FORBID PATTERN... -- ARGS...
# Every PATTERN must match a line of the output and FORBID none (extended regular expressions, grep -E; an
# empty FORBID forbids nothing).
program=$1 status_wanted=$2 forbid=$3
shift 3
patterns=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  patterns="$patterns
$1"
  shift
done
[ "$#" -gt 0 ] && shift
out=$("$program" "$@" 2>&1)
status=$?
echo "$out"
echo "exit status $status"
[ "$status" -eq 77 ] && exit 77
[ "$status" -eq "$status_wanted" ] || { echo "FAIL: expected exit status $status_wanted"; exit 1; }
failed=0
echo "$patterns" | while IFS= read -r pattern; do
  [ -z "$pattern" ] && continue
  echo "$out" | grep -Eq -- "$pattern" || { echo "FAIL: no line matches '$pattern'"; exit 1; }
done || failed=1
if [ -n "$forbid" ] && echo "$out" | grep -Eq -- "$forbid"; then
  echo "FAIL: a line matches '$forbid'"
  failed=1
fi
exit "$failed"

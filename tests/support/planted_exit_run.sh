#!/bin/sh
# Runs a kbench program whose launch ends the process as planted (tests/harness/trust_verdict_test.hip) and checks
# that the run cannot read as passed:
#   planted_exit_run.sh PROGRAM MODE HOW
# HOW "none": the run must pass (0). Otherwise it must fail (any status but 0 and 77; a crash in the
# runtime's teardown after an exit(0) is a failure too), saying that the program ended before kbench
# finished, during the planted case. Exit status 77 (no GPU: the launch is never reached) is passed on as
# a skip.
program=$1 mode=$2 how=$3
out=$(KBENCH_TEST_PLANT=$how "$program" "$mode" 2>&1)
status=$?
echo "$out"
echo "exit status $status"
[ "$status" -eq 77 ] && exit 77
if [ "$how" = none ]; then
  exit "$status"
fi
[ "$status" -ne 0 ] || { echo "FAIL: the planted run exited 0"; exit 1; }
echo "$out" | grep -q "during verdict/n=1048576, before kbench finished" || {
  echo "FAIL: the parent did not say the program ended before kbench finished"
  exit 1
}
exit 0

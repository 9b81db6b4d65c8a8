#!/usr/bin/env bash
# Builds results.hip against this tree's headers and against another tree's, runs both on the GPU present,
# and prints each one's time per element type and whether their results agree bit for bit (every count,
# first index, maximum and sum of the tallies, and hashes of the element readers' values and ulps over
# every 8- and 16-bit encoding). For a change to the device comparison's loop that must not change its
# results. Needs a GPU.
#   studies/compare-speed/against.sh OTHER_TREE     a folder holding include/, for instance made by
#                                                   git archive <commit> include | tar -x -C OTHER_TREE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
other=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pids=()
for side in this other; do
  include=$root/include
  [ $side = other ] && include=$other/include
  "$root/studies/hip-program.sh" "$here/results.hip" "$work/$side" -I "$include" > "$work/$side.log" 2>&1 &
  pids+=($!)
done
for i in 0 1; do
  wait "${pids[$i]}" || { side=$([ $i = 0 ] && echo this || echo other); echo "the $side tree's build failed:"; tail -30 "$work/$side.log"; exit 1; }
done
for side in other this; do
  "$work/$side" > "$work/$side.txt"
  echo "$side tree:"
  grep "^TIME" "$work/$side.txt"
done
if diff <(grep -v "^TIME" "$work/other.txt") <(grep -v "^TIME" "$work/this.txt"); then
  echo "results: the same bit for bit ($(grep -vc "^TIME" "$work/this.txt") lines)"
else
  echo "results: differ (above)"
  exit 1
fi

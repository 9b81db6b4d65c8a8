#!/usr/bin/env bash
# The separate-process sketch (sketch.hip): a kernel of about 5 us and one of about 500 us on the H200 (a
# scale of 2.5 M and 250 M floats), each launched 200 times in the verdict's process and 200 times by a
# candidate process of its own on the same buffers, shared through IPC handles. Built by
# studies/hip-program.sh; needs a GPU.
#   studies/separate-process/run.sh [launches]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launches=${1:-200}
"$root/studies/hip-program.sh" "$root/studies/separate-process/sketch.hip" "$work/sketch"
for floats in 2500000 250000000; do
  "$work/sketch" "$floats" "$launches"
done

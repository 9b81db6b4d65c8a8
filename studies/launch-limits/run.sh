#!/usr/bin/env bash
# The launch-limits probe (probe.hip): what the runtime of the GPU present does with a launch over each
# device limit, directly and under stream capture. Built by studies/hip-program.sh; needs a GPU.
#   studies/launch-limits/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/studies/hip-program.sh" "$root/studies/launch-limits/probe.hip" "$work/probe"
"$work/probe"

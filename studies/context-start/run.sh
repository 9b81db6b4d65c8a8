#!/usr/bin/env bash
# The time a process takes to open the GPU (its context), five processes one after another, first with no
# other process on the GPU, then while one more process holds an idle context: whether the cost is the
# driver setting the GPU up for its first client (which a held context, or persistence mode, avoids) or
# each context's own. Needs a GPU.
#   studies/context-start/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill "$holder" 2> /dev/null || true; rm -rf "$work"' EXIT
holder=""
"$here/../hip-program.sh" "$here/context_start.hip" "$work/context_start"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,persistence_mode --format=csv,noheader
# Each process: its first runtime call / the whole process, in seconds.
opened() {
  local runs=() i started context
  for i in 1 2 3 4 5; do
    started=$EPOCHREALTIME
    context=$("$work/context_start")
    runs+=("$context/$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')")
  done
  echo "${runs[*]}"
}
echo "opening the GPU, alone (s): $(opened)"
"$work/context_start" hold 60 &
holder=$!
sleep 2
echo "opening the GPU, beside an idle context (s): $(opened)"

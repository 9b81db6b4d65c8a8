#!/usr/bin/env bash
# The timing-accuracy table's row "default perf run of rmsnorm 16384x8192" (the wall time of the case
# against 1.3x its timed GPU time + 0.2 s) for several trees of this repository on one machine, three runs
# each in turn: whether a change or the machine moved it; with the first check's steps and the unseen-work
# load where a tree writes them. Each tree's rmsnorm_test is built in
# <tree>/build-perf-run-wall (nvidia, the GPU's architecture). Needs an NVIDIA GPU.
#   studies/perf-run-wall.sh TREE [TREE ...]      e.g. . and a tree made by git archive <commit> | tar -x -C DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export JOBS=${JOBS:-16} KBENCH_ROOT=$root
source "$root/scripts/common.sh"
ensure_deps > /dev/null
trees=()
for tree in "$@"; do
  tree=$(cd "$tree" && pwd)
  trees+=("$tree")
  log=$tree/build-perf-run-wall.log
  { cmake -S "$tree" -B "$tree/build-perf-run-wall" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKBENCH_GPU_PLATFORM=nvidia \
      -DCMAKE_CUDA_ARCHITECTURES="$(nvidia_gpu_archs)" -DKBENCH_PYTHON=OFF &&
    cmake --build "$tree/build-perf-run-wall" -j "$JOBS" --target rmsnorm_test; } > "$log" 2>&1 ||
    { echo "$tree: the build failed:"; tail -30 "$log"; exit 1; }
done
json=$(mktemp)
trap 'rm -f "$json"' EXIT
for run in 1 2 3; do
  for tree in "${trees[@]}"; do
    program=$(find "$tree/build-perf-run-wall" -name rmsnorm_test -type f -perm -u+x | head -1)
    start=$(date +%s.%N)
    "$program" perf --json "$json" --benchmark_filter=rows=16384/cols=8192 > /dev/null
    python3 - "$tree" "$start" "$(date +%s.%N)" "$json" <<'PY'
import json, sys
tree, start, end, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
case = [c for c in json.load(open(path))["cases"] if c["timing"]][0]
t = case["timing"]
timed = t["optimized"]["count"] * (t["optimized"]["mean"] + (t["reference"]["mean"] if t["reference"] else 0.0))
steps = ", ".join(f"{k} {v:.3f}" for k, v in t.get("stage_seconds", {}).items())
print(f"{tree}: case {case['wall_seconds']:.3f} s, process {end - start:.3f} s, timed GPU {timed:.3f} s "
      f"({t['optimized']['count']} samples), limit {1.3 * timed + 0.2:.3f} s; {steps}")
# The first check's own steps (written since the correctness runs record them), and the unseen-work load.
first = case["checks"][0].get("stage_seconds", {}) if case.get("checks") else {}
if first:
    print("    first check: " + ", ".join(f"{k} {v:.4f}" for k, v in first.items() if v > 0))
if t.get("saturation"):
    print(f"    unseen work: a call {t['launch_call'] * 1e6:.1f} us idle, {t['saturated_call'] * 1e6:.1f} us under a "
          f"{t['saturation'] * 1e3:.1f} ms load")
PY
  done
done

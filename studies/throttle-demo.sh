#!/usr/bin/env bash
# The SM clock of each sample under load, on an NVIDIA GPU with PyTorch: rmsnorm 16384 x 8192 timed idle,
# then beside a minute of fp16 matmuls from another process (which holds the GPU at its power cap), with
# --throttle-threshold 0.9 and with the default 0.75; nvidia-smi's clocks at each step; kbench-compare of
# the idle run against the loaded one. Figures from the H200: docs/measured.md.
#   studies/throttle-demo.sh [build folder (build/nvidia-native)] [output folder ($OUT/throttle)]
set -uo pipefail
b=${1:-build/nvidia-native}
out=${2:-${OUT:-/tmp/kbench-out}/throttle}
mkdir -p "$out"
smi() { nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv,noheader; }
shape="rows=16384,cols=8192"
run() {  # name, extra args
  local name=$1; shift
  $b/tests/rmsnorm_test perf --shape "$shape" --max-time 3 --json "$out/$name.json" "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $?"
  grep -E "^  (clock|optimized|reference|speedup) |SM clock setting|throttl" "$out/$name.log" | head -12
}
echo "idle: $(smi)"
run idle
cat > "$out/load.py" <<'PY'
import sys, time, torch
a = torch.randn(16384, 16384, device="cuda", dtype=torch.float16)
b = torch.randn_like(a)
end = time.time() + float(sys.argv[1])
n = 0
while time.time() < end:
    for _ in range(8):
        c = a @ b
    torch.cuda.synchronize()
    n += 8
print(f"load: {n} matmuls of 16384^3 fp16, {2 * 16384**3 * n / float(sys.argv[1]) / 1e12:.0f} TFLOP/s average")
PY
python3 "$out/load.py" 60 > "$out/load.log" 2>&1 &
load=$!
sleep 10
echo "under load: $(smi)"
run loaded-0.9 --throttle-threshold 0.9
echo "under load: $(smi)"
run loaded-default
echo "under load: $(smi)"
wait $load
cat "$out/load.log"
echo "after: $(smi)"
$b/tools/kbench-compare "$out/idle.json" "$out/loaded-default.json" > "$out/compare.log" 2>&1
echo "kbench-compare exit $?"
grep -iE "clock|slower|faster|warning" "$out/compare.log" | head -12

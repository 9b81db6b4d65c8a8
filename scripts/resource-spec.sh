#!/usr/bin/env bash
# Writes a CTest resource specification for the GPUs this machine shows, so that
#   ctest -L perf -j N --resource-spec-file build/gpus.json
# runs one GPU test per GPU at a time: each kbench test asks for "gpus:1" (kbench_add_kernel_test), CTest
# hands it a GPU id in CTEST_RESOURCE_GROUP_0_GPUS, and the program opens that device (the JSON's
# device.ordinal and device.pci_bus_id say which it was).
#
#   scripts/resource-spec.sh [output file, default build/gpus.json] [slots per GPU, default 1]
#
# The ids are HIP device ordinals, so they follow CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES /
# ROCR_VISIBLE_DEVICES as the programs will. No GPU: a spec with none, and a message (GPU tests then
# wait for resources that never come: ctest reports them as not run, it does not pass them).
set -euo pipefail
source "$(dirname "$0")/common.sh"
out=${1:-$KBENCH_BUILD/gpus.json}
slots=${2:-1}
[[ "$slots" =~ ^[1-9][0-9]*$ ]] || { echo "resource-spec.sh: slots must be a positive integer, not '$slots'" >&2; exit 2; }

# Counts the devices the HIP runtime will number, in the platform's own terms.
count_gpus() {
  local visible=${HIP_VISIBLE_DEVICES:-${CUDA_VISIBLE_DEVICES:-${ROCR_VISIBLE_DEVICES:-}}}
  local present=0
  case "$(detect_gpu)" in
    nvidia) present=$(nvidia-smi -L | grep -c '^GPU ') ;;
    amd) present=$(for n in /sys/class/kfd/kfd/topology/nodes/*/properties; do
                     awk '$1 == "simd_count" && $2 > 0 {print}' "$n"; done | wc -l) ;;
  esac
  if [ -n "$visible" ]; then
    local listed
    listed=$(tr ',' '\n' <<< "$visible" | grep -c .)
    [ "$listed" -lt "$present" ] && present=$listed
  fi
  echo "$present"
}

n=$(count_gpus)
mkdir -p "$(dirname "$out")"
{
  printf '{\n  "version": {"major": 1, "minor": 0},\n  "local": [\n    {\n      "gpus": ['
  for ((i = 0; i < n; ++i)); do
    printf '%s\n        {"id": "%d", "slots": %d}' "$([ "$i" -gt 0 ] && echo ,)" "$i" "$slots"
  done
  printf '\n      ]\n    }\n  ]\n}\n'
} > "$out"
if [ "$n" -eq 0 ]; then
  echo "resource-spec.sh: no GPU found; wrote a spec with none to $out" >&2
else
  echo "wrote $out: $n GPU(s), $slots slot(s) each; run: ctest --test-dir <build> -L perf -j $n --resource-spec-file $out"
fi

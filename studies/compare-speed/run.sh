#!/usr/bin/env bash
# Builds compare_speed.hip once per variant of the device comparison's element loop (its unroll depth, and
# the blocks per multiprocessor its launch bounds ask of the compiler), each from a copy of kbench's headers
# with that change, then runs each on the GPU present. Needs an NVIDIA GPU (the registers are ptxas's).
#   studies/compare-speed/run.sh [variant ...]     <unroll>x<blocks>; default: the shipped 4x1 and others
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
variants=${*:-4x1 4x2 4x3 2x3 2x4 8x1 1x4}
for v in $variants; do
  unroll=${v%x*} blocks=${v#*x}
  mkdir -p "$work/$v" && cp -r "$root/include" "$work/$v/"
  loop="$work/$v/include/kbench/engines/device_compare_loop.hpp"
  sed -i "s|constexpr int unroll = 4;|constexpr int unroll = $unroll;|
          s|__launch_bounds__(256) compare_kernel|__launch_bounds__(256, $blocks) compare_kernel|" "$loop"
  grep -q "unroll = $unroll;" "$loop" && grep -q "__launch_bounds__(256, $blocks)" "$loop"
  "$root/studies/hip-program.sh" "$here/compare_speed.hip" "$work/$v/speed" -I "$work/$v/include" \
    -DVARIANT="\"unroll $unroll, $blocks block(s) per SM\"" -Xptxas -v > "$work/$v/build.log" 2>&1 &
done
wait
for v in $variants; do
  # ptxas's line for the fp32 comparison kernel (its reader's storage word: unsigned int, mangled j).
  grep -A3 "compare_kernel.*device_readerIjLNS_5dtypeE1E" "$work/$v/build.log" |
    grep -o "[0-9]* bytes spill stores\|Used [0-9]* registers" | head -2 | paste -sd, | sed "s|^|$v: |"
  "$work/$v/speed"
done

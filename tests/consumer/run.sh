#!/usr/bin/env bash
# Builds tests/consumer against kbench three ways (installed package, add_subdirectory, plain copy) and
# runs each consumer's tests. Usage: tests/consumer/run.sh <work dir>
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?work dir}
rm -rf "$work" && mkdir -p "$work"
platform=(-DKBENCH_GPU_PLATFORM=amd "-DGPU_TARGETS=${KBENCH_CONSUMER_TARGETS:-gfx90a}")
compiler=hipcc
if [ "${KBENCH_CONSUMER_PLATFORM:-amd}" = nvidia ]; then
  platform=(-DKBENCH_GPU_PLATFORM=nvidia "-DCMAKE_CUDA_ARCHITECTURES=${KBENCH_CUDA_ARCHS:-90}")
  compiler=g++
fi

cmake -S "$root" -B "$work/kbench" -G Ninja -DKBENCH_GPU_PLATFORM=none -DKBENCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$work/kbench" >/dev/null  # kbench-compare, installed with the headers
cmake --install "$work/kbench" --prefix "$work/prefix" >/dev/null
mkdir -p "$work/copy" && cp -r "$root/include" "$root/cmake" "$work/copy/"

for mode in package subdirectory copy; do
  echo "-- consumer through $mode"
  CXX=$compiler cmake -S "$root/tests/consumer" -B "$work/$mode" -G Ninja "${platform[@]}" \
    -DKBENCH_CONSUME=$mode "-DCMAKE_PREFIX_PATH=$work/prefix${CMAKE_PREFIX_PATH:+;${CMAKE_PREFIX_PATH//:/;}}" \
    "-DKBENCH_SOURCE_DIR=$root" "-DKBENCH_COPY_DIR=$work/copy" > "$work/$mode.configure.log" 2>&1 ||
    { cat "$work/$mode.configure.log"; exit 1; }
  cmake --build "$work/$mode" >/dev/null
  "$work/$mode/scale_test" list | grep -q "scale/n=4099"
  ctest --test-dir "$work/$mode" --output-on-failure
done
echo "-- consumers built and tested through find_package, add_subdirectory and a copy"

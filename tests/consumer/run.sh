#!/usr/bin/env bash
# Builds tests/consumer against kbench three ways (installed package, add_subdirectory, plain copy) and
# runs each consumer's tests. Usage: tests/consumer/run.sh <work dir> [kbench build to install from]
# The package is installed from the build given (scripts/test.sh gives its host build), or from one made
# here.
# Each route has a folder of the same shape, <work>/<route>/kbench: the installed prefix, a copy of kbench's
# top-level project, a copy of include/ and cmake/; the consumer builds in its build/<platform>, as
# kbench's own builds do in <repository>/build/<platform>. Through a compiler cache whose base is above
# both (scripts/common.sh), kbench's library, which each route builds for its own project, is compiled
# with the same relative paths as in kbench's own build of the same targets: once in a run of
# scripts/test.sh, not four times.
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
launcher=()
if [ -n "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi

# The package: kbench-compare and the headers, installed.
installed_from=${2:-$work/kbench-build}
if [ -z "${2:-}" ]; then
  cmake -S "$root" -B "$installed_from" -G Ninja -DCMAKE_BUILD_TYPE=Release ${launcher[@]+"${launcher[@]}"} \
    -DKBENCH_GPU_PLATFORM=none -DKBENCH_BUILD_TESTS=OFF -DKBENCH_PYTHON=OFF >/dev/null
fi
cmake --build "$installed_from" --target kbench-compare >/dev/null
cmake --install "$installed_from" --prefix "$work/package/kbench" >/dev/null
# kbench's top-level project, as a checkout added with add_subdirectory sees it.
mkdir -p "$work/subdirectory/kbench"
cp -r "$root/CMakeLists.txt" "$root/LICENSE" "$root/cmake" "$root/include" "$root/tools" "$work/subdirectory/kbench/"
# A plain copy of include/ and cmake/.
mkdir -p "$work/copy/kbench" && cp -r "$root/include" "$root/cmake" "$work/copy/kbench/"

for mode in package subdirectory copy; do
  echo "-- consumer through $mode"
  build="$work/$mode/kbench/build/${KBENCH_CONSUMER_PLATFORM:-amd}"
  CXX=$compiler cmake -S "$root/tests/consumer" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    ${launcher[@]+"${launcher[@]}"} "${platform[@]}" -DKBENCH_CONSUME=$mode \
    "-DCMAKE_PREFIX_PATH=$work/package/kbench${CMAKE_PREFIX_PATH:+;${CMAKE_PREFIX_PATH//:/;}}" \
    "-DKBENCH_SOURCE_DIR=$work/subdirectory/kbench" "-DKBENCH_COPY_DIR=$work/copy/kbench" \
    > "$work/$mode.configure.log" 2>&1 || { cat "$work/$mode.configure.log"; exit 1; }
  cmake --build "$build" -j "${JOBS:-$(nproc)}" >/dev/null
  "$build/scale_test" list | grep -q "scale/n=4099"
  ctest --test-dir "$build" --output-on-failure
done
echo "-- consumers built and tested through find_package, add_subdirectory and a copy"

#!/usr/bin/env bash
# kbench from Python on the lent GPU machine (docs/python.md): builds the Python module with its GPU path
# for the machine's python3 (its torch, Triton and pybind11), then runs it; every log under $OUT. Needs
# .deps/ (scripts/device/pack-device-deps.sh) carried along, and pytest: the machine's own, else Debian's
# packed here into .deps/python (`scripts/device/python-session.sh pack`, on a Debian machine).
#   scripts/device/python-session.sh check     build, then tests/python (the GPU path's own tests, run for
#                                              real) and the examples: RMSNorm in Triton against torch, a fused
#                                              torch op against its composition, the planted bugs (caught)
#   scripts/device/python-session.sh perf      build, then the examples timed (--kbench-perf)
#   scripts/device/python-session.sh overhead  build, then the same Triton kernel as a C++ side and as a
#                                              Python side, cold and batch, both medians printed
#   scripts/device/python-session.sh pip       pip install of the GPU build (python/setup.py) into a virtual
#                                              environment beside the machine's packages, then the GPU path's
#                                              tests against the installed copy (not in `all`)
#   scripts/device/python-session.sh all       check, perf and overhead, in one call (default)
#   KBENCH_PYTHON3=<python>                    the python to build for (default: python3 on PATH)
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository's root: its paths below are relative to it
stage=${1:-all}
if [ "$stage" = pack ]; then
  # pytest and what it imports, from Debian: pure Python, for a machine whose python has no pytest.
  dest=.deps/python
  tmp=$(mktemp -d) && chmod 777 "$tmp" && trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download python3-pytest python3-pluggy python3-iniconfig python3-packaging \
                 python3-exceptiongroup python3-attr python3-py python3-tomli >/dev/null) || exit 1
  mkdir -p "$dest" && for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dest"; done
  rm -rf "${dest:?}/usr/share"
  echo "packed pytest into $dest: $(du -sh "$dest" | cut -f1)"
  exit 0
fi
out=${OUT:-/tmp/kbench-out}
mkdir -p "$out"
export JOBS=${JOBS:-16} KBENCH_BUILD=$PWD/build
source scripts/common.sh
ensure_deps > /dev/null
python=${KBENCH_PYTHON3:-$(command -v python3)}
build=$KBENCH_BUILD/nvidia-python

# What the machine's python must have; each missing one ends the session, saying which (never a pass).
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$python" -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__,
'cuda', torch.version.cuda, 'triton', triton.__version__, 'gpu', torch.cuda.is_available())"
} 2>&1 | tee "$out/machine.txt"
pybind11_dir=$("$python" -m pybind11 --cmakedir 2>/dev/null) ||
  { echo "kbench: no pybind11 for $python (pip's pybind11 gives python -m pybind11 --cmakedir)" | tee -a "$out/machine.txt"; exit 1; }
if ! "$python" -c "import pytest" 2>/dev/null; then
  [ -d .deps/python/usr/lib/python3/dist-packages/pytest ] ||
    { echo "kbench: no pytest for $python, and none packed (.deps/python: python-session.sh pack)" | tee -a "$out/machine.txt"; exit 1; }
  export PYTHONPATH=$PWD/.deps/python/usr/lib/python3/dist-packages
  echo "pytest from .deps/python (Debian's)" | tee -a "$out/machine.txt"
fi

# The module and example 9 (the C++ side of the overhead comparison), not every kernel test.
build_module() {
  local started=$SECONDS
  configure "$build" -DKBENCH_GPU_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=$(nvidia_gpu_archs) \
    -DPython3_EXECUTABLE="$python" -Dpybind11_DIR="$pybind11_dir" > "$out/build.log" 2>&1 &&
    cmake --build "$build" -j "$JOBS" --target kbench_python_module example_09_triton >> "$out/build.log" 2>&1 ||
    { tail -50 "$out/build.log"; exit 1; }
  echo "built the module and example_09_triton in $((SECONDS - started)) s"
  export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
}

# pytest on <files...>, its log in $out/<log>.log; its summary lines shown.
run_pytest() {
  local log=$1
  shift
  PYTHONUNBUFFERED=1 "$python" -m pytest -rs -p no:cacheprovider -p kbench.pytest_plugin --durations=8 "$@" \
    > "$out/$log.log" 2>&1
  local status=$?
  # The summary, and the slowest tests' wall times (pytest's --durations: set-up, call and teardown apart).
  grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed|skipped|^[0-9.]+s (call|setup|teardown) " "$out/$log.log" | tail -30
  return $status
}

status=0
if [ "$stage" = pip ]; then
  say "pip install of the GPU build, then tests/python/test_gpu_path.py against the installed copy"
  started=$SECONDS
  env=$KBENCH_BUILD/pip-venv
  rm -rf "$env" && "$python" -m venv --without-pip --system-site-packages "$env" || exit 1
  # --system-site-packages reaches the base interpreter's packages only, not a user's (~/.local) nor, where
  # the machine's python is itself a virtual environment, its own (torch, pytest): every package folder the
  # machine's python sees is named to the new one by a .pth file, after the new one's own.
  "$python" -c "import sys; print('\n'.join(p for p in sys.path if p.endswith(('site-packages', 'dist-packages'))))" \
    > "$("$env/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/machine-packages.pth" || exit 1
  CMAKE_ARGS="-DKBENCH_GPU_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=$(nvidia_gpu_archs) -Dpybind11_DIR=$pybind11_dir" \
    KBENCH_PYTHON_BUILD_DIR=$KBENCH_BUILD/pip-nvidia CMAKE_BUILD_PARALLEL_LEVEL=$JOBS \
    "$env/bin/python" -m pip install --no-build-isolation --no-deps --no-index ./python > "$out/pip.log" 2>&1 ||
    { tail -40 "$out/pip.log"; exit 1; }
  echo "installed in $((SECONDS - started)) s: $(cd /tmp && "$env/bin/python" -c 'import kbench; print(kbench.__file__, kbench.gpu_path_built)')"
  python=$env/bin/python run_pytest pip-tests -q tests/python/test_gpu_path.py || status=1
  exit "$status"
fi
build_module
if [ "$stage" = check ] || [ "$stage" = all ]; then
  say "tests/python: the GPU path's own tests, run for real"
  run_pytest python-tests -q tests/python || status=1
  say "the examples, checked: Triton RMSNorm, a fused torch op, the planted bugs"
  run_pytest examples-check -v examples/python || status=1
fi
if [ "$stage" = perf ] || [ "$stage" = all ]; then
  say "the examples, timed"
  KBENCH_MAX_TIME=${KBENCH_MAX_TIME:-3} run_pytest examples-perf -v -s --kbench-perf \
    examples/python/rmsnorm_triton_test.py examples/python/fused_op_test.py || status=1
  grep -E "speedup|median|optimized|reference" "$out/examples-perf.log" | head -40
fi
if [ "$stage" = overhead ] || [ "$stage" = all ]; then
  say "a Python side against a C++ side: the same Triton kernel, cold and batch"
  KBENCH_MAX_TIME=${KBENCH_MAX_TIME:-3} PYTHONUNBUFFERED=1 "$python" examples/python/side_overhead.py --build "$build" \
    2>&1 | tee "$out/overhead.log" | tail -25
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
exit "$status"

#!/bin/sh
# `pip install` of kbench's Python package (python/: setuptools through kbench's CMake, host-only here) into a
# fresh virtual environment, then the installed copy imported from outside the repository and the host-side
# tests run against it. 77 (a skip, saying why) where this python cannot make the environment or lacks pip,
# setuptools or wheel.
#   pip_install_run.sh PYTHON REPOSITORY WORK TEST_FILE...
set -eu
python=$1 root=$2 work=$3
shift 3
rm -rf "$work"
mkdir -p "$work"
if ! "$python" -m venv --without-pip --system-site-packages "$work/venv"; then
  echo "kbench: skipped: $python cannot make a virtual environment (python3-venv)"
  exit 77
fi
if ! "$work/venv/bin/python" -c "import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in ('pip', 'setuptools', 'wheel')))"; then
  echo "kbench: skipped: pip, setuptools or wheel is missing for $python (python3-pip python3-setuptools python3-wheel)"
  exit 77
fi
launcher=""
if [ -n "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null; then launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"; fi
CMAKE_ARGS="-DKBENCH_GPU_PLATFORM=none $launcher" KBENCH_PYTHON_BUILD_DIR="$work/cmake" \
  "$work/venv/bin/python" -m pip install --no-build-isolation --no-deps --no-index "$root/python"
cd "$work"
"$work/venv/bin/python" - "$work/venv" <<'PY'
import importlib.metadata
import sys
import kbench
import kbench._kbench as native
for module in (kbench, native):
    if not module.__file__.startswith(sys.argv[1]):
        sys.exit(f"kbench: {module.__name__} imported from {module.__file__}, not from the environment it was installed in")
installed = importlib.metadata.version("kbench")
if installed != kbench.version:
    sys.exit(f"kbench: the installed distribution says {installed}, the module {kbench.version}")
print(f"kbench {installed} installed: {native.__file__}")
PY
exec "$work/venv/bin/python" -m pytest -q -rs -p no:cacheprovider "$@"

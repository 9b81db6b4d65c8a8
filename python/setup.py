"""kbench's Python package, built by setuptools through kbench's own CMake (pyproject.toml says how to install).

The package's Python files are this folder's kbench/; its native part, kbench._kbench, is what CMake builds
when it configures the repository (this folder's parent) for the Python running this build and builds the
module's one target (on a GPU platform, with the procedure it links). CMAKE_ARGS passes options to CMake:
the platform (-DKBENCH_GPU_PLATFORM=amd, the default, nvidia or none), architectures, a compiler cache.
CMAKE_BUILD_PARALLEL_LEVEL bounds the jobs (every core otherwise); KBENCH_PYTHON_BUILD_DIR, where CMake builds
(under setuptools' build folder otherwise).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent


def kbench_version():
    text = (ROOT / "include" / "kbench" / "version.hpp").read_text()
    found = re.search(r'version = "([0-9]+\.[0-9]+\.[0-9]+)"', text)
    if not found:
        raise RuntimeError("kbench: no version in include/kbench/version.hpp")
    return found.group(1)


class cmake_module(build_ext):
    """Builds kbench._kbench with CMake, then puts it where setuptools packs the extension."""

    def build_extension(self, ext):
        build = Path(os.environ.get("KBENCH_PYTHON_BUILD_DIR") or Path(self.build_temp) / "cmake").resolve()
        options = [
            "-DKBENCH_BUILD_TESTS=OFF",
            "-DKBENCH_PYTHON=ON",
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DCMAKE_BUILD_TYPE=Release",
        ] + shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), *options], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build), "--target", "kbench_python_module", "--parallel", jobs],
                       check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        built = build / "python" / "kbench" / ("_kbench" + suffix)
        if not built.exists():
            raise RuntimeError(f"kbench: CMake built no {built.name} in {built.parent} (for {sys.executable})")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)


setup(
    version=kbench_version(),
    ext_modules=[Extension("kbench._kbench", sources=[])],
    cmdclass={"build_ext": cmake_module},
)

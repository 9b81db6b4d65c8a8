#!/bin/sh
# Compiler launcher of the header checks (tests/CMakeLists.txt): runs the compile command it is given in
# the compiler's syntax-only mode, which parses and checks the source, host and device sides, without
# generating code, then leaves the empty object the build expects. nvcc has a syntax-only mode for the
# device side alone (-fdevice-syntax-only): its host side is compiled, and writes the object itself; its
# front end still finds every undeclared name, though it leaves some device-side checks (a host function
# called from a kernel) to code generation, which the programs' own compiles of every header do.
# Dependency files (-MD) are written as in a full compile, so a header's change runs its check again.
set -eu
case "$(basename "$1")" in
  nvcc*) exec "$@" -fdevice-syntax-only ;;
esac
# The first AMD target only: that a header compiles alone is a property of its text and the platform, and
# each further target would parse it once more; the programs compile every header for every target.
object=""
previous=""
targets=0
for argument in "$@"; do
  shift
  [ "$previous" = "-o" ] && object=$argument
  previous=$argument
  case "$argument" in
    --offload-arch=*|--cuda-gpu-arch=*)
      targets=$((targets + 1))
      [ "$targets" -eq 1 ] || continue ;;
  esac
  set -- "$@" "$argument"
done
# A HIP file is parsed once, in the device pass: clang parses every line there, host functions included
# (an undeclared name in one is an error in either pass), and the host pass would parse it all again
# (8.2 s against 4.3 for procedure/timing_run.hpp). Code that only the host pass compiles (#if on
# __HIP_DEVICE_COMPILE__) is in host headers alone, which the host build checks with g++.
[ "$targets" -eq 0 ] || set -- "$@" --offload-device-only
# A syntax-only run leaves -c unused, which clang says (gcc ignores a -Wno- it does not know).
"$@" -fsyntax-only -Wno-unused-command-line-argument
[ -z "$object" ] || : > "$object"

#!/bin/sh
# Compiler launcher of the header checks (tests/CMakeLists.txt): runs the compile command it is given in
# the compiler's syntax-only mode, which parses and checks the source, host and device sides, without
# generating code, then leaves the empty object the build expects. nvcc has a syntax-only mode for the
# device side alone (-fdevice-syntax-only): its host side is compiled, and writes the object itself.
# Dependency files (-MD) are written as in a full compile, so a header's change runs its check again.
set -eu
object=""
previous=""
for argument in "$@"; do
  [ "$previous" = "-o" ] && object=$argument
  previous=$argument
done
case "$(basename "$1")" in
  nvcc*) exec "$@" -fdevice-syntax-only ;;
esac
"$@" -fsyntax-only
[ -z "$object" ] || : > "$object"

# Shared by scripts/run.sh and scripts/test.sh: dependencies, build folders, GPU detection.
# shellcheck shell=bash

KBENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KBENCH_BUILD=${KBENCH_BUILD:-$KBENCH_ROOT/build}
JOBS=${JOBS:-$(nproc)}

say() { printf '\n== %s\n' "$*"; }

# Debian/Ubuntu packages kbench builds with. Installed when missing and apt can install them; a machine
# without a registry brings them in .deps/ (scripts/pack-device-deps.sh), which is used when present.
KBENCH_PACKAGES="cmake ninja-build g++ hipcc libamdhip64-dev libhiprand-dev librocrand-dev libbenchmark-dev
                 libfmt-dev catch2 libcli11-dev nlohmann-json3-dev"

ensure_deps() {
  local missing=()
  if command -v dpkg-query >/dev/null; then
    for p in $KBENCH_PACKAGES ${KBENCH_EXTRA_PACKAGES:-}; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
  else
    missing=(unknown)
  fi
  [ ${#missing[@]} -eq 0 ] && return
  if [ -d "$KBENCH_ROOT/.deps/usr" ]; then
    export CMAKE_PREFIX_PATH="$KBENCH_ROOT/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    export LD_LIBRARY_PATH="$KBENCH_ROOT/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    say "using the packed dependencies in .deps/ (not installed here: ${missing[*]})"
    return
  fi
  command -v apt-get >/dev/null || { echo "kbench needs: $KBENCH_PACKAGES (missing: ${missing[*]})" >&2; exit 1; }
  say "installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# Prints "nvidia", "amd" or "none".
detect_gpu() {
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo nvidia
  elif [ -e /dev/kfd ] && amd_gpu_targets | grep -q gfx; then
    echo amd
  else
    echo none
  fi
}

amd_gpu_targets() {
  rocm_agent_enumerator 2>/dev/null | grep -v gfx000 | sort -u | paste -sd';' -
}

# configure_and_build <dir> <cmake args...>
configure_and_build() {
  local dir=$1
  shift
  mkdir -p "$(dirname "$dir")"
  cmake -S "$KBENCH_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
  cmake --build "$dir" -j "$JOBS"
}

# Runs ctest in <dir> with extra arguments, then lists every skipped test with the reason it printed.
run_ctest() {
  local dir=$1
  shift
  local status=0 out
  out=$(mktemp)
  set +e
  ctest --test-dir "$dir" --output-on-failure "$@" 2>&1 | tee "$out"
  status=${PIPESTATUS[0]}
  set -e
  local skipped
  skipped=$(sed -n 's/^.*Test *#[0-9]*: \([^ ]*\) .*\*\*\*Skipped.*$/\1/p' "$out")
  if [ -n "$skipped" ]; then
    echo "Skipped, with the reason each gave:"
    for name in $skipped; do
      reason=$(awk -v t="$name" '$2 == "Testing:" {on = ($3 == t)} on && /^kbench: skipped/ {print; exit}' \
               "$dir/Testing/Temporary/LastTest.log")
      echo "  $name: ${reason:-(no reason printed)}"
    done
  fi
  tally_ctest "$out" "${dir#"$KBENCH_BUILD"/}"
  rm -f "$out"
  return $status
}

# tally_ctest <ctest output> <label>: records how many tests passed, were skipped and failed, for the
# summary that ends scripts/test.sh.
tally_ctest() {
  local passed skipped failed
  passed=$(grep -Ec '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$1" || true)
  skipped=$(grep -Ec '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$1" || true)
  failed=$(grep -Ec '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception|Not Run)' "$1" || true)
  echo "$passed $skipped $failed $2" >> "$KBENCH_BUILD/ctest-tally"
}

# Prints the tally of every ctest run so far: the tests that really ran, and those skipped.
print_tally() {
  awk '{ label = $0; sub(/^[0-9]+ [0-9]+ [0-9]+ /, "", label)
         printf "  %-50s %4d passed %4d skipped %4d failed\n", label, $1, $2, $3; p += $1; s += $2; f += $3 }
       END { printf "  %-50s %4d passed %4d skipped %4d failed\n", "in all", p, s, f }' "$KBENCH_BUILD/ctest-tally"
}

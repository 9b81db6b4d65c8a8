# Shared by scripts/run.sh and scripts/test.sh: dependencies, build folders, GPU detection.
# shellcheck shell=bash

KBENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KBENCH_BUILD=${KBENCH_BUILD:-$KBENCH_ROOT/build}
JOBS=${JOBS:-$(nproc)}
# Debian's clang 15 leaves two empty folders in the temporary folder for every HIP file it compiles (its
# offload steps'): several hundred a test run. Temporary files go in the build folder, removed with it.
export TMPDIR="$KBENCH_BUILD/tmp"
mkdir -p "$TMPDIR"

say() { printf '\n== %s\n' "$*"; }

# ---- stages and their times ----------------------------------------------------------------------------
# stage <title>: ends the stage under way (its time is kept) and starts this one.
stage_times=()
stage_title=""
stage() {
  stage_end
  say "$*"
  stage_title=$*
  stage_started=$(date +%s)
}
stage_end() {
  [ -n "$stage_title" ] || return 0
  stage_times+=("$(printf '%6d s  %s' $(($(date +%s) - stage_started)) "$stage_title")")
  stage_title=""
}
# print_stage_times <started> <exit status> [<limit seconds> <what the limit is>]: every stage's time,
# the total against the limit, and a warning when the total comes within 20% of it.
print_stage_times() {
  local total=$(($(date +%s) - $1)) status=$2 limit=${3:-0} limit_name=${4:-}
  stage_end
  say "stage times$([ "$status" -eq 0 ] || echo " (the run failed: exit $status)")"
  [ ${#stage_times[@]} -eq 0 ] || printf '%s\n' "${stage_times[@]}"
  if [ "$limit" -gt 0 ]; then
    printf '%6d s  in all: %d%% of %s, %d s\n' "$total" $((100 * total / limit)) "$limit_name" "$limit"
    if [ $((5 * total)) -ge $((4 * limit)) ]; then
      echo "warning: this run took ${total} s, within 20% of $limit_name ($limit s): the stage times above say what grew"
    fi
  else
    printf '%6d s  in all\n' "$total"
  fi
  if [ -n "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null; then
    ccache --print-stats 2>/dev/null | awk -F'\t' '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$/ {n[$1] = $2}
      END {printf "compiler cache: %d hits, %d misses\n", n["direct_cache_hit"] + n["preprocessed_cache_hit"], n["cache_miss"]}'
  fi
}

# ---- the compiler cache --------------------------------------------------------------------------------
# use_compiler_cache: builds configured from now on compile through ccache, when it is installed and
# KBENCH_CCACHE is not 0, with the cache in $KBENCH_BUILD/ccache: what one build of the run compiled with
# the same compiler, flags and sources is not compiled again by another (the host-only programs of the
# NVIDIA build; kbench's library in the consumers).
compiler_cache_args=()
# common_folder <a> <b>: the deepest folder that holds both (absolute paths).
common_folder() {
  local a b
  a=$(realpath -m "$1") b=$(realpath -m "$2")/
  while [ "$a" != / ] && [ "${b#"$a"/}" = "$b" ]; do a=$(dirname "$a"); done
  echo "$a"
}
use_compiler_cache() {
  [ "${KBENCH_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null || return 0
  export CCACHE_DIR=${CCACHE_DIR:-$KBENCH_BUILD/ccache}
  # Paths below the folder that holds both the repository and the builds are hashed relative to the
  # build folder, so that the same file reached the same way from another build (the consumer routes,
  # tests/consumer/run.sh) is the same compile; paths outside it (the system's headers) stay absolute.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(common_folder "$KBENCH_ROOT" "$KBENCH_BUILD")}
  export CCACHE_NOHASHDIR=1
  compiler_cache_args=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
}

# Debian/Ubuntu packages kbench builds with. Installed when missing and apt can install them; a machine
# without a registry brings them in .deps/ (scripts/device/pack-device-deps.sh), which is used when present.
KBENCH_PACKAGES="cmake ninja-build g++ hipcc libamdhip64-dev libhiprand-dev librocrand-dev librocprim-dev libbenchmark-dev
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

# The NVIDIA GPUs' architectures present, as CMAKE_CUDA_ARCHITECTURES takes them ("90", "80;90"); "native"
# where nvidia-smi cannot say. Named outright, they spare the configure step CMake's handling of `native`:
# configuring a CUDA project took 2.8 to 3.0 s on the H200 so, 6.7 to 7.1 s with `native`.
nvidia_gpu_archs() {
  local archs
  archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | grep -E '^[0-9]+$' | sort -u |
    paste -sd';' -)
  echo "${archs:-native}"
}

amd_gpu_targets() {
  rocm_agent_enumerator 2>/dev/null | grep -v gfx000 | sort -u | paste -sd';' -
}

# configure <dir> <cmake args...>: a Release build folder of this tree (its log beside it, shown on failure).
configure() {
  local dir=$1
  shift
  mkdir -p "$(dirname "$dir")"
  # KBENCH_CONFIGURE_PROFILE=1: CMake's trace of where the configure step's time goes, in <dir>.configure.trace.json
  local profile=()
  [ "${KBENCH_CONFIGURE_PROFILE:-0}" = 0 ] || profile=(--profiling-format=google-trace "--profiling-output=$dir.configure.trace.json")
  cmake -S "$KBENCH_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${compiler_cache_args[@]+"${compiler_cache_args[@]}"} \
    ${profile[@]+"${profile[@]}"} "$@" \
    > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
}

# configure_and_build <dir> <cmake args...>
configure_and_build() {
  configure "$@"
  cmake --build "$1" -j "$JOBS"
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

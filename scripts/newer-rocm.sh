#!/usr/bin/env bash
# kbench's AMD build against a newer ROCm than Debian 12's (HIP 5.2, which knows neither gfx942 nor
# gfx950): HIP 7.2 from Debian sid + experimental, in a chroot, for gfx942 (MI300) and gfx950 (MI355).
# Builds every kernel, test and example there, runs ctest (no GPU: the GPU tests report skipped) and checks
# that the programs hold code objects for both targets. Prints the versions used and the time of each step.
#   KBENCH_CHROOT  the chroot (default $KBENCH_BUILD/chroot-rocm7): made once, reused while it is complete
#   KBENCH_MIRROR  the Debian mirror (default: the host's, from /etc/apt)
# Needs root (debootstrap, chroot, mount). Exits 77 when it cannot run here, saying why; with
# KBENCH_NEWER_ROCM=1 that is a failure (1) instead.
#   scripts/newer-rocm.sh --prepare   only makes the chroot (network and disk; scripts/test.sh runs it
#                                     beside its first stages)
set -euo pipefail
source "$(dirname "$0")/common.sh"
prepare_only=0
case "${1:-}" in
  "") ;;
  --prepare) prepare_only=1 ;;
  *) echo "usage: scripts/newer-rocm.sh [--prepare]" >&2; exit 2 ;;
esac

targets="gfx942;gfx950"
chroot_dir=${KBENCH_CHROOT:-$KBENCH_BUILD/chroot-rocm7}
build_in=/build/amd-gfx942-gfx950  # the build folder, as the chroot sees it
build=$chroot_dir$build_in         # and as this machine sees it
src_in=/kbench                     # KBENCH_ROOT, bind-mounted read-only
marker=$chroot_dir/.kbench-complete
# What a complete chroot holds: when this changes, the chroot is made anew.
# kbench's packages, jsonschema for the results documents' schema tests, and roctx (ROCm's profiler
# annotations, which Debian 12 lacks), so that the census's profiler ranges are built with it here.
chroot_packages="$KBENCH_PACKAGES python3-jsonschema libroctx-dev"
recipe="sid + experimental (-t experimental): $(xargs <<< "$chroot_packages")"

cannot_run() {
  echo "newer ROCm: not run: $*"
  [ "${KBENCH_NEWER_ROCM:-}" != 1 ] || { echo "(KBENCH_NEWER_ROCM=1 asks for it, so this fails)"; exit 1; }
  exit 77
}

# The host's Debian mirror: the first archive that is not the security one.
host_mirror() {
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources
  elif [ -f /etc/apt/sources.list ]; then
    awk '$1 == "deb" && !/security/ {for (i = 2; i <= NF; ++i) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list
  fi
}

# ---- can it run here? ----------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || cannot_run "needs root (debootstrap, chroot and mount); this is $(id -un)"
mirror=${KBENCH_MIRROR:-$(host_mirror)}
mirror=${mirror:-http://deb.debian.org/debian}
if [ ! -f "$marker" ] || [ "$(cat "$marker")" != "$recipe" ]; then
  if ! command -v debootstrap >/dev/null; then
    command -v apt-get >/dev/null || cannot_run "no debootstrap, and no apt-get to install it"
    say "installing debootstrap"
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap; } \
      >/dev/null 2>&1 || cannot_run "no debootstrap, and apt-get could not install it"
  fi
  command -v curl >/dev/null && { curl -fsSI --max-time 30 "$mirror/dists/sid/Release" >/dev/null ||
    cannot_run "the Debian mirror $mirror does not serve sid (dists/sid/Release)"; }
fi

timings=()
step_started=0
begin() { step_started=$(date +%s); }
took() { timings+=("$(printf '%-12s %5d s' "$1" $(($(date +%s) - step_started)))"); }

# ---- mounts, undone on exit whatever happens; the seconds per step, printed then too --------------------
mounted=()
# shellcheck disable=SC2317  # run by the trap
on_exit() {
  local status=$? i
  for ((i = ${#mounted[@]} - 1; i >= 0; --i)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || echo "newer ROCm: could not unmount ${mounted[i]}" >&2
  done
  if [ ${#timings[@]} -gt 0 ]; then
    say "newer ROCm: ${versions:-}${versions:+; }seconds per step$([ "$status" -eq 0 ] || echo " (it failed: exit $status)"):"
    printf '  %s\n' "${timings[@]}"
  fi
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mount_at() {  # mount_at <mount point> <mount arguments...>
  local at=$1
  shift
  mkdir -p "$at"
  # A run killed with SIGKILL leaves its mounts: undo those first.
  while mountpoint -q "$at"; do umount "$at" || umount -l "$at"; done
  mount "$@" "$at"
  mounted+=("$at")
}
mounts_below() { awk -v d="$1/" 'index($2, d) == 1 {print $2}' /proc/self/mounts; }

# Runs a command in the chroot with a clean environment (the host's CMAKE_PREFIX_PATH, LD_LIBRARY_PATH and
# the like mean nothing there). hipcc asks rocm_agent_enumerator for targets when a compile names none
# (the host-only tests): without /dev/kfd, a target list answers it.
in_chroot() {
  chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive ROCM_TARGET_LST=/build/targets.lst "$@"
}

# ---- the chroot: sid, then HIP 7.2 and the other packages from experimental in one step ---------------
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$recipe" ]; then
  say "newer ROCm: reusing the chroot $chroot_dir"
  timings+=("$(printf '%-12s %7s' debootstrap reused)" "$(printf '%-12s %7s' install reused)")
else
  if [ -e "$chroot_dir" ]; then
    # Only a folder this script made (it leaves .kbench-chroot there first) is ever removed.
    [ -z "$(ls -A "$chroot_dir")" ] || [ -f "$chroot_dir/.kbench-chroot" ] ||
      { echo "newer ROCm: $chroot_dir exists and is not a chroot of this script: remove it or set KBENCH_CHROOT" >&2; exit 1; }
    for m in $(mounts_below "$chroot_dir" | sort -r); do umount "$m" || umount -l "$m"; done
    [ -z "$(mounts_below "$chroot_dir")" ] || { echo "newer ROCm: still mounted below $chroot_dir" >&2; exit 1; }
    say "newer ROCm: removing the incomplete or outdated chroot $chroot_dir"
    rm -rf "$chroot_dir"
  fi
  mkdir -p "$chroot_dir"
  touch "$chroot_dir/.kbench-chroot"
  say "newer ROCm: debootstrap --variant=minbase sid $chroot_dir $mirror"
  begin
  debootstrap --variant=minbase sid "$chroot_dir" "$mirror" > "$chroot_dir.debootstrap.log" 2>&1 ||
    { tail -n 30 "$chroot_dir.debootstrap.log"; echo "newer ROCm: debootstrap failed (log: $chroot_dir.debootstrap.log)" >&2; exit 1; }
  took debootstrap

  say "newer ROCm: installing HIP and kbench's dependencies from experimental"
  begin
  # The registry serves sid and experimental frozen, with Release files past their Valid-Until date.
  cat > "$chroot_dir/etc/apt/apt.conf.d/99kbench" <<'EOF'
Acquire::Check-Valid-Until "false";
Acquire::Languages "none";
APT::Install-Recommends "false";
EOF
  echo "deb $mirror sid main" > "$chroot_dir/etc/apt/sources.list"
  echo "deb $mirror experimental main" > "$chroot_dir/etc/apt/sources.list.d/experimental.list"
  cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
  mount_at "$chroot_dir/proc" -t proc proc
  # In one step: sid first and an upgrade afterwards would leave two clangs.
  # shellcheck disable=SC2086
  { in_chroot apt-get update -q && in_chroot apt-get install -y -q -t experimental $chroot_packages &&
      in_chroot apt-get clean; } > "$chroot_dir.install.log" 2>&1 ||
    { tail -n 30 "$chroot_dir.install.log"; echo "newer ROCm: apt-get failed in the chroot (log: $chroot_dir.install.log)" >&2; exit 1; }
  echo "$recipe" > "$marker"
  took install
fi

[ "$prepare_only" -eq 0 ] || exit 0

# ---- the versions ----------------------------------------------------------------------------------
hip_header=$chroot_dir/usr/include/hip/hip_version.h
[ -f "$hip_header" ] || { echo "newer ROCm: no hip/hip_version.h in the chroot" >&2; exit 1; }
hip_define() { sed -n "s/^#define $1 \([0-9]*\).*/\1/p" "$hip_header"; }
hip_version="$(hip_define HIP_VERSION_MAJOR).$(hip_define HIP_VERSION_MINOR).$(hip_define HIP_VERSION_PATCH)"
# HIP_VERSION itself is an expression of the three: MAJOR * 10000000 + MINOR * 100000 + PATCH.
hip_number=$(($(hip_define HIP_VERSION_MAJOR) * 10000000 + $(hip_define HIP_VERSION_MINOR) * 100000 + $(hip_define HIP_VERSION_PATCH)))
[ "$(hip_define HIP_VERSION_MAJOR)" -ge 7 ] ||
  { echo "newer ROCm: HIP $hip_version in the chroot, expected 7 (from experimental)" >&2; exit 1; }
mountpoint -q "$chroot_dir/proc" || mount_at "$chroot_dir/proc" -t proc proc
clang_version=$(in_chroot hipcc --version 2>&1 | grep -m1 -o 'clang version [^ ]*' || echo "clang: unknown")
versions="HIP $hip_version (HIP_VERSION $hip_number), $clang_version"
# shellcheck disable=SC2016  # dpkg-query's fields
versions+=", Catch2 $(in_chroot dpkg-query -W -f='${Version}' catch2), CLI11 $(in_chroot dpkg-query -W -f='${Version}' libcli11-dev)"
say "newer ROCm: $versions, GPU_TARGETS=$targets"
# shellcheck disable=SC2016  # dpkg-query's fields
in_chroot dpkg-query -W -f='  ${Package} ${Version}\n' hipcc libamdhip64-dev catch2 libcli11-dev libfmt-dev \
  libbenchmark-dev nlohmann-json3-dev libroctx-dev cmake

# ---- the build: KBENCH_ROOT read-only at /kbench, the build folder in the chroot -----------------------
mount_at "$chroot_dir$src_in" --bind "$KBENCH_ROOT"
mount -o remount,bind,ro "$chroot_dir$src_in"
mkdir -p "$build"
tr ';' '\n' <<< "$targets" > "$chroot_dir/build/targets.lst"

# Every header checked alone (other libraries than the host build's); the host-side unit tests at -O0, as
# in the AMD build of scripts/test.sh; kbench's own GPU self-tests only checked to compile (syntax only:
# they run only on a GPU, and stages 2 and 3 build them).
say "newer ROCm: configure (CXX=hipcc, GPU_TARGETS=$targets)"
begin
in_chroot env CXX=hipcc cmake -S "$src_in" -B "$build_in" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKBENCH_GPU_PLATFORM=amd "-DGPU_TARGETS=$targets" -DKBENCH_UNIT_TEST_OPTIONS=-O0 \
  -DKBENCH_SELF_TESTS=syntax > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
took configure

say "newer ROCm: build (every kernel, test and example, the self-tests syntax only; $JOBS jobs)"
begin
in_chroot cmake --build "$build_in" -j "$JOBS"
took build

say "newer ROCm: code objects for $targets in every kernel test and example"
begin
# hipcc embeds the device code as clang offload bundles (section .hip_fatbin, uncompressed with this
# toolchain), one per translation unit, each entry named by its target: hipv4-amdgcn-amd-amdhsa--gfx942.
# The toolchain's own reading of one kernel file's bundle first (rmsnorm_v2.hip, a source of its own: its
# test file holds no kernel), then every program's entries.
object=tests/CMakeFiles/rmsnorm_test.dir/__/kernels/rmsnorm/rmsnorm_v2.hip.o
bundler=$(printf '%s\n' "$chroot_dir"/usr/lib/llvm-*/bin/clang-offload-bundler | sort -V | tail -n 1)
in_chroot objcopy -O binary --only-section=.hip_fatbin "$build_in/$object" /build/fatbin.bundle
entries=$(in_chroot "${bundler#"$chroot_dir"}" --list --type=o --input=/build/fatbin.bundle | sort | paste -sd' ' -)
echo "  clang-offload-bundler --list, $object: $entries"
for t in ${targets//;/ }; do
  [[ " $entries " == *" hipv4-amdgcn-amd-amdhsa--$t "* ]] || { echo "newer ROCm: no $t entry in $object" >&2; exit 1; }
done
# (kbench_declaration_test is host code only.)
programs=$(find "$build/tests" "$build/examples" -maxdepth 1 -type f -executable \( -name '*_test' -o -name 'example_*' \) \
  ! -name kbench_declaration_test | sort)
[ -n "$programs" ] || { echo "newer ROCm: no kernel test or example was built" >&2; exit 1; }
lacking=0
for p in $programs; do
  found=$(grep -ao 'hipv4-amdgcn-amd-amdhsa--gfx[0-9a-f]*' "$p" | sed 's/.*--//' | sort | uniq -c |
          awk '{printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1}')
  printf '  %-38s %s\n' "${p#"$build"/}" "${found:-no code objects}"
  for t in ${targets//;/ }; do
    [[ "$found" == *"$t x"* ]] || { echo "  ${p#"$build"/}: no code object for $t"; lacking=1; }
  done
done
[ "$lacking" -eq 0 ] || { echo "newer ROCm: code objects missing" >&2; exit 1; }
echo "  $(wc -w <<< "$programs") programs, each with code objects for ${targets//;/ and }"
took code-objects

say "newer ROCm: ctest"
begin
# run_ctest (common.sh) runs `ctest --test-dir <this machine's path>` and reads its logs from there: here,
# ctest runs in the chroot, with the path as the chroot sees it.
# shellcheck disable=SC2317  # run by run_ctest
ctest() { in_chroot ctest "${@//"$chroot_dir"/}"; }
status=0
run_ctest "$build" || status=$?
took ctest
exit $status

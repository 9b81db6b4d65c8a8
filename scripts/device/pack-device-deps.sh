#!/usr/bin/env bash
# Packs the Debian packages kbench builds with (headers, CMake configs, libraries) into a folder that can
# travel to a GPU machine without a package registry (HIP's NVIDIA platform: CUDA there, HIP headers from
# here). rocRAND is left out: on NVIDIA, hipRAND's device API sits on cuRAND.
#
#   scripts/device/pack-device-deps.sh [.deps]   # then, there: cmake -DCMAKE_PREFIX_PATH=$PWD/.deps/usr ...
set -euo pipefail
dest=${1:-.deps}
packages="libamdhip64-dev libhiprand-dev catch2 libfmt-dev libfmt9 libbenchmark-dev libbenchmark1debian
          nlohmann-json3-dev libcli11-dev"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -q >/dev/null
chmod 777 "$tmp"
(cd "$tmp" && apt-get download $packages >/dev/null)
mkdir -p "$dest"
for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dest"; done
rm -rf "$dest/usr/share/doc" "$dest/usr/share/man"
echo "packed into $dest: $(du -sh "$dest" | cut -f1)"

#!/bin/sh
# Cross-builds a deploy program (the runtime, deploy/ and the command line) for aarch64 with
# Debian's cross toolchain. Usage: cross_build_aarch64.sh OUTPUT SOURCES_AND_HEADERS...
# Without the toolchain it writes a placeholder saying so (tests that use it then skip).
out="$1"; shift
if ! command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || [ ! -f /usr/include/dlpack/dlpack.h ] ||
   [ ! -f /usr/include/CLI/CLI.hpp ]; then
  printf 'SKIP: aarch64-linux-gnu-g++ (Debian g++-aarch64-linux-gnu) is not installed\n' > "$out"
  exit 0
fi
include=$(mktemp -d)
trap 'rm -rf "$include"' EXIT
# The header-only libraries come from the host (they are the same on every architecture);
# everything else from the cross sysroot.
mkdir -p "$include/dlpack" && cp /usr/include/dlpack/dlpack.h "$include/dlpack/"
cp -r /usr/include/CLI "$include/"
sources=""
for f in "$@"; do case "$f" in *.cc) sources="$sources $f";; esac; done
exec aarch64-linux-gnu-g++ -std=c++17 -Os -ffunction-sections -fdata-sections -I. -I"$include" \
  $sources -o "$out" -Wl,--gc-sections -Wl,--dynamic-list=deploy/kernel_exports.lds -ldl -lpthread

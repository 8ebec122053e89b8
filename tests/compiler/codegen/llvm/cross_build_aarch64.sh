#!/bin/sh
# Cross-builds the runtime and a kernel runner for aarch64 with Debian's cross toolchain.
# Usage: cross_build_aarch64.sh OUTPUT RUNNER_SOURCE RUNTIME_SOURCES...
# Without the toolchain it writes a placeholder that tells the test to skip.
out="$1"; runner="$2"; shift 2
if ! command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || [ ! -f /usr/include/dlpack/dlpack.h ]; then
  printf 'SKIP: aarch64-linux-gnu-g++ (Debian g++-aarch64-linux-gnu) is not installed\n' > "$out"
  exit 0
fi
include=$(mktemp -d)
trap 'rm -rf "$include"' EXIT
# Only dlpack comes from the host's headers; everything else from the cross sysroot.
mkdir -p "$include/dlpack" && cp /usr/include/dlpack/dlpack.h "$include/dlpack/"
sources=""
for f in "$@"; do case "$f" in *.cc) sources="$sources $f";; esac; done
exec aarch64-linux-gnu-g++ -std=c++17 -O1 -I. -I"$include" $sources "$runner" -o "$out" \
  -rdynamic -ldl -lpthread

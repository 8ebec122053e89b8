#!/bin/sh
# Cross-builds the XNNPACK anchor of //bench:arm_counts for aarch64 against Debian's arm64
# libXNNPACK (multiarch: libxnnpack-dev:arm64, libpthreadpool-dev:arm64, installed by
# tools/setup.sh). Without them OUT becomes a placeholder starting with "SKIP:" saying what is
# missing, so `bazel build //...` works everywhere and arm_counts says why it cannot count.
#   cross_anchor.sh OUT SOURCE
set -eu
out="$1"; src="$2"
arm64_libs=/usr/lib/aarch64-linux-gnu
missing=""
command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || missing="aarch64-linux-gnu-g++ (Debian g++-aarch64-linux-gnu)"
[ -n "$missing" ] || [ -f "$arm64_libs/libXNNPACK.so" ] || missing="the arm64 XNNPACK library (libxnnpack-dev:arm64)"
[ -n "$missing" ] || [ -f /usr/include/pthreadpool.h ] || missing="pthreadpool's header (libpthreadpool-dev:arm64)"
if [ -n "$missing" ]; then
  printf 'SKIP: %s is not installed\n' "$missing" > "$out"
  exit 0
fi
exec aarch64-linux-gnu-g++ -std=c++17 -O2 -Wall -Werror "$src" -o "$out" \
  -L"$arm64_libs" -Wl,-rpath-link,"$arm64_libs" -lXNNPACK

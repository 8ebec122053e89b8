#!/bin/sh
# Cross-builds the XNNPACK anchor of //bench:arm_counts for aarch64 against Debian's arm64
# libXNNPACK, which tools/setup.sh unpacks into /opt/tessera/xnnpack-arm64 (its runtime package
# cannot be installed beside the amd64 one python3-torch needs). Without them OUT becomes a
# placeholder starting with "SKIP:" saying what is missing, so `bazel build //...` works
# everywhere and arm_counts says why it cannot count.
#   cross_anchor.sh OUT SOURCE
set -eu
out="$1"; src="$2"
xnnpack=${TESSERA_XNNPACK_ARM64:-/opt/tessera/xnnpack-arm64}
libs="$xnnpack/usr/lib/aarch64-linux-gnu"
missing=""
command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || missing="aarch64-linux-gnu-g++ (Debian g++-aarch64-linux-gnu)"
[ -n "$missing" ] || [ -f "$libs/libXNNPACK.so" ] || missing="arm64 XNNPACK in $xnnpack (tools/setup.sh unpacks libxnnpack-dev:arm64 there)"
if [ -n "$missing" ]; then
  printf 'SKIP: %s is not installed\n' "$missing" > "$out"
  exit 0
fi
# The run-time path (DT_RPATH, which XNNPACK's own dependencies inherit) points at the unpacked
# libraries: the cross sysroot qemu runs the anchor in does not hold them.
exec aarch64-linux-gnu-g++ -std=c++17 -O2 -Wall -Werror -isystem "$xnnpack/usr/include" "$src" \
  -o "$out" -L"$libs" -Wl,--disable-new-dtags,-rpath,"$libs" -Wl,-rpath-link,"$libs" -lXNNPACK

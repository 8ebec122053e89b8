#!/bin/sh
# Cross-builds a deploy program (the runtime, deploy/ and the command line) for aarch64 with
# Debian's cross toolchain, twice from one compilation: linked against glibc (boards), and wholly
# static (phones: no program interpreter, no shared library; kernels load with the runtime's own
# loader, runtime/elf_loader.h).
# Usage: cross_build_aarch64.sh OUTPUT OUTPUT_STATIC SOURCES_AND_HEADERS...
# Without the toolchain it writes placeholders saying so (tests that use them then skip).
out="$1"; out_static="$2"; shift 2
if ! command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || [ ! -f /usr/include/dlpack/dlpack.h ] ||
   [ ! -f /usr/include/CLI/CLI.hpp ]; then
  for f in "$out" "$out_static"; do
    printf 'SKIP: aarch64-linux-gnu-g++ (Debian g++-aarch64-linux-gnu) is not installed\n' > "$f"
  done
  exit 0
fi
set -e
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The header-only libraries come from the host (they are the same on every architecture);
# everything else from the cross sysroot.
mkdir -p "$work/include/dlpack" && cp /usr/include/dlpack/dlpack.h "$work/include/dlpack/"
cp -r /usr/include/CLI "$work/include/"
sources=""
for f in "$@"; do case "$f" in *.cc) sources="$sources $f";; esac; done
objects=""
for f in $sources; do
  obj="$work/$(echo "$f" | tr / _).o"
  aarch64-linux-gnu-g++ -std=c++17 -Os -ffunction-sections -fdata-sections -I. \
    -I"$work/include" -c "$f" -o "$obj"
  objects="$objects $obj"
done
aarch64-linux-gnu-g++ $objects -o "$out" -Wl,--gc-sections \
  -Wl,--dynamic-list=deploy/kernel_exports.lds -ldl -lpthread
# glibc warns that its dlopen needs shared libraries at run time: the static runner never calls
# it for kernels (the runtime's own loader does), so the warning is shown only on failure.
log=$(aarch64-linux-gnu-g++ -static -s $objects -o "$out_static" -Wl,--gc-sections -lpthread 2>&1) ||
  { printf '%s\n' "$log" >&2; exit 1; }

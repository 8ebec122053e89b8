#!/bin/sh
# Cross-builds a deploy program (the runtime, deploy/ and the command line) with one of Debian's
# cross toolchains (aarch64-linux-gnu for 64-bit boards and phones, arm-linux-gnueabihf for
# 32-bit boards), twice from one compilation: linked against glibc (boards), and wholly static
# (phones: no program interpreter, no shared library; kernels load with the runtime's own
# loader, runtime/elf_loader.h).
# Usage: cross_build.sh TOOLCHAIN OUTPUT OUTPUT_STATIC SOURCES_AND_HEADERS...
# Without the toolchain it writes placeholders saying so (tests that use them then skip).
toolchain="$1"; out="$2"; out_static="$3"; shift 3
cxx="$toolchain-g++"
# armv7's compiler notes every std::vector iterator passed by value ("parameter passing ...
# changed in GCC 7.1"): an ABI remark about code built with GCC 6, not a warning.
quiet=""
[ "$toolchain" != arm-linux-gnueabihf ] || quiet="-Wno-psabi"
if ! command -v "$cxx" >/dev/null 2>&1 || [ ! -f /usr/include/dlpack/dlpack.h ] ||
   [ ! -f /usr/include/CLI/CLI.hpp ]; then
  for f in "$out" "$out_static"; do
    printf 'SKIP: %s (Debian g++-%s) is not installed\n' "$cxx" "$toolchain" > "$f"
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
  "$cxx" $quiet -std=c++17 -Os -ffunction-sections -fdata-sections -I. \
    -I"$work/include" -c "$f" -o "$obj"
  objects="$objects $obj"
done
"$cxx" $objects -o "$out" -Wl,--gc-sections \
  -Wl,--dynamic-list=deploy/kernel_exports.lds -ldl -lpthread
# glibc warns that its dlopen needs shared libraries at run time: the static runner never calls
# it for kernels (the runtime's own loader does), so the warning is shown only on failure.
log=$("$cxx" -static -s $objects -o "$out_static" -Wl,--gc-sections -lpthread 2>&1) ||
  { printf '%s\n' "$log" >&2; exit 1; }

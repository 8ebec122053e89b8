#!/bin/sh
# The actions of tools/cross.bzl: compile one file or link the binary with one of Debian's cross
# toolchains against the target's libraries.
#   cross_gcc.sh ARCH compile OUT SOURCE FLAGS...
#   cross_gcc.sh ARCH link OUT dynamic|static|full "PKG-CONFIG MODULES" OBJECTS...
# ARCH aarch64: aarch64-linux-gnu-g++ and Debian's arm64 libraries (multiarch, installed by
# tools/setup.sh). ARCH armv7: arm-linux-gnueabihf-g++ and Debian's armhf libraries, unpacked by
# tools/setup.sh into /opt/tessera/armhf (static libraries only: an armv7 board gets the mostly or
# wholly static programs).
# Without the toolchain or the libraries, OUT becomes a placeholder saying what is missing.
set -eu
arch="$1"; mode="$2"; out="$3"; shift 3
case "$arch" in
  aarch64)
    toolchain=aarch64-linux-gnu; sysroot=""; libs=/usr/lib/aarch64-linux-gnu
    debian_arch=arm64 ;;
  armv7)
    toolchain=arm-linux-gnueabihf; sysroot=/opt/tessera/armhf
    libs=$sysroot/usr/lib/arm-linux-gnueabihf; debian_arch=armhf ;;
  *) echo "cross_gcc.sh: unknown architecture '$arch'" >&2; exit 2 ;;
esac
cxx=$toolchain-g++
missing=""
command -v "$cxx" >/dev/null 2>&1 || missing="$cxx (Debian g++-$toolchain)"
[ -n "$missing" ] || [ -f "$libs/libgrpc++.a" ] ||
  missing="the $debian_arch gRPC libraries (libgrpc++-dev:$debian_arch; see tools/setup.sh)"
if [ -n "$missing" ]; then
  printf 'SKIP: %s is not installed\n' "$missing" > "$out"
  exit 0
fi
# Size matters on a board: sections per function, dropped when unused at link time.
common="-std=c++17 -O2 -fPIC -ffunction-sections -fdata-sections"
# armv7's compiler notes every std::vector iterator passed by value ("parameter passing ...
# changed in GCC 7.1"): an ABI remark about code built with GCC 6, not a warning.
[ "$arch" != armv7 ] || common="$common -Wno-psabi"

if [ "$mode" = compile ]; then
  src="$1"; shift
  # openssl's configuration.h and friends live in the multiarch include directory; an unpacked
  # sysroot's headers come before the host's.
  includes="-isystem /usr/include/$toolchain"
  [ -z "$sysroot" ] || includes="-isystem $sysroot/usr/include/$toolchain -isystem $sysroot/usr/include"
  exec "$cxx" $common $includes "$@" -c "$src" -o "$out"
fi

linkage="$1"; modules="$2"; shift 2
# Generated protobuf/gRPC code comes from the host's protoc and grpc_cpp_plugin: their versions
# must be the target libraries' versions.
version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null | sed 's/-[^-]*$//'; }
unpacked_version() { sed -n "s/^$1 //p" "$sysroot/versions" 2>/dev/null | sed 's/-[^-]*$//'; }
for pair in "protobuf-compiler libprotobuf-dev" "protobuf-compiler-grpc libgrpc++-dev"; do
  host=${pair% *}; lib=${pair#* }
  if [ -z "$sysroot" ]; then have=$(version "$lib:$debian_arch"); else have=$(unpacked_version "$lib"); fi
  if [ "$(version "$host")" != "$have" ]; then
    echo "error: $host $(version "$host") generates the code, but $lib:$debian_arch is $have: install matching versions" >&2
    exit 1
  fi
done
if [ -z "$sysroot" ]; then
  flags=$(PKG_CONFIG_PATH="$libs/pkgconfig" $toolchain-pkg-config --static --libs $modules)
else
  flags=$(PKG_CONFIG_LIBDIR="$libs/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$sysroot" \
    pkg-config --static --libs $modules)
  flags="-L$libs $flags"
fi
# The kernels a session loads call back into the runtime (TesseraBackend*): export those only.
exports="-Wl,--export-dynamic-symbol=Tessera*"
system="-ldl -lpthread -lm"
if [ "$linkage" = dynamic ]; then
  exec "$cxx" -s -Wl,--gc-sections $exports "$@" $flags $system -o "$out"
fi
# Wholly static, for phones (no glibc there): no program interpreter and no shared library. Such a
# program loads uploaded kernels with the runtime's own loader; glibc's name-service functions
# (getpwnam, getaddrinfo of names) find nothing in it, so addresses and users are given as
# numbers (gRPC resolves names with c-ares, not the name service).
# The linker's warnings about those functions are expected: shown only when the link fails.
if [ "$linkage" = full ]; then
  log=$("$cxx" -static -s -Wl,--gc-sections "$@" $flags $system -o "$out" 2>&1) ||
    { printf '%s\n' "$log" >&2; exit 1; }
  exit 0
fi
# Mostly static: everything but glibc is linked in; glibc stays dynamic because the server dlopens
# uploaded kernels, which a fully static glibc cannot do reliably.
static_flags=""
for f in $flags; do
  case "$f" in -ldl|-pthread|-lpthread|-lrt|-lm) ;; *) static_flags="$static_flags $f" ;; esac
done
exec "$cxx" -s -Wl,--gc-sections $exports -static-libstdc++ -static-libgcc "$@" \
  -Wl,-Bstatic $static_flags -Wl,-Bdynamic $system -o "$out"

#!/bin/sh
# The actions of tools/cross.bzl: compile one file or link the binary with Debian's aarch64 cross
# toolchain against Debian's arm64 libraries (multiarch, installed by tools/setup.sh).
#   aarch64_gcc.sh compile OUT SOURCE FLAGS...
#   aarch64_gcc.sh link OUT dynamic|static|full "PKG-CONFIG MODULES" OBJECTS...
# Without the toolchain or the libraries, OUT becomes a placeholder saying what is missing.
set -eu
mode="$1"; out="$2"; shift 2
arm64_libs=/usr/lib/aarch64-linux-gnu
missing=""
command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || missing="aarch64-linux-gnu-g++ (Debian g++-aarch64-linux-gnu)"
[ -n "$missing" ] || [ -f "$arm64_libs/libgrpc++.a" ] || missing="the arm64 gRPC libraries (libgrpc++-dev:arm64; see tools/setup.sh)"
if [ -n "$missing" ]; then
  printf 'SKIP: %s is not installed\n' "$missing" > "$out"
  exit 0
fi
# Size matters on a board: sections per function, dropped when unused at link time.
common="-std=c++17 -O2 -fPIC -ffunction-sections -fdata-sections"

if [ "$mode" = compile ]; then
  src="$1"; shift
  # openssl's configuration.h and friends live in the arm64 multiarch include directory.
  exec aarch64-linux-gnu-g++ $common -isystem /usr/include/aarch64-linux-gnu "$@" -c "$src" -o "$out"
fi

linkage="$1"; modules="$2"; shift 2
# Generated protobuf/gRPC code comes from the host's protoc and grpc_cpp_plugin: their versions
# must be the arm64 libraries' versions.
version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null | sed 's/-[^-]*$//'; }
for pair in "protobuf-compiler libprotobuf-dev:arm64" "protobuf-compiler-grpc libgrpc++-dev:arm64"; do
  host=${pair% *}; arm=${pair#* }
  if [ "$(version "$host")" != "$(version "$arm")" ]; then
    echo "error: $host $(version "$host") generates the code, but $arm is $(version "$arm"): install matching versions" >&2
    exit 1
  fi
done
flags=$(PKG_CONFIG_PATH="$arm64_libs/pkgconfig" aarch64-linux-gnu-pkg-config --static --libs $modules)
# The kernels a session loads call back into the runtime (TesseraBackend*): export those only.
exports="-Wl,--export-dynamic-symbol=Tessera*"
system="-ldl -lpthread -lm"
if [ "$linkage" = dynamic ]; then
  exec aarch64-linux-gnu-g++ -s -Wl,--gc-sections $exports "$@" $flags $system -o "$out"
fi
# Wholly static, for phones (no glibc there): no program interpreter and no shared library. Such a
# program loads uploaded kernels with the runtime's own loader; glibc's name-service functions
# (getpwnam, getaddrinfo of names) find nothing in it, so addresses and users are given as
# numbers (gRPC resolves names with c-ares, not the name service).
# The linker's warnings about those functions are expected: shown only when the link fails.
if [ "$linkage" = full ]; then
  log=$(aarch64-linux-gnu-g++ -static -s -Wl,--gc-sections "$@" $flags $system -o "$out" 2>&1) ||
    { printf '%s\n' "$log" >&2; exit 1; }
  exit 0
fi
# Mostly static: everything but glibc is linked in; glibc stays dynamic because the server dlopens
# uploaded kernels, which a fully static glibc cannot do reliably.
static_flags=""
for f in $flags; do
  case "$f" in -ldl|-pthread|-lpthread|-lrt|-lm) ;; *) static_flags="$static_flags $f" ;; esac
done
exec aarch64-linux-gnu-g++ -s -Wl,--gc-sections $exports -static-libstdc++ -static-libgcc "$@" \
  -Wl,-Bstatic $static_flags -Wl,-Bdynamic $system -o "$out"

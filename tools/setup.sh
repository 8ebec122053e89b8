#!/usr/bin/env bash
# Installs every Debian package Tessera needs. Idempotent: returns at once when all are present.
set -euo pipefail

PACKAGES=(
  # build
  bazel-bootstrap bazel-platforms bazel-skylib bazel-rules-java bazel-rules-proto
  g++ gcc make python3 pkg-config binutils file
  # libraries
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev libssl-dev
  libsqlite3-dev libpq-dev libxgboost-dev libdlpack-dev llvm-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  # the tracker's web dashboard and the reports' charts (Chart.js, compiled in; librsvg for PNG
  # curves), and the browser their tests draw them in; matplotlib for tessera.plot
  libcpp-httplib-dev libjs-chart.js librsvg2-dev chromium python3-matplotlib
  # cross compilation (aarch64; armv7 for 32-bit boards) and the emulators for tests
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf
  qemu-user
  # the aarch64 rpc_server's arm64 libraries (Debian multiarch; see README "Add a board")
  libgrpc++-dev:arm64 libprotobuf-dev:arm64 libssl-dev:arm64 pkgconf:arm64
  # benchmarks' baselines (the Arm one, arm64 XNNPACK, is unpacked below)
  libopenblas-dev libdnnl-dev libtorch-dev
  # models: ONNX import, and the tests' model generators and references
  libonnx-dev python3-onnx python3-numpy python3-torch python3-torchvision
  # the ONNX conformance cases (the quantized operators among them)
  libonnx-testdata
  # the Python package (python/): its extension module's headers, and its tests
  python3-dev pybind11-dev python3-pytest python3-venv python3-pip python3-setuptools python3-wheel
  # the PostgreSQL store: a real server in its tests and in the fleet benchmark
  postgresql
  # reading deploy/k8s in its test
  python3-yaml
  # TLS certificates in the fleet's tests
  openssl
  # formatting
  clang-format
  # sanitizers (tools/sanitizer_tests.sh)
  libasan8 libubsan1 libtsan2
)

# download_and_unpack DEST WHAT APT-GET...: runs the apt-get command line APT-GET... (a download
# of packages) in a temporary directory and unpacks every package it fetched into DEST, printing
# each one's "PACKAGE VERSION"; where the download fails, says that WHAT could not be downloaded.
download_and_unpack() {
  local dest=$1 what=$2 tmp deb
  shift 2
  tmp=$(mktemp -d)
  if (cd "$tmp" && "$@" >/dev/null 2>&1); then
    $SUDO mkdir -p "$dest"
    for deb in "$tmp"/*.deb; do
      $SUDO dpkg-deb -x "$deb" "$dest" || echo "setup: cannot unpack $deb" >&2
      dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb"
    done
  else
    echo "setup: could not download $what" >&2
  fi
  rm -rf "$tmp"
}

# The Arm anchor of //bench:arm_counts: Debian's arm64 XNNPACK, unpacked into its own directory
# rather than installed, because its runtime package cannot be installed for two architectures
# at once and python3-torch needs the amd64 one. bench/arm/cross_anchor.sh builds against it.
XNNPACK_ARM64=/opt/tessera/xnnpack-arm64
unpack_xnnpack_arm64() {
  [ -f "$XNNPACK_ARM64/usr/include/xnnpack.h" ] && return 0
  download_and_unpack "$XNNPACK_ARM64" "arm64 XNNPACK (//bench:arm_counts will say so)" \
    apt-get download -qq libxnnpack-dev:arm64 libxnnpack0:arm64 libpthreadpool-dev:arm64 \
    libpthreadpool0:arm64 libcpuinfo0:arm64 >/dev/null
}

# The armv7 servers' libraries: Debian's armhf gRPC, protobuf, abseil, OpenSSL, c-ares, re2, zlib
# (their static libraries and headers), downloaded with apt's armhf indexes kept in a directory of
# their own and unpacked into ARMHF_SYSROOT, so that the host's apt never gets a second foreign
# architecture to keep in step (only static libraries are linked: the armv7 servers are mostly
# and wholly static). tools/cross/cross_gcc.sh reads ARMHF_SYSROOT/versions to match the host's
# protoc and grpc_cpp_plugin.
ARMHF_SYSROOT=/opt/tessera/armhf
unpack_armhf_libs() {
  [ -f "$ARMHF_SYSROOT/versions" ] && return 0
  local lists versions
  lists=$(mktemp -d)
  mkdir -p "$lists/partial"
  local apt=(apt-get -o Dir::State::Lists="$lists" -o APT::Architecture=armhf
    -o APT::Architectures::=armhf -o Debug::NoLocking=1)
  "${apt[@]}" update -qq >/dev/null 2>&1 || true  # a missing index leaves the others usable
  versions=$(download_and_unpack "$ARMHF_SYSROOT" \
    "the armhf libraries (the armv7 servers will say so)" "${apt[@]}" download -qq \
    libgrpc++-dev libgrpc-dev libprotobuf-dev libabsl-dev libc-ares-dev libre2-dev zlib1g-dev \
    libssl-dev libupb-dev)
  # Written only after a download: without it the next setup tries again.
  [ -z "$versions" ] || printf '%s\n' "$versions" | $SUDO tee "$ARMHF_SYSROOT/versions" >/dev/null
  rm -rf "$lists"
}

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -eq 0 ]; then
  unpack_xnnpack_arm64
  unpack_armhf_libs
  exit 0
fi

echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Multiarch: the arm64 packages need the arm64 architecture next to the host's.
if printf '%s\n' "${missing[@]}" | grep -q ':arm64$' && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
unpack_xnnpack_arm64
unpack_armhf_libs
echo "setup: done" >&2

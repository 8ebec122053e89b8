#!/usr/bin/env bash
# Sets everything up (Debian packages only), builds, and runs the main job end to end.
set -euo pipefail
cd "$(dirname "$0")"

./tools/setup.sh
bazel build //runtime:libtessera_runtime.so //deploy:runtime_demo

work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== runtime: load a kernel library, run and time it, save and load parameters"
cc -O2 -shared -fPIC -I. -o "$work/saxpy.so" deploy/demo/saxpy.c
./bazel-bin/deploy/runtime_demo "$work/saxpy.so" "$work"
size=$(strip -o "$work/rt.so" bazel-bin/runtime/libtessera_runtime.so && stat -c %s "$work/rt.so")
echo "stripped runtime library: $size bytes"

#!/usr/bin/env bash
# Checks that the stripped runtime shared library stays under 300 KB.
set -euo pipefail
lib=runtime/libtessera_runtime.so
stripped="${TEST_TMPDIR:-/tmp}/libtessera_runtime.stripped.so"
strip -o "$stripped" "$lib"
size=$(stat -c %s "$stripped")
limit=$((300 * 1024))
echo "stripped runtime: $size bytes (limit $limit)"
if [ "$size" -ge "$limit" ]; then
  echo "FAIL: the runtime grew past 300 KB"
  exit 1
fi
# It must not depend on the compiler, gRPC, protobuf or LLVM.
if ldd "$lib" | grep -E 'LLVM|grpc|protobuf' ; then
  echo "FAIL: the runtime links a forbidden library"
  exit 1
fi

#!/bin/sh
# The device server must stay small and portable, and the tracker stores records without ever
# building: each links protobuf/gRPC and OpenSSL, never the compiler's LLVM or XGBoost.
server="$1"
test -x "$server" || { echo "no binary at '$server'"; exit 1; }
libraries=$(ldd "$server") || { echo "ldd failed on $server"; exit 1; }
for forbidden in libLLVM libxgboost libclang; do
  if echo "$libraries" | grep -q "$forbidden"; then
    echo "$(basename "$server") links $forbidden:"; echo "$libraries" | grep "$forbidden"; exit 1
  fi
done
echo "$libraries" | grep -q libgrpc++ || { echo "expected libgrpc++ in:"; echo "$libraries"; exit 1; }
echo "ok: no compiler libraries in $server"

#!/usr/bin/env bash
# Every program answers --version with its name, the release and the file formats it reads and
# writes, and exits 0 (even where other flags are required).
set -uo pipefail
. tests/testing/checks.sh
version=$(sed -n 's/^constexpr const char\* kTesseraVersion = "\(.*\)";$/\1/p' common/version.h)
check "common/version.h names a release" test -n "$version"

expect_version() {  # expect_version PROGRAM PATTERN
  local out
  out=$("$1" --version 2>&1)
  check "$(basename "$1") --version exits 0" test $? -eq 0
  check "$(basename "$1") --version says '$2'" grep -qx -- "$2" <<<"$out"
}
expect_version cli/tessera \
  "tessera $version (writes artifact format [0-9]*, [0-9]* with batch buckets, tuning log schema [0-9]*)"
expect_version tracker/tessera-tracker "tessera-tracker $version (keeps tuning log schema [0-9]*)"
expect_version rpc_server/tessera-rpc-server \
  "tessera-rpc-server $version (runs artifact formats 1 to [0-9]*)"
expect_version deploy/tessera-run "tessera-run $version (reads artifact formats 1 to [0-9]*)"

checks_done

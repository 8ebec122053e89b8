#!/usr/bin/env bash
# `tessera fleet status` without a tracker: exit statuses of the error policy (the command against
# a live tracker is tested in tests/integration/tracker_test.cc).
set -uo pipefail
tessera=cli/tessera
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

# Port 1 on loopback: nothing listens, so the tracker is unreachable (a fleet error).
err=$($tessera fleet status --tracker 127.0.0.1:1 2>&1); rc=$?
check "unreachable tracker exits 1" test $rc -eq 1
check "unreachable tracker is named" grep -q "^error: .*127.0.0.1:1" <<<"$err"
err=$($tessera fleet status --tracker nohost 2>&1); rc=$?
check "malformed address exits 2" test $rc -eq 2
check "malformed address is named" grep -q "\-\-tracker: expected HOST:PORT, got 'nohost'" <<<"$err"
err=$($tessera fleet status --tracker 127.0.0.1:1 --token-file /nonexistent/token 2>&1); rc=$?
check "unreadable token file exits 2" test $rc -eq 2
check "unreadable token file is named" grep -q "token file '/nonexistent/token': cannot read file" <<<"$err"
err=$($tessera fleet 2>&1); rc=$?
check "fleet without a verb exits 2" test $rc -eq 2
out=$($tessera fleet status --help); rc=$?
check "--help exits 0" test $rc -eq 0
check "--help lists --tracker" grep -q "\-\-tracker TEXT:HOST:PORT REQUIRED" <<<"$out"

echo "$failures failures"
exit $((failures > 0))

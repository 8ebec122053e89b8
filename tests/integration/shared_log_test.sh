#!/usr/bin/env bash
# End to end through a live tracker on loopback: `tessera log push` uploads a tuned local log into
# the tracker's shared log (again: duplicates skipped; a bad record: nothing pushed), `tessera log
# best|list|stats|export --tracker` print exactly what `--db` prints, `tessera compile --db
# tracker://` builds with the pushed record, the token is required, and the log survives a restart.
set -uo pipefail
tessera=$1 tracker_binary=$2 helper=$3 make_models=$4
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/shared-log-test.XXXXXX")
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
. "$helper"
DAEMON_PIDS=$dir/pids
trap daemon_stop_all EXIT
echo "s3cret-token-of-the-test" >"$dir/token"
echo "forged" >"$dir/forged"
echo "r3ad-only-token-of-the-test" >"$dir/read_token"
start_tracker() {
  daemon_start "$dir/tracker.log" "$tracker_binary" --listen 127.0.0.1:0 --state "$dir/state" \
    --token-file "$dir/token" --read-token-file "$dir/read_token" || exit 1
}
tracker=$(start_tracker)
auth=(--tracker "$tracker" --token-file "$dir/token")

# Real records: a few trials of the model's one template task, measured on this machine.
/usr/bin/python3 "$make_models" "$dir" || exit 1
model="$dir/flatten_gemm_softmax.onnx"
task='dense.x86(2,10,32,float32)'
$tessera tune --task "$task" --target llvm --db "$dir/local.db" --trials 4 --tuner random \
  >/dev/null 2>&1 || { echo "FAIL: tune"; exit 1; }

out=$($tessera log push --db "$dir/local.db" "${auth[@]}")
check "push imports every record" grep -qx "imported 4 records into tracker://$tracker (0 already present)" <<<"$out"
out=$($tessera log push --db "$dir/local.db" "${auth[@]}")
check "push again skips duplicates" grep -qx "imported 0 records into tracker://$tracker (4 already present)" <<<"$out"

for verb in "best" "best --json" "list" "list --json" "list --limit 2" "stats" "stats --json" \
  "export" "best --task $task --target llvm"; do
  # shellcheck disable=SC2086
  local_out=$($tessera log $verb --db "$dir/local.db" 2>&1)
  # shellcheck disable=SC2086
  shared_out=$($tessera log $verb "${auth[@]}" 2>&1)
  check "log $verb: same output from the tracker" test "$local_out" == "$shared_out"
  check "log $verb: not empty" test -n "$shared_out"
done
$tessera log export "${auth[@]}" --file "$dir/export.jsonl" 2>/dev/null
check "export --file writes every record" test "$(wc -l <"$dir/export.jsonl")" -eq 4

err=$($tessera log best --tracker "$tracker" --task 'dense.x86(1,1,1,float32)' --token-file "$dir/token" 2>&1); rc=$?
check "best without a record exits 1" test $rc -eq 1
check "best without a record names the tracker" grep -q "no records for dense.x86(1,1,1,float32) in tracker://$tracker" <<<"$err"

for verb in best list stats export; do
  err=$($tessera log $verb --tracker "$tracker" 2>&1); rc=$?
  check "log $verb without the token: exit 1" test $rc -eq 1
  check "log $verb without the token: says so" grep -q "missing token" <<<"$err"
  err=$($tessera log $verb --tracker "$tracker" --token-file "$dir/forged" 2>&1); rc=$?
  check "log $verb with a forged token: exit 1" test $rc -eq 1
  check "log $verb with a forged token: says so" grep -q "wrong token" <<<"$err"
done
err=$($tessera log push --db "$dir/local.db" --tracker "$tracker" --token-file "$dir/forged" 2>&1); rc=$?
check "push with a forged token: exit 1" test $rc -eq 1
check "push with a forged token: says so" grep -q "wrong token" <<<"$err"

# A record no build could use: nothing of that log goes up.
cat >"$dir/bad.jsonl" <<'JSON'
{"workload_key":"dense.x86(8,8,8,float32)","target":"llvm","device_key":"local","config_index":"1","costs":[0.001],"timestamp":1700000000}
{"workload_key":"dense.x86(8,8,8,float32)","target":"llvm","device_key":"local","config_index":"2","costs":[-0.5],"timestamp":1700000001}
JSON
$tessera log import --db "$dir/bad.db" --file "$dir/bad.jsonl" >/dev/null
err=$($tessera log push --db "$dir/bad.db" "${auth[@]}" 2>&1); rc=$?
check "push of a bad record: exit 2" test $rc -eq 2
check "push of a bad record: names it" grep -q "record 2 (dense.x86(8,8,8,float32)): costs\[0\] is -0.500000.*nothing was pushed" <<<"$err"
out=$($tessera log stats "${auth[@]}")
check "push of a bad record: nothing written" grep -q "^dense.x86(2,10,32,float32)  \[llvm\]  4 records, " <<<"$out"
check "push of a bad record: no new workload" test "$(wc -l <<<"$out")" -eq 1

err=$($tessera log best --db "$dir/local.db" --tracker "$tracker" 2>&1); rc=$?
check "--db and --tracker together: exit 2" test $rc -eq 2

out=$($tessera compile "$model" --target llvm --db "tracker://$tracker" --token-file "$dir/token" -o "$dir/shared" 2>&1)
check "compile through the tracker uses the pushed record" grep -q "coverage: tuned 1/1 tasks" <<<"$out"
out=$($tessera compile "$model" --target llvm -o "$dir/untuned" 2>&1)
check "compile without records falls back" grep -q "coverage: tuned 0/1 tasks" <<<"$out"
err=$($tessera compile "$model" --target llvm --db "tracker://$tracker" --token-file "$dir/forged" -o "$dir/forged-out" 2>&1); rc=$?
check "compile through the tracker with a forged token: exit 1" test $rc -eq 1
check "compile through the tracker with a forged token: says so" grep -q "wrong token" <<<"$err"

# The read-only token (a CI build's): queries, the fleet status and builds, but no push.
read_auth=(--tracker "$tracker" --token-file "$dir/read_token")
out=$($tessera log stats "${read_auth[@]}")
check "the read-only token reads the log" grep -q "^dense.x86(2,10,32,float32)  \[llvm\]  4 records, " <<<"$out"
out=$($tessera compile "$model" --target llvm --db "tracker://$tracker" --token-file "$dir/read_token" \
  --min-coverage 100 -o "$dir/ci.tsr" 2>&1)
check "a CI build with the read-only token uses the records" grep -q "coverage: tuned 1/1 tasks" <<<"$out"
$tessera fleet status "${read_auth[@]}" >/dev/null 2>&1; rc=$?
check "the read-only token reads the fleet status" test $rc -eq 0
err=$($tessera log push --db "$dir/local.db" "${read_auth[@]}" 2>&1); rc=$?
check "push with the read-only token: exit 1" test $rc -eq 1
check "push with the read-only token: says why" grep -q "the read-only token reads the shared log and the fleet status only" <<<"$err"

# The shared log lives in --state: a restarted tracker serves the same records.
daemon_stop_all
tracker=$(start_tracker)
out=$($tessera log stats --tracker "$tracker" --token-file "$dir/token")
check "records survive a tracker restart" grep -q "^dense.x86(2,10,32,float32)  \[llvm\]  4 records, " <<<"$out"

echo "$failures failed"
[ "$failures" -eq 0 ]

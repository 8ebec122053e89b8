#!/usr/bin/env bash
# End to end: `tessera tune` tunes a small dense, records it in the log, resumes, and rejects bad
# input with clear errors.
set -uo pipefail
tessera=cli/tessera
dir="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
task='dense.x86(16,32,8,float32)'
common=(--task "$task" --target llvm --db "$dir/t.db" --number 2 --repeat 2 --batch 4)

out=$($tessera tune "${common[@]}" --trials 8 --tuner random 2>"$dir/progress"); rc=$?
check "tune exits 0" test $rc -eq 0
check "summary line" grep -q "^tuned dense.x86(16,32,8,float32) \[llvm\]: 8 trials (0 failed, 0 resumed)" <<<"$out"
check "summary has GFLOP/s and the config" grep -q "GFLOP/s (.* ms) \[tile_y=sp" <<<"$out"
check "progress bar" grep -q "\[8/8\] best .* GFLOP/s, 0 failed" "$dir/progress"
check "records in the log" grep -q "8 records, 0 failed" <<<"$($tessera log stats --db "$dir/t.db")"

out=$($tessera tune "${common[@]}" --trials 4 --tuner xgb --json 2>/dev/null)
check "resume counts earlier records" grep -q '"trials":4,"failures":0,"resumed":8' <<<"$out"
check "resumed run adds records" grep -q "12 records" <<<"$($tessera log stats --db "$dir/t.db")"

err=$($tessera tune --task 'dense.x86(16,32,float32)' --target llvm --db "$dir/t.db" 2>&1); rc=$?
check "bad task exits 2" test $rc -eq 2
check "bad task names the workload" grep -q "workload 'dense.x86(16,32,float32)': dense.x86 takes (M,N,K,float32)" <<<"$err"
err=$($tessera tune "${common[@]}" --tuner annealing 2>&1); rc=$?
check "bad tuner exits 2" test $rc -eq 2
check "bad tuner lists tuners" grep -q "unknown tuner 'annealing' (expected xgb, ga, random or grid)" <<<"$err"
err=$($tessera tune --task "$task" --target 'llvm -mcpu=nosuchcpu' --db "$dir/t.db" --trials 2 2>&1); rc=$?
check "unknown cpu exits 2" test $rc -eq 2
check "unknown cpu is named" grep -q "error: .*nosuchcpu" <<<"$err"
check "unknown cpu fails before tuning starts" bash -c '! grep -q "^tuning " <<<"$1"' _ "$err"
err=$($tessera tune "${common[@]}" --time-budget -1 2>&1); rc=$?
check "negative time budget exits 2" test $rc -eq 2
check "time budget must be seconds" grep -q "\-\-time-budget must be a positive number of seconds, got '-1'" <<<"$err"
err=$($tessera tune --task "$task" --target 'llvm -foo' --db "$dir/t.db" --trials 2 2>&1); rc=$?
check "malformed target exits 2" test $rc -eq 2
err=$($tessera tune "${common[@]}" --rpc-tracker 127.0.0.1:9 2>&1); rc=$?
check "rpc tracker without key exits 2" test $rc -eq 2
check "rpc flags go together" grep -q "\-\-rpc-tracker HOST:PORT and \-\-rpc-key KEY go together" <<<"$err"
err=$($tessera tune --task "$task" 2>&1); rc=$?
check "usage without --db" grep -q "usage: tessera tune" <<<"$err"

echo "$failures failures"
exit $((failures > 0))

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
check "a template of the target's own family gets no note" bash -c '! grep -q "^note: model builds" "$1"' _ "$dir/progress"

# The Arm twin of a template tuned for this x86 machine: tuned, with a note that model builds for
# the target run the x86 one (its records configure none of them).
$tessera tune --task 'dense.arm(16,32,8,float32)' --target llvm --db "$dir/twin.db" --trials 2 \
  --tuner random --number 1 --repeat 1 >/dev/null 2>"$dir/twin"; rc=$?
check "another family's template tunes" test $rc -eq 0
check "another family's template is noted with the twin to tune" grep -q "^note: model builds for 'llvm' run dense.x86, not dense.arm: these records configure no model build for it (tune 'dense.x86(16,32,8,float32)' for one)" "$dir/twin"

out=$($tessera tune "${common[@]}" --trials 4 --tuner xgb --json 2>/dev/null)
check "resume counts earlier records" grep -q '"trials":4,"failures":0,"resumed":8' <<<"$out"
check "resumed run adds records" grep -q "12 records" <<<"$($tessera log stats --db "$dir/t.db")"

err=$($tessera tune --task 'dense.x86(16,32,float32)' --target llvm --db "$dir/t.db" 2>&1); rc=$?
check "bad task exits 2" test $rc -eq 2
check "bad task names the workload" grep -q "workload 'dense.x86(16,32,float32)': dense.x86 takes (M,N,K,float32)" <<<"$err"
err=$($tessera tune "${common[@]}" --tuner annealing 2>&1); rc=$?
check "bad tuner exits 2" test $rc -eq 2
check "bad tuner lists tuners" grep -q "\-\-tuner: annealing not in {xgb,ga,random,grid}" <<<"$err"
err=$($tessera tune --task "$task" --target 'llvm -mcpu=nosuchcpu' --db "$dir/t.db" --trials 2 2>&1); rc=$?
check "unknown cpu exits 2" test $rc -eq 2
check "unknown cpu is named" grep -q "error: .*nosuchcpu" <<<"$err"
check "unknown cpu fails before tuning starts" bash -c '! grep -q "^tuning " <<<"$1"' _ "$err"
err=$($tessera tune "${common[@]}" --time-budget -1 2>&1); rc=$?
check "negative time budget exits 2" test $rc -eq 2
check "time budget must not be negative" grep -q "\-\-time-budget: must not be negative, got .-1." <<<"$err"
err=$($tessera tune --task "$task" --target 'llvm -foo' --db "$dir/t.db" --trials 2 2>&1); rc=$?
check "malformed target exits 2" test $rc -eq 2
# A foreign architecture without a fleet: refused before anything is built or recorded.
foreign='llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72'
[ "$(uname -m)" = aarch64 ] && foreign='llvm -mtriple=x86_64-linux-gnu'
err=$($tessera tune --task "$task" --target "$foreign" --db "$dir/foreign.db" --trials 4 2>&1); rc=$?
check "foreign arch without a tracker exits 2" test $rc -eq 2
check "foreign arch names both architectures" grep -q "builds code for .*, which this $(uname -m) machine cannot run" <<<"$err"
check "foreign arch says how to measure on a board" grep -q "\-\-rpc-tracker HOST:PORT --rpc-key KEY" <<<"$err"
check "foreign arch builds nothing" bash -c '! grep -q "^tuning \|cannot load module" <<<"$1"' _ "$err"
check "foreign arch records nothing" test ! -s "$dir/foreign.db"
echo 'x' > "$dir/foreign.onnx"
err=$($tessera tune "$dir/foreign.onnx" --target "$foreign" --db "$dir/foreign.db" 2>&1); rc=$?
check "foreign arch refuses a model before reading it" grep -q "builds code for" <<<"$err"
err=$($tessera tune "${common[@]}" --rpc-tracker 127.0.0.1:9 2>&1); rc=$?
check "rpc tracker without key exits 2" test $rc -eq 2
check "rpc flags go together" grep -q "\-\-rpc-tracker HOST:PORT and \-\-rpc-key KEY go together" <<<"$err"
err=$($tessera tune --task "$task" 2>&1); rc=$?
check "missing --target exits 2" test $rc -eq 2
check "missing --target is named" grep -q "\-\-target is required" <<<"$err"
out=$($tessera tune --help); rc=$?
check "--help exits 0" test $rc -eq 0
check "--help lists --features" grep -q "\-\-features TEXT:{knob,loop}=knob" <<<"$out"

# --features loop was documented but refused as an unknown flag; it is a real flag now.
out=$($tessera tune "${common[@]}" --trials 2 --tuner xgb --features loop --json 2>/dev/null); rc=$?
check "--features loop is accepted" test $rc -eq 0
check "--features loop tunes" grep -q '"trials":2,"failures":0' <<<"$out"
err=$($tessera tune "${common[@]}" --features quantum 2>&1); rc=$?
check "unknown feature kind exits 2" test $rc -eq 2
err=$($tessera tune "${common[@]}" --frobnicate 2>&1); rc=$?
check "unknown flag exits 2" test $rc -eq 2
check "unknown flag is named" grep -q "not expected: \-\-frobnicate" <<<"$err"

# A run whose every trial fails (builds cut off at once) ends with status 1, not an error.
out=$($tessera tune --task "$task" --target llvm --db "$dir/fail.db" --trials 2 --tuner random \
  --build-timeout 0.001 2>/dev/null); rc=$?
check "every trial failed exits 1" test $rc -eq 1
check "every trial failed says so" grep -q "best none (every trial failed)" <<<"$out"

# The templates a newcomer can tune, with their workload keys.
out=$($tessera tasks); rc=$?
check "tasks exits 0" test $rc -eq 0
check "tasks lists dense with its key format" grep -q "^dense.x86 .*dense.x86(M,N,K,float32)$" <<<"$out"
check "tasks lists conv2d" grep -q "conv2d_NCHWc.x86(N,C,H,W,K,R,S,stride,pad,float32)" <<<"$out"
# Every name has its own column, the longest too (depthwise_conv2d_NCHWc.x86).
check "tasks lists Winograd, name apart from key" \
  grep -qE "^conv2d_winograd_NCHWc.x86  +conv2d_winograd_NCHWc.x86\\(N,C,H,W,K,pad,float32\\)$" <<<"$out"
out=$($tessera tasks --json)
check "tasks --json" grep -q '^{"template":"dense.x86","workload_key":"dense.x86(M,N,K,float32)"}$' <<<"$out"

err=$($tessera 2>&1); rc=$?
check "no subcommand exits 2" test $rc -eq 2
err=$($tessera frobnicate 2>&1); rc=$?
check "unknown subcommand exits 2" test $rc -eq 2

echo "$failures failures"
exit $((failures > 0))

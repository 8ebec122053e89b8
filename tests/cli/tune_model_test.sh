#!/usr/bin/env bash
# End to end: `tessera tune model.onnx` tunes every task of a tiny CNN under one budget, names each
# task in its summary, and a second run of the same command measures nothing new.
set -uo pipefail
tessera=cli/tessera
dir="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
/usr/bin/python3 tests/cli/make_tune_model.py "$dir/tiny" || exit 1
common=("$dir/tiny.onnx" --target llvm --db "$dir/t.db" --batch 2 --tuner random --number 2
        --repeat 2)
records() {  # records in the log, all workloads
  $tessera log stats --db "$dir/t.db" | grep -o "[0-9]* records" | awk '{n += $1} END {print n}'
}

out=$($tessera tune "${common[@]}" --trials 10 2>"$dir/progress"); rc=$?
check "tune exits 0" test $rc -eq 0
echo "$out"
# Three convolution workloads (two calls share one) and the dense.
for key in 'conv2d_NCHWc.x86(1,4,8,8,8,3,3,1,1,float32) x1' \
           'conv2d_NCHWc.x86(1,8,8,8,8,3,3,1,1,float32) x2' \
           'conv2d_NCHWc.x86(1,8,8,8,8,3,3,2,1,float32) x1' 'dense.x86(1,10,128,float32) x1'; do
  check "summary names $key with trials and a best" \
    grep -qF "  $key: " <<<"$out"
done
check "every task has records and a best" bash -c '! grep -E "^  .*(: 0 trials|best -)" <<<"$1"' _ "$out"
check "summary line" grep -q "^tuned .*tiny.onnx \[llvm\]: 4 tasks, 10 trials measured in .*; estimated latency of the tunable part .* ms (4/4 tasks measured)" <<<"$out"
check "progress line" grep -q "\[10/10\] task ./4 .*, estimated .* ms (4/4 tasks measured)" "$dir/progress"
check "10 records in the log" test "$(records)" -eq 10

out=$($tessera tune "${common[@]}" --trials 10 --json 2>/dev/null); rc=$?
check "second run exits 0" test $rc -eq 0
check "second run measures nothing" grep -q '"measured":0,' <<<"$out"
check "still 10 records" test "$(records)" -eq 10

out=$($tessera tune "${common[@]}" --trials 12 2>/dev/null)
check "a larger budget measures the difference" grep -q "4 tasks, 2 trials measured" <<<"$out"

out=$($tessera compile "$dir/tiny.onnx" --target llvm --db "$dir/t.db" -o "$dir/built" 2>&1)
check "the build uses every task's records" grep -q "coverage: tuned 4/4 tasks, 100.0%" <<<"$out"

err=$($tessera tune "${common[@]}" --trials 2 --task 'dense.x86(1,10,128,float32)' 2>&1); rc=$?
check "model and --task together exit 2" test $rc -eq 2
check "and say why" grep -q "either a model .* or --task" <<<"$err"
echo "$failures failure(s)"
exit $((failures > 0))

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
records() {  # task records in the log, all workloads (the check's, measured in the model, apart)
  $tessera log export --db "$dir/t.db" | grep -c '"in_model":false'
}

out=$($tessera tune "${common[@]}" --trials 12 --curve "$dir/curve.csv" 2>"$dir/progress"); rc=$?
check "tune exits 0" test $rc -eq 0
echo "$out"
# Three convolution workloads (two calls share one), the Winograd alternatives of the two of
# stride 1, and the dense.
for key in 'conv2d_NCHWc.x86(1,4,8,8,8,3,3,1,1,float32) x1' \
           'conv2d_NCHWc.x86(1,8,8,8,8,3,3,1,1,float32) x2' \
           'conv2d_NCHWc.x86(1,8,8,8,8,3,3,2,1,float32) x1' 'dense.x86(1,10,128,float32) x1' \
           'conv2d_winograd_NCHWc.x86(1,4,8,8,8,1,float32) x1' \
           'conv2d_winograd_NCHWc.x86(1,8,8,8,8,1,float32) x2'; do
  check "summary names $key with trials and a best" \
    grep -qF "  $key: " <<<"$out"
done
check "every task has records and a best" bash -c '! grep -E "^  .*(: 0 trials|best -)" <<<"$1"' _ "$out"
check "summary line" grep -q "^tuned .*tiny.onnx \[llvm\]: 6 tasks, 12 trials measured in .*; estimated latency of the tunable part .* ms (6/6 tasks measured)" <<<"$out"
check "progress line" grep -q "\[12/12\] task ./6 .*, estimated .* ms (6/6 tasks measured)" "$dir/progress"
check "12 records in the log" test "$(records)" -eq 12
# The end-of-tuning check: both builds run, the estimate set against the measured kernels.
check "the check compares the builds" \
  grep -qE "^check: tuned build [0-9.e+-]+ ms, untuned [0-9.e+-]+ ms \(tuned/untuned [0-9.e+-]+x\) at [0-9]+ threads?$" <<<"$out"
check "the check sets the estimate against the kernels" \
  grep -qE "^check: template kernels [0-9.e+-]+ ms per run in the tuned build, estimate [0-9.e+-]+ ms \(measured [+-][0-9]+%\)" <<<"$out"
check "the check is announced" grep -q "checking: building .*tiny.onnx with the records and without" "$dir/progress"
check "curve header" test "$(head -1 "$dir/curve.csv")" = "seconds,trials,estimated_ms,measured_tasks"
check "curve ends at 12 trials, 6 tasks measured" grep -qE "^[0-9.]+,12,[0-9.e+-]+,6$" <(tail -1 "$dir/curve.csv")

# A budget too small for every task: the estimate is set against the measured tasks' kernels.
out=$($tessera tune "$dir/tiny.onnx" --target llvm --db "$dir/partial.db" --batch 2 --tuner random \
  --number 2 --repeat 2 --trials 2 2>"$dir/partial.err"); rc=$?
check "a partial run exits 0" test $rc -eq 0
check "a partial run names the tasks the budget left without a record" \
  grep -qE "^note: 5 of the 6 tasks have no record: the budget of 2 trials \(earlier records count\) ran out first; .* --trials 12 measures each at least once$" "$dir/partial.err"
check "the check leaves out the kernels of tasks without a record" \
  grep -qE "^check: template kernels [0-9.e+-]+ ms per run in the tuned build, [0-9.e+-]+ ms of them of the tasks the estimate counts \([0-9]+ kernels of tasks without a record left out\), estimate [0-9.e+-]+ ms \(measured [+-][0-9]+%\)" <<<"$out"

out=$($tessera tune "${common[@]}" --trials 12 --json 2>/dev/null); rc=$?
check "second run exits 0" test $rc -eq 0
check "second run measures nothing" grep -q '"measured":0,' <<<"$out"
check "the check as a second JSON object" grep -q '^{"check":{.*"kernels":\[{' <<<"$out"
check "still 12 records" test "$(records)" -eq 12

# A record promising far more than the kernel does in the model (1 ns for the dense) is named.
cp "$dir/t.db" "$dir/promise.db"
$tessera log export --db "$dir/t.db" --task 'dense.x86(1,10,128,float32)' | head -1 |
  /usr/bin/python3 -c 'import json, sys
r = json.loads(sys.stdin.readline()); r["costs"] = [1e-9, 1e-9]; r["timestamp"] += 1
print(json.dumps(r))' >"$dir/promise.jsonl"
$tessera log import --db "$dir/promise.db" --file "$dir/promise.jsonl" >/dev/null
out=$($tessera tune "$dir/tiny.onnx" --target llvm --db "$dir/promise.db" --batch 2 --tuner random \
  --number 2 --repeat 2 --trials 12 2>/dev/null); rc=$?
check "a run with a false promise exits 0" test $rc -eq 0
check "the check names the kernel slower than its record" grep -qE \
  "^check: slower in the model than its record: .* dense.x86\(1,10,128,float32\): [0-9.e+-]+ ms per run, record 1e-06 ms$" \
  <<<"$out"

# The faster choice is kept: the slowest config measured for a convolution (the grid's first
# configs have blocks of one or two channels, several times slower than the untuned config),
# given a record of 1 ns, runs slower in the model than the untuned build's config, so the check
# writes both as measured in the model and the next build takes the untuned one.
/usr/bin/python3 - "$dir/one.onnx" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper, save
w = numpy_helper.from_array(
    np.random.default_rng(3).standard_normal((32, 16, 3, 3)).astype(np.float32) * 0.1, "w")
nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
         helper.make_node("Relu", ["c"], ["y"])]
graph = helper.make_graph(
    nodes, "one_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 64, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 32, 32])], [w])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8),
     sys.argv[1])
PY
one=("$dir/one.onnx" --target llvm --db "$dir/one.db" --tuner grid --number 2 --repeat 3
     --trials 3)
$tessera tune "${one[@]}" --no-check >/dev/null 2>&1
conv='conv2d_NCHWc.x86(1,16,64,64,32,3,3,2,1,float32)'
$tessera log export --db "$dir/one.db" --task "$conv" | /usr/bin/python3 -c 'import json, sys
records = [json.loads(line) for line in sys.stdin if json.loads(line)["costs"]]
r = max(records, key=lambda r: sum(r["costs"]) / len(r["costs"]))
r["costs"] = [1e-9]; r["timestamp"] += 1
print(json.dumps(r))' >"$dir/slow.jsonl"
$tessera log import --db "$dir/one.db" --file "$dir/slow.jsonl" >/dev/null
plan_config() {  # the config the build gives the convolution
  $tessera compile "$dir/one.onnx" --target llvm "$@" -o "$dir/one.tsr" --print-plan 2>/dev/null |
    grep -o "$conv.*\] in=.*" | grep -o "\[tile.*\]$"
}
untuned_config=$(plan_config)
check "the slow config's build differs from the untuned one" \
  test "$(plan_config --db "$dir/one.db")" != "$untuned_config"
out=$($tessera tune "${one[@]}" 2>/dev/null); rc=$?
check "a run keeping the faster choice exits 0" test $rc -eq 0
echo "$out" | grep "^check:"
check "the check keeps the untuned choice" grep -qE \
  "^check: keeping the untuned choice over ${conv//[()]/.}: [0-9.e+-]+ ms tuned, [0-9.e+-]+ ms untuned \(${conv//[()]/.}\) per kernel in the model" \
  <<<"$out"
check "and times the build it leaves" \
  grep -qE "^check: with the kept configs the tuned build runs [0-9.e+-]+ ms" <<<"$out"
check "two records measured in the model" \
  test "$($tessera log export --db "$dir/one.db" | grep -c '"in_model":true')" -eq 2
check "log list marks them" test "$($tessera log list --db "$dir/one.db" | grep -c 'measured in the model$')" -eq 2
check "the next build takes the untuned config" test "$(plan_config --db "$dir/one.db")" = "$untuned_config"
out=$($tessera tune "${one[@]}" 2>/dev/null)
check "a second run keeps nothing more" bash -c '! grep -q "^check: keeping" <<<"$1"' _ "$out"
check "and measures nothing: the check's records are no trials" grep -q "1 tasks, 0 trials measured" <<<"$out"

last_time=$(tail -1 "$dir/curve.csv" | cut -d, -f1)
out=$($tessera tune "${common[@]}" --trials 14 --curve "$dir/curve.csv" --no-check 2>/dev/null)
check "a larger budget measures the difference" grep -q "6 tasks, 2 trials measured" <<<"$out"
check "--no-check skips the check" bash -c '! grep -q "^check:" <<<"$1"' _ "$out"
check "the resumed run continues the curve" \
  awk -F, -v t="$last_time" 'END {exit !($2 == 14 && $1 >= t)}' "$dir/curve.csv"
check "one header only" test "$(grep -c seconds "$dir/curve.csv")" -eq 1
echo "not a curve" >"$dir/bad.csv"
err=$($tessera tune "${common[@]}" --trials 14 --curve "$dir/bad.csv" 2>&1); rc=$?
check "a file that is not a curve exits 2" test $rc -eq 2
check "and names it" grep -q "bad.csv: not a tuning curve" <<<"$err"

out=$($tessera compile "$dir/tiny.onnx" --target llvm --db "$dir/t.db" -o "$dir/built" 2>&1)
check "the build uses every task's records" grep -q "coverage: tuned 4/4 tasks, 100.0%" <<<"$out"
# A CI build that must be tuned: --min-coverage passes with the log, fails without writing.
$tessera compile "$dir/tiny.onnx" --target llvm --db "$dir/t.db" --min-coverage 100 \
  -o "$dir/ci.tsr" >/dev/null 2>&1; rc=$?
check "a covered build passes --min-coverage 100" test $rc -eq 0 -a -f "$dir/ci.tsr"
err=$($tessera compile "$dir/tiny.onnx" --target llvm --min-coverage 50 -o "$dir/ci_untuned.tsr" \
  2>&1 >/dev/null); rc=$?
check "an untuned build below --min-coverage exits 1" test $rc -eq 1
check "and writes nothing" test ! -e "$dir/ci_untuned.tsr"
check "and says why" grep -q "tiny.onnx: 0.0% of the template FLOPs are tuned, below --min-coverage 50; nothing written" <<<"$err"

# Records are matched by thread count: none at 3 threads, so the default thread count's, said.
out=$($tessera compile "$dir/tiny.onnx" --target 'llvm -num-threads=3' --db "$dir/t.db" \
  -o "$dir/built3" 2>&1)
check "another thread count falls back to the default's records and says so" grep -q \
  "coverage: tuned 4/4 tasks, 100.0% of template FLOPs (4 with records of the default thread count" \
  <<<"$out"
check "with a warning naming the target" grep -q "on 'llvm -num-threads=3': using one of 'llvm'" \
  <<<"$out"
out=$($tessera tune "$dir/tiny.onnx" --target 'llvm -num-threads=1' --db "$dir/t.db" --batch 2 \
  --tuner random --number 2 --repeat 2 --trials 12 --no-check 2>/dev/null)
check "tuning at one thread measures anew" grep -q "6 tasks, 12 trials measured" <<<"$out"
out=$($tessera compile "$dir/tiny.onnx" --target 'llvm -num-threads=1' --db "$dir/t.db" \
  -o "$dir/built1" 2>&1)
check "a build at one thread uses the one-thread records" \
  grep -q "coverage: tuned 4/4 tasks, 100.0% of template FLOPs$" <<<"$out"

# Weights in the caches: the tiny model's fit them, so its first run timed them warm (auto);
# --cold-weights on evicts them before every call, in records of their own.
check "auto times a small model's weights warm and says why" \
  grep -q "weights warm (the model's weights fit the target's caches)$" "$dir/progress"
cold=("$dir/tiny.onnx" --target llvm --db "$dir/cold.db" --batch 2 --tuner random --number 2
      --repeat 2 --trials 12 --no-check)
$tessera tune "${cold[@]}" >/dev/null 2>&1
out=$($tessera tune "${cold[@]}" --cold-weights on 2>"$dir/cold_progress"); rc=$?
check "a cold-weights run exits 0" test $rc -eq 0
check "and says so" grep -q "weights evicted from the caches before every call$" "$dir/cold_progress"
check "warm records are no history of a cold search" grep -q "6 tasks, 12 trials measured" <<<"$out"
check "log list marks the cold records" \
  test "$($tessera log list --db "$dir/cold.db" | grep -c '  cold weights$')" -eq 12
check "export carries the mark" \
  test "$($tessera log export --db "$dir/cold.db" | grep -c '"cold_weights":true')" -eq 12
err=$($tessera tune "${cold[@]}" --cold-weights sometimes 2>&1); rc=$?
check "a bad --cold-weights exits 2" test $rc -eq 2
check "and names the choices" grep -q "cold-weights" <<<"$err"

err=$($tessera tune "${common[@]}" --trials 2 --task 'dense.x86(1,10,128,float32)' 2>&1); rc=$?
check "model and --task together exit 2" test $rc -eq 2
check "and say why" grep -q "either a model .* or --task" <<<"$err"
echo "$failures failure(s)"
exit $((failures > 0))

#!/usr/bin/env bash
# End to end: `tessera compile` an ONNX model (with and without tuning records), `tessera run` it
# on .npy inputs and compare with PyTorch's output; bad input gives exit status 2 and a message.
set -uo pipefail
tessera=cli/tessera
dir="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

/usr/bin/python3 tests/compiler/driver/models/make_op_models.py "$dir" || exit 1
m="$dir/flatten_gemm_softmax"

out=$($tessera compile "$m.onnx" --target llvm --print-graph -o "$dir/head" 2>&1)
check "compile succeeds" test $? -eq 0
check "print-graph shows each pass" grep -q "// after fuse_ops" <<<"$out"
check "coverage line names the untuned dense" \
  grep -q "coverage: tuned 0/1 tasks, 0.0% of template FLOPs; untuned: dense.x86(2,10,32,float32)" <<<"$out"

out=$($tessera compile "$m.onnx" --target 'llvm -mcpu=x86-64-v3' --print-plan -o "$dir/planned" 2>&1)
check "compile --print-plan succeeds" test $? -eq 0
check "print-plan heads the plan with its target" \
  grep -q "^plan for 'llvm -mcpu=x86-64-v3': [0-9]* groups$" <<<"$out"
check "print-plan shows the dense group, its workload and the config's source" \
  grep -Eq "^g[0-9]+ [^ ]+  dense\.x86\(2,10,32,float32\) \[fallback\] out=plain( fused)? \[" <<<"$out"
check "print-plan lists the tasks" grep -q "^  dense.x86(2,10,32,float32) x1 untuned$" <<<"$out"

out=$($tessera run "$dir/head" --input "x=$m.in0.npy" --output "$dir/y.npy" --repeat 3 --profile)
check "run succeeds" test $? -eq 0
check "run reports latency" grep -q "latency over 3 runs" <<<"$out"
check "run profiles kernels" grep -q "profile (mean per run at [0-9]* threads\?, slowest first)" <<<"$out"
check "output matches PyTorch" /usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load('$dir/y.npy'), np.load('$m.out0.npy')
sys.exit(0 if np.allclose(a, b, rtol=1e-4, atol=1e-5) else 1)"
out=$($tessera run "$dir/head" --json)
check "json without inputs (random data)" grep -q '"median_ms"' <<<"$out"

# A tuning record for the dense workload makes the build use it and say so.
$tessera tune --task 'dense.x86(2,10,32,float32)' --target llvm --db "$dir/t.db" --trials 4 \
  --tuner random >/dev/null 2>&1
out=$($tessera compile "$m.onnx" --target llvm --db "$dir/t.db" -o "$dir/tuned" --print-configs 2>&1)
check "records are used" grep -q "coverage: tuned 1/1 tasks, 100.0% of template FLOPs" <<<"$out"
check "print-configs names each template kernel's config and source" \
  grep -Eq "^[^ ]+  dense\.x86\(2,10,32,float32\)  \[tile_.*\]  \(record\)$" <<<"$out"
$tessera run "$dir/tuned" --input "x=$m.in0.npy" --output "$dir/y2.npy" >/dev/null
check "tuned output matches" /usr/bin/python3 -c "
import numpy as np, sys
sys.exit(0 if np.allclose(np.load('$dir/y2.npy'), np.load('$m.out0.npy'), rtol=1e-4, atol=1e-5) else 1)"

out=$($tessera run "$dir/head" --input "x=$dir/y.npy" 2>&1)
check "wrong input shape exits 2" test $? -eq 2
check "wrong input shape is named" grep -q "input 'x' expects float32\[2, 8, 2, 2\], got float32\[2, 10\]" <<<"$out"
head -c 100 "$m.onnx" > "$dir/cut.onnx"
out=$($tessera compile "$dir/cut.onnx" --target llvm -o "$dir/cut" 2>&1)
check "truncated model exits 2" test $? -eq 2
check "truncated model is named" grep -q "cut.onnx: not a valid ONNX model" <<<"$out"
out=$($tessera run "$dir/nothing" 2>&1)
check "missing model directory exits 2" test $? -eq 2

# An artifact built for one thread runs on one (the count is the pool's real size), unless the
# caller asks for another; a directory records no target and runs on every core.
out=$($tessera compile "$m.onnx" --target 'llvm -num-threads=1' -o "$dir/one.tsr" 2>&1)
check "compile for one thread" test $? -eq 0
out=$(env -u TESSERA_NUM_THREADS $tessera run "$dir/one.tsr" --profile)
check "tessera run uses the target's thread count" grep -q "MB of activations, 1 thread;" <<<"$out"
check "--profile prints the thread count" grep -q "profile (mean per run at 1 thread," <<<"$out"
out=$(env -u TESSERA_NUM_THREADS deploy/tessera-run "$dir/one.tsr")
check "tessera-run uses the target's thread count" grep -q "kernel calls, 1 thread;" <<<"$out"
out=$(env -u TESSERA_NUM_THREADS deploy/tessera-run "$dir/one.tsr" --threads 2)
check "tessera-run --threads overrides it" grep -q "kernel calls, 2 threads;" <<<"$out"
out=$(TESSERA_NUM_THREADS=2 $tessera run "$dir/one.tsr" --json)
check "TESSERA_NUM_THREADS overrides it" grep -q '"threads":2' <<<"$out"
out=$(env -u TESSERA_NUM_THREADS $tessera run "$dir/one.tsr" --threads 3 --json)
check "tessera run --threads overrides it" grep -q '"threads":3' <<<"$out"
out=$(env -u TESSERA_NUM_THREADS $tessera run "$dir/head" --json)
check "a directory runs on every core" grep -q "\"threads\":$(nproc)" <<<"$out"

# A model stamped with an opset newer than the importer knows is refused, naming the versions.
/usr/bin/python3 -c "
import onnx
m = onnx.load('$m.onnx')
for op in m.opset_import:
    if op.domain in ('', 'ai.onnx'): op.version = 99
onnx.save(m, '$dir/future.onnx')"
out=$($tessera compile "$dir/future.onnx" --target llvm -o "$dir/future" 2>&1)
check "a newer opset exits 2" test $? -eq 2
check "a newer opset is named" grep -q "future.onnx: the model imports opset 99 of domain 'ai.onnx', newer than the newest this Tessera knows" <<<"$out"

echo "$failures failures"
test "$failures" -eq 0

#!/usr/bin/env bash
# Batch buckets end to end: ResNet-18 and a 2-layer encoder exported with a symbolic batch,
# compiled with --batch 1,4,16 into one artifact, match PyTorch at batches 1, 3, 4, 9, 16 and 40
# (a bucket, padded rows, chunks of the largest) through `tessera-run` and `tessera run`; the
# parameters are stored once; wrong shapes and misused flags are refused with their messages.
set -uo pipefail
tessera=cli/tessera
runner=deploy/tessera-run
example=deploy/run_model_example
dir="${TEST_TMPDIR:-$(mktemp -d)}"
. tests/testing/checks.sh
target='llvm -mcpu=native'
batches="1 3 4 9 16 40"

/usr/bin/python3 tests/deploy/make_batch_models.py "$dir" "${batches// /,}" resnet18 transformer \
  >/dev/null 2>&1 || { echo "FAIL: exporting the models"; exit 1; }

matches() {  # matches OUT.npy REF.npy: allclose with a tolerance for float32 sums
  /usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load('$1'), np.load('$2')
sys.exit(0 if a.shape == b.shape and np.allclose(a, b, rtol=1e-3, atol=1e-4) else 1)"
}

for m in resnet18 transformer; do
  out=$($tessera compile "$dir/$m.onnx" --target "$target" --batch 16,1,4 -o "$dir/$m.tsr" 2>&1)
  check "$m: compile --batch 1,4,16 succeeds" test $? -eq 0
  check "$m: each bucket is built and said" grep -q "^batch 16: .* kernel calls" <<<"$out"
  check "$m: the summary names the buckets" grep -q "batch buckets 1,4,16" <<<"$out"
  check "$m: the header holds the buckets and the batch dimension" \
    bash -c "head -c 600 '$dir/$m.tsr' | grep -aq '^batch-buckets 1,4,16$' &&
             head -c 600 '$dir/$m.tsr' | grep -aq '^input float32 Nx'"
  for n in $batches; do
    out=$($runner "$dir/$m.tsr" --input "input=$dir/$m.in$n.npy" --output "$dir/$m.run$n.npy")
    check "$m: tessera-run at batch $n" test $? -eq 0
    check "$m: batch $n matches PyTorch" matches "$dir/$m.run$n.npy" "$dir/$m.out$n.npy"
  done
  check "$m: batch 9 runs on bucket 16" grep -q "batch 9 on bucket 16" \
    <<<"$($runner "$dir/$m.tsr" --input "input=$dir/$m.in9.npy")"
  check "$m: batch 40 runs in 3 runs of bucket 16" grep -q "batch 40 in 3 runs of bucket 16" \
    <<<"$($runner "$dir/$m.tsr" --input "input=$dir/$m.in40.npy")"
done

# tessera run gives tessera-run's outputs, and its profile names the bucket.
out=$($tessera run "$dir/resnet18.tsr" --input "input=$dir/resnet18.in3.npy" \
  --output "$dir/run3.npy" --profile)
check "tessera run at batch 3" test $? -eq 0
check "tessera run gives tessera-run's output" same_npy "$dir/run3.npy" "$dir/resnet18.run3.npy"
check "the profile says which bucket ran" grep -q "bucket 4, slowest first" <<<"$out"
out=$($tessera run "$dir/transformer.tsr" --batch 5 --json)
check "random inputs at --batch 5 run on bucket 16" \
  grep -q '"batch":5,"bucket":16,"bucket_runs":1' <<<"$out"

# The C API at batch 3: the example fills element k of the input with sin(0.1 k) and prints the
# outputs; tessera-run given the same input agrees.
out=$($example "$dir/transformer.tsr" 3)
check "the C API runs batch 3 (TesseraModelSetBatch)" test $? -eq 0
/usr/bin/python3 -c "
import numpy as np
np.save('$dir/sin3.npy', np.sin(0.1 * np.arange(3 * 16 * 64)).astype(np.float32).reshape(3, 16, 64))"
$runner "$dir/transformer.tsr" --input "input=$dir/sin3.npy" --output "$dir/sin3.out.npy" >/dev/null
check "... and gives tessera-run's output" /usr/bin/python3 -c "
import numpy as np, sys
c = np.array([float(v) for v in sys.argv[1].split()], np.float32)
r = np.load('$dir/sin3.out.npy').ravel()
sys.exit(0 if c.shape == r.shape and np.allclose(c, r, rtol=1e-6, atol=1e-6) else 1)" "$out"
out=$($example "$dir/transformer.tsr" 0 2>&1)
check "the C API refuses batch 0" grep -q "TesseraModelSetBatch: batch 0 is not positive" <<<"$out"

# One bucket, one artifact of fixed shapes: the parameters are stored once, so the artifact grows
# by the kernels and graphs of the buckets it adds, not by another copy of the weights.
$tessera compile "$dir/resnet18.onnx" --target "$target" -o "$dir/one.tsr" >/dev/null 2>&1
$tessera compile "$dir/resnet18.onnx" --target "$target" --batch 4 -o "$dir/four.tsr" >/dev/null 2>&1
check "a single bucket builds (its batch dimension found by a probe)" test -f "$dir/four.tsr"
out=$($runner "$dir/four.tsr" --input "input=$dir/resnet18.in9.npy" --output "$dir/four9.npy")
check "... and runs batch 9 as chunks of 4" grep -q "batch 9 in 3 runs of bucket 4" <<<"$out"
check "... matching PyTorch" matches "$dir/four9.npy" "$dir/resnet18.out9.npy"
one=$(stat -c %s "$dir/one.tsr")
three=$(stat -c %s "$dir/resnet18.tsr")
check "three buckets add less than a tenth of the weights ($one -> $three bytes)" \
  test $((three - one)) -lt $((one / 10))

# Tuning buckets: one run tunes every bucket's tasks (a task's weight: its kernels in a bucket
# times the bucket's weight), checks each bucket's build, and the compile takes the records. The
# batch-4 kernels follow the batch-1 ones after their first 16 trials: 5 of them, so 96 trials.
out=$($tessera tune "$dir/transformer.onnx" --target "$target" --db "$dir/t.db" \
  --batch-buckets 4,1 --batch-weights 1,3 --trials 96 --tuner random --number 1 --repeat 1 \
  --min-repeat-ms 0 2>&1)
check "tune --batch-buckets 1,4 succeeds" test $? -eq 0
check "... tuning both buckets' tasks, weighted" \
  bash -c "grep -q 'dense.x86(16,128,64,float32) x6' <<<\"\$1\" &&
           grep -q 'dense.x86(64,128,64,float32) x2' <<<\"\$1\"" _ "$out"
check "... the larger bucket's kernels starting from the smaller one's best" \
  grep -q "tasks of the larger buckets that start from the best configurations of the same kernel in the smallest bucket (tuned first): [1-9]" <<<"$out"
check "... and checking each bucket's build" \
  bash -c "grep -q 'building .* at batch 1 with the records' <<<\"\$1\" &&
           grep -q 'building .* at batch 4 with the records' <<<\"\$1\"" _ "$out"
out=$($tessera compile "$dir/transformer.onnx" --target "$target" --db "$dir/t.db" \
  --batch-buckets 1,4 -o "$dir/tuned.tsr" 2>&1)
check "compile --db takes the records of every bucket" \
  bash -c "grep -q '^batch 1: coverage: tuned [1-9]' <<<\"\$1\" &&
           grep -q '^batch 4: coverage: tuned [1-9]' <<<\"\$1\"" _ "$out"
out=$($tessera tune --task 'dense.x86(16,16,16,float32)' --target "$target" --db "$dir/t.db" \
  --batch-buckets 1,4 2>&1)
check "tune --task with --batch-buckets fails, saying why" \
  grep -q -- "--batch-buckets, --batch-weights and --batch-dim apply to a model" <<<"$out"
out=$($tessera tune "$dir/transformer.onnx" --target "$target" --db "$dir/t.db" \
  --batch-buckets 1,4 --batch-weights 1 2>&1)
check "a weight per bucket is needed" grep -q "gives 1 weights for 2 batch buckets" <<<"$out"

# Refusals.
/usr/bin/python3 -c "
import numpy as np; np.save('$dir/wrong.npy', np.zeros((2, 3, 200, 224), np.float32))"
out=$($runner "$dir/resnet18.tsr" --input "input=$dir/wrong.npy" 2>&1)
check "an input of the wrong non-batch shape fails" test $? -ne 0
check "... naming the input and the dimension that may vary" grep -q \
  "input 'input' expects float32\[1, 3, 224, 224\] with any batch in dimension 0, got float32\[2, 3, 200, 224\]" \
  <<<"$out"
out=$($example "$dir/one.tsr" 4 2>&1)
check "the C API refuses a batch for a model of fixed shapes" \
  grep -q "the model has fixed shapes (compile it with --batch)" <<<"$out"
out=$($runner "$dir/one.tsr" --batch 4 2>&1)
check "--batch on a model of fixed shapes fails" test $? -ne 0
check "... saying so" grep -q "the model has fixed shapes (compile it with --batch)" <<<"$out"
out=$($tessera compile "$dir/resnet18.onnx" --target "$target" --batch 1,4 -o "$dir/d" 2>&1)
check "--batch into a model directory fails" test $? -ne 0
check "... asking for one artifact" grep -q -- "--batch writes one artifact of every bucket" <<<"$out"
out=$($tessera compile "$dir/resnet18.onnx" --target "$target" --batch 0 -o "$dir/z.tsr" 2>&1)
check "--batch 0 fails" test $? -ne 0
out=$($tessera compile "$dir/resnet18.onnx" --target "$target" --batch 2 --batch-dim seq \
  -o "$dir/s.tsr" 2>&1)
check "--batch-dim naming no dimension fails" test $? -ne 0
check "... naming it" grep -q "no input has a dimension named 'seq' to build with batch 2" <<<"$out"
checks_done

#!/usr/bin/env bash
# End to end: `tessera tune` on a quantized model tunes its int8 convolutions as tasks of their
# own (conv2d_NCHWc_int8.x86, measured on bytes packed in words and checked exactly), the log
# keeps their records, and a build configures its int8 kernels from them and still computes
# PyTorch's quantized output within one output step. Needs a CPU with a byte dot product (x86
# VNNI), where the planner chooses the int8 template; elsewhere it skips, saying why.
set -uo pipefail
tessera=cli/tessera
dir="${TEST_TMPDIR:-$(mktemp -d)}"
. tests/testing/checks.sh
/usr/bin/python3 tools/make_quantized_models.py "$dir" --models small_cnn --reference 1 || exit 1
model="$dir/small_cnn.onnx"
target='llvm -mcpu=native'
if ! $tessera compile "$model" --target "$target" -o "$dir/probe.tsr" --print-plan 2>/dev/null |
    grep -q conv2d_NCHWc_int8; then
  skip "tessera tune tunes a quantized model's int8 tasks" \
    "this CPU has no byte dot product: no int8 template to tune"
  checks_done
fi

out=$($tessera tune "$model" --target "$target" --db "$dir/q.db" --trials 40 --batch 4 \
  --tuner random --number 2 --repeat 2 2>/dev/null); rc=$?
check "tune exits 0" test $rc -eq 0
echo "$out"
# The two 16-channel 3x3 convolutions share one task; the 1x1 projection has its own; the
# 3-channel stem runs on channels padded to a word of four, its padding the input's zero point.
check "the summary names the 3x3 int8 task" \
  grep -qE '^  conv2d_NCHWc_int8.x86\(1,16,16,16,16,3,3,1,1,0,uint8\) x2: [0-9]+ trials .* best [0-9.e+-]+ ms' <<<"$out"
check "and the 1x1 one" \
  grep -qE '^  conv2d_NCHWc_int8.x86\(1,16,16,16,24,1,1,1,0,0,uint8\) x1: [0-9]+ trials' <<<"$out"
check "and the stem's" \
  grep -qE '^  conv2d_NCHWc_int8.x86\(1,4,32,32,16,3,3,2,1,[0-9]+,uint8\) x1: [0-9]+ trials' <<<"$out"
check "no float task for a convolution that runs in int8" \
  bash -c '! grep -qF "  conv2d_NCHWc.x86(" <<<"$1"' _ "$out"
int8_records=$($tessera log export --db "$dir/q.db" | grep '"workload_key":"conv2d_NCHWc_int8' |
  grep -c '"in_model":false')
check "the log holds the int8 records" test "$int8_records" -gt 0
check "every int8 candidate passed the exact check" \
  bash -c '! '"$tessera"' log export --db "$1" | grep conv2d_NCHWc_int8 | grep -q "\"error\":\"WRONG_ANSWER\""' _ "$dir/q.db"

configs=$($tessera compile "$model" --target "$target" --db "$dir/q.db" -o "$dir/tuned.tsr" \
  --print-configs 2>/dev/null)
echo "$configs"
check "the build configures its int8 kernels from their records" \
  test "$(grep -c 'conv2d_NCHWc_int8.x86(.*(record' <<<"$configs")" -eq 4
$tessera run "$dir/tuned.tsr" --input "input=$dir/small_cnn.in0.npy" --output "$dir/out.npy" \
  >/dev/null 2>&1
check "the tuned build runs" test -f "$dir/out.npy"
check "within one output step of PyTorch" /usr/bin/python3 -c '
import sys, numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
step = float(open(sys.argv[3]).read())
off = float(np.abs(got - want).max()) / step
print("largest difference:", off, "steps")
sys.exit(0 if off <= 1.001 else 1)' "$dir/out.npy" "$dir/small_cnn.out0.npy" "$dir/small_cnn.step.txt"
checks_done

#!/usr/bin/env bash
# The deployable artifact from the command line: `tessera compile -o model.tsr`, then `tessera
# run`, the runtime-only `tessera-run` and the C API example all give the same outputs (and match
# PyTorch); each refusal exits non-zero with its message; the runner and the C API library link
# nothing but libc/libstdc++ and stay small.
set -uo pipefail
tessera=cli/tessera
runner=deploy/tessera-run
example=deploy/run_model_example
dir="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
same_npy() {  # same_npy A B: bitwise equal arrays
  /usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load('$1'), np.load('$2')
sys.exit(0 if a.shape == b.shape and (a == b).all() else 1)"
}

/usr/bin/python3 tests/compiler/driver/models/make_op_models.py "$dir" >/dev/null || exit 1
m="$dir/conv_bn_add_relu"

out=$($tessera compile "$m.onnx" --target 'llvm -mcpu=native' -o "$dir/model.tsr" 2>&1)
check "compile -o model.tsr succeeds" test $? -eq 0
check "one file is written" test -f "$dir/model.tsr"
inputs=$(/usr/bin/python3 -c "
import onnx; m = onnx.load('$m.onnx')
init = {i.name for i in m.graph.initializer}
print(' '.join('--input %s=$m.in%d.npy' % (i.name, k) for k, i in
      enumerate(x for x in m.graph.input if x.name not in init)))")

$tessera run "$dir/model.tsr" $inputs --output "$dir/run.npy" >/dev/null
check "tessera run takes the artifact" test $? -eq 0
check "output matches PyTorch" /usr/bin/python3 -c "
import numpy as np, sys
sys.exit(0 if np.allclose(np.load('$dir/run.npy'), np.load('$m.out0.npy'), rtol=1e-4, atol=1e-5) else 1)"
out=$($runner "$dir/model.tsr" $inputs --output "$dir/runner.npy" --repeat 3)
check "tessera-run succeeds" test $? -eq 0
check "tessera-run reports load and first-run time" grep -q "load .* ms, first run .* ms" <<<"$out"
check "tessera-run gives tessera run's output" same_npy "$dir/run.npy" "$dir/runner.npy"

# The C target: kernels compiled by this machine's C compiler, no CPU features required.
$tessera compile "$m.onnx" --target c -o "$dir/c.tsr" >/dev/null 2>&1
check "the C target writes an artifact needing no CPU features" \
  bash -c "head -c 300 '$dir/c.tsr' | grep -aq '^cpu-features -'"
$runner "$dir/c.tsr" $inputs --output "$dir/c.npy" >/dev/null
check "the C target's artifact matches PyTorch" /usr/bin/python3 -c "
import numpy as np, sys
sys.exit(0 if np.allclose(np.load('$dir/c.npy'), np.load('$m.out0.npy'), rtol=1e-4, atol=1e-5) else 1)"

# The C example fills every input with sin(0.1 * i) and prints the outputs.
/usr/bin/python3 -c "
import onnx, numpy as np
m = onnx.load('$m.onnx'); init = {i.name for i in m.graph.input} & {i.name for i in m.graph.initializer}
for k, i in enumerate(x for x in m.graph.input if x.name not in init):
    shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
    np.save('$dir/sin%d.npy' % k, np.sin(0.1 * np.arange(np.prod(shape))).astype(np.float32).reshape(shape))"
sin_inputs=${inputs//$m.in/$dir/sin}
$tessera run "$dir/model.tsr" $sin_inputs --output "$dir/sin_out.npy" >/dev/null
$example "$dir/model.tsr" > "$dir/c_out.txt"
check "the C example runs" test $? -eq 0
check "the C example gives tessera run's output" /usr/bin/python3 -c "
import numpy as np, sys
a = np.load('$dir/sin_out.npy').ravel(); b = np.loadtxt('$dir/c_out.txt', dtype=np.float32)
sys.exit(0 if a.shape == b.shape and (a == b).all() else 1)"

# Refusals: each exits 2 and says what and why.
refuse() {  # refuse NAME EXPECTED_MESSAGE FILE [ENV...]
  local name=$1 message=$2 file=$3; shift 3
  local out
  out=$(env "$@" $runner "$file" 2>&1)
  local rc=$?
  check "$name exits 2 (runner)" test $rc -eq 2
  check "$name says why (runner)" grep -qF "$message" <<<"$out"
  out=$(env "$@" $tessera run "$file" 2>&1)
  check "$name exits 2 (tessera run)" test $? -eq 2
  env "$@" $example "$file" >/dev/null 2>&1
  check "$name fails in the C API" test $? -ne 0
}
size=$(stat -c %s "$dir/model.tsr")
head -c $((size - 1000)) "$dir/model.tsr" > "$dir/cut.tsr"
refuse "truncated" "cut.tsr: truncated artifact: $((size - 1000)) bytes, the header says $size" "$dir/cut.tsr"
/usr/bin/python3 -c "
b = bytearray(open('$dir/model.tsr', 'rb').read()); b[len(b) // 2] ^= 1
open('$dir/flipped.tsr', 'wb').write(b)
b = bytearray(open('$dir/model.tsr', 'rb').read()); b[8] = 7
open('$dir/newer.tsr', 'wb').write(b)"
refuse "flipped byte" "flipped.tsr: corrupt artifact: checksum mismatch" "$dir/flipped.tsr"
refuse "newer format" "newer.tsr: artifact format version 7 is newer than this runtime" "$dir/newer.tsr"
feature=$(head -c 400 "$dir/model.tsr" | grep -a '^cpu-features' | cut -d' ' -f2 | cut -d, -f1)
if [ -n "$feature" ] && [ "$feature" != "-" ]; then
  refuse "missing CPU feature" "the kernels need CPU features this machine lacks: $feature" \
    "$dir/model.tsr" "TESSERA_HIDE_CPU_FEATURES=$feature"
else
  echo "skip: this CPU has none of the checked features"
fi
$tessera compile "$m.onnx" --target 'llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72' \
  -o "$dir/arm.tsr" >/dev/null 2>&1
if [ -f "$dir/arm.tsr" ]; then
  refuse "other architecture" \
    "arm.tsr: built for aarch64 (target 'llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72'), but this machine is x86_64" \
    "$dir/arm.tsr"
else
  echo "skip: no aarch64 linker (Debian gcc-aarch64-linux-gnu) to build the aarch64 artifact"
fi

# The runner and the C API need the runtime only, and stay small.
for bin in $runner deploy/libtessera_model.so; do
  check "$bin links no LLVM, gRPC or protobuf" \
    bash -c "! readelf -d $bin | grep NEEDED | grep -Ei 'llvm|grpc|protobuf|absl'"
done
strip -o "$dir/runner.stripped" $runner
bytes=$(stat -c %s "$dir/runner.stripped")
echo "stripped tessera-run: $bytes bytes (limit $((400 * 1024)))"
check "stripped runner is at most 400 KB" test "$bytes" -le $((400 * 1024))

echo "$failures failures"
test "$failures" -eq 0

#!/usr/bin/env bash
# An aarch64 artifact end to end: `tessera compile --target 'llvm -mtriple=aarch64-linux-gnu
# -mcpu=cortex-a72' -o arm.tsr`, run by the cross-built tessera-run under qemu-aarch64, matches
# the x86 artifact's output and PyTorch's. Skips (saying why) without the cross toolchain or qemu.
set -uo pipefail
tessera=cli/tessera
runner=deploy/aarch64/tessera-run
dir="${TEST_TMPDIR:-$(mktemp -d)}"
. tests/testing/checks.sh
# The placeholder runner stands for a cross toolchain that is absent (deploy/cross_build_aarch64.sh).
if head -c 4 "$runner" | grep -q SKIP; then
  skip "the aarch64 artifact runs under qemu" "$(cat "$runner")"; checks_done
fi
if [ ! -x /usr/bin/qemu-aarch64 ] || [ ! -d /usr/aarch64-linux-gnu ]; then
  skip "the aarch64 artifact runs under qemu" \
    "qemu-aarch64 (Debian qemu-user) or the aarch64 sysroot is not installed"
  checks_done
fi

/usr/bin/python3 tests/compiler/driver/models/make_op_models.py "$dir" >/dev/null || exit 1
m="$dir/conv_bn_add_relu"  # convolution, folded batch norm, residual add, ReLU
inputs="--input x=$m.in0.npy --input skip=$m.in1.npy"

$tessera compile "$m.onnx" --target 'llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72' \
  -o "$dir/arm.tsr" >/dev/null 2>&1
check "aarch64 artifact compiles" test -f "$dir/arm.tsr"
check "its header names aarch64 and NEON" \
  bash -c "head -c 300 '$dir/arm.tsr' | grep -aq '^arch aarch64' && head -c 300 '$dir/arm.tsr' | grep -aq '^cpu-features .*neon'"
$tessera compile "$m.onnx" --target llvm -o "$dir/x86.tsr" >/dev/null 2>&1
$tessera run "$dir/x86.tsr" $inputs --output "$dir/x86.npy" >/dev/null
check "x86 artifact runs" test $? -eq 0

# Bounded, so a hang fails with its command.
start=$(date +%s%N)
out=$(TESSERA_NUM_THREADS=2 timeout 120 tools/qemu_aarch64.sh $runner \
  "$dir/arm.tsr" $inputs --output "$dir/arm.npy" 2>&1)
rc=$?
echo "$out"
echo "qemu wall time: $((($(date +%s%N) - start) / 1000000)) ms"
check "tessera-run runs the aarch64 artifact under qemu" test $rc -eq 0
check "aarch64 output matches x86 and PyTorch" /usr/bin/python3 -c "
import numpy as np, sys
a, x, ref = np.load('$dir/arm.npy'), np.load('$dir/x86.npy'), np.load('$m.out0.npy')
tol = 1e-4 * np.abs(x).max()
print('max |arm - x86| =', np.abs(a - x).max(), 'max |arm - torch| =', np.abs(a - ref).max())
sys.exit(0 if np.allclose(a, x, rtol=1e-4, atol=tol) and np.allclose(a, ref, rtol=1e-4, atol=tol) else 1)"

# The other template kernels on aarch64 (stem and max pool, a residual block, pointwise and
# depthwise convolutions with Clip, dense; depthwise taps read at constant offsets from one index;
# an encoder's dense.arm and batch_matmul.arm products, their reductions in unrolled fours):
# each model's aarch64 output against PyTorch's.
for name in residual_blocks depthwise_relu6 attention_block; do
  m="$dir/$name"
  $tessera compile "$m.onnx" --target 'llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a76' \
    -o "$dir/$name.tsr" >/dev/null 2>&1
  timeout 120 tools/qemu_aarch64.sh $runner "$dir/$name.tsr" --input "x=$m.in0.npy" \
    --output "$dir/$name.npy" >/dev/null 2>&1
  check "$name: aarch64 output matches PyTorch" /usr/bin/python3 -c "
import numpy as np, sys
a, ref = np.load('$dir/$name.npy'), np.load('$m.out0.npy')
print('$name: max |arm - torch| =', np.abs(a - ref).max())
sys.exit(0 if np.allclose(a, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max()) else 1)"
done

# An int8 model on Arm's byte dot products: the quantized small CNN (its convolutions and
# classifier through the int8 templates) built for a core with dotprod (sdot, the unsigned bytes
# offset) and one with i8mm (usdot), run under qemu: each within one output step of the x86
# build's output and of PyTorch's quantized module.
/usr/bin/python3 tools/make_quantized_models.py "$dir" --models small_cnn --reference 1 \
  >/dev/null || exit 1
q="$dir/small_cnn"
$tessera compile "$q.onnx" --target 'llvm -mcpu=native' -o "$dir/q_x86.tsr" >/dev/null 2>&1
$tessera run "$dir/q_x86.tsr" --input "input=$q.in0.npy" --output "$dir/q_x86.npy" >/dev/null
for variant in "dotprod:-mcpu=cortex-a76" "i8mm:-mcpu=cortex-a76 -mattr=+i8mm"; do
  name=${variant%%:*}
  plan=$($tessera compile "$q.onnx" --target "llvm -mtriple=aarch64-linux-gnu ${variant#*:}" \
    -o "$dir/q_$name.tsr" --print-plan 2>&1)
  check "int8 ($name): the convolutions and the classifier run the Arm int8 templates" \
    test "$(grep -c 'int8.arm(' <<<"$plan")" -ge 5
  check "int8 ($name): no x86 template in the aarch64 plan" \
    test "$(grep -c '\.x86(' <<<"$plan")" -eq 0
  timeout 120 tools/qemu_aarch64.sh $runner "$dir/q_$name.tsr" --input "input=$q.in0.npy" \
    --output "$dir/q_$name.npy" >/dev/null 2>&1
  check "int8 ($name): aarch64 output within one step of x86 and PyTorch" /usr/bin/python3 -c "
import numpy as np, sys
a, x, ref = np.load('$dir/q_$name.npy'), np.load('$dir/q_x86.npy'), np.load('$q.out0.npy')
step = float(open('$q.step.txt').read())
print('$name: steps from x86', np.abs(a - x).max() / step, 'from torch', np.abs(a - ref).max() / step)
sys.exit(0 if np.abs(a - x).max() <= 1.001 * step and np.abs(a - ref).max() <= 1.001 * step else 1)"
done

# Phones: the wholly static runner, in a root directory with no aarch64 C library, loader, /etc or
# /proc (tests/testing/empty_root.sh), runs an Android artifact (self-contained kernels, loaded by
# the runtime's own loader) and a glibc board's artifact alike, each equal to PyTorch's output.
. tests/testing/empty_root.sh
static_runner=deploy/aarch64/tessera-run-static
check "the static runner has no program interpreter" \
  bash -c "! readelf -l $static_runner | grep -qi interpreter"
check "... and no dynamic section (no shared library)" \
  bash -c "readelf -d $static_runner | grep -q 'no dynamic section'"
m="$dir/conv_bn_add_relu"
$tessera compile "$m.onnx" --target 'llvm -mtriple=aarch64-linux-android -mcpu=cortex-a76' \
  -o "$dir/android" >/dev/null 2>&1
check "an Android target's kernels need no library" \
  bash -c "! readelf -d '$dir/android/kernels.so' | grep -q NEEDED"
check "... and import only the runtime's functions" bash -c "
  readelf -W --dyn-syms '$dir/android/kernels.so' | awk '\$7 == \"UND\" && \$8 != \"\" {print \$8}' |
  grep -vxE 'Tessera[A-Za-z]+|(exp|log|tanh|erf|pow)f?' | grep -q . && exit 1 || exit 0"
why=$(empty_root_unavailable)
if [ -n "$why" ]; then
  skip "the static runner runs Android and board artifacts in an empty root" "$why"
else
  root="$dir/root"
  empty_root_make "$root"
  cp "$static_runner" "$root/tessera-run"
  cp "$m.in0.npy" "$m.in1.npy" "$root/data/local/tmp/"
  for kind in android:aarch64-linux-android board:aarch64-linux-gnu; do
    name=${kind%%:*}
    $tessera compile "$m.onnx" --target "llvm -mtriple=${kind#*:} -mcpu=cortex-a76" \
      -o "$root/data/local/tmp/$name.tsr" >/dev/null 2>&1
    EMPTY_ROOT_TIMEOUT=120 empty_root_run "$root" /usr/bin/qemu-aarch64 /tessera-run \
      "/data/local/tmp/$name.tsr" --input x=/data/local/tmp/conv_bn_add_relu.in0.npy \
      --input skip=/data/local/tmp/conv_bn_add_relu.in1.npy --output "/data/local/tmp/$name.npy"
    check "$name artifact: the static runner's output in an empty root matches PyTorch" \
      /usr/bin/python3 -c "
import numpy as np, sys
a, ref = np.load('$root/data/local/tmp/$name.npy'), np.load('$m.out0.npy')
print('$name: max |arm - torch| =', np.abs(a - ref).max())
sys.exit(0 if np.allclose(a, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max()) else 1)"
  done
fi

checks_done

#!/usr/bin/env bash
# 32-bit ARM boards (armv7, NEON): every operator model compiled for `llvm
# -mtriple=armv7a-linux-gnueabihf -mcpu=cortex-a7 -mattr=+neon` runs under qemu-arm, with the
# glibc-linked runner (the system's loader) and the wholly static one (the runtime's own loader,
# ELF32 and REL relocations), both equal to PyTorch's output; the static runner does so in a root
# directory with no ARM C library at all. Skips (saying why) without the cross toolchain or qemu.
set -uo pipefail
tessera=cli/tessera
runner=deploy/armv7/tessera-run
static_runner=deploy/armv7/tessera-run-static
target='llvm -mtriple=armv7a-linux-gnueabihf -mcpu=cortex-a7 -mattr=+neon'
dir="${TEST_TMPDIR:-$(mktemp -d)}"
. tests/testing/checks.sh
. tests/testing/empty_root.sh
if head -c 4 "$runner" | grep -q SKIP; then
  skip "armv7 artifacts run under qemu-arm" "$(cat "$runner")"; checks_done
fi
if [ ! -x /usr/bin/qemu-arm ] || [ ! -d /usr/arm-linux-gnueabihf ]; then
  skip "armv7 artifacts run under qemu-arm" \
    "qemu-arm (Debian qemu-user) or the armhf sysroot (libc6-armhf-cross) is not installed"
  checks_done
fi
check "the static runner is a 32-bit ARM program with no interpreter" \
  bash -c "file -L $static_runner | grep -q 'ELF 32-bit LSB executable, ARM' && ! readelf -l $static_runner | grep -qi interpreter"

/usr/bin/python3 tests/compiler/driver/models/make_op_models.py "$dir" >/dev/null || exit 1
why=$(empty_root_unavailable)
root="$dir/root"
[ -n "$why" ] || { empty_root_make "$root"; cp "$static_runner" "$root/tessera-run"; }
# The same output as PyTorch's, relative to the output's largest value.
matches() {
  /usr/bin/python3 -c "
import numpy as np, sys
a, ref = np.load('$1'), np.load('$2')
err = np.abs(a.astype(np.float64) - ref).max()
print('$1: max |arm - torch| =', err)
sys.exit(0 if err <= 1e-4 * np.abs(ref).max() + 1e-6 else 1)"
}
for model in "$dir"/*.onnx; do
  m=${model%.onnx}
  name=$(basename "$m")
  [ -f "$m.out0.npy" ] || continue
  inputs=()
  k=0
  for input in $(/usr/bin/python3 -c "
import onnx
g = onnx.load('$model').graph
init = {i.name for i in g.initializer}
print(' '.join(i.name for i in g.input if i.name not in init))"); do
    inputs+=(--input "$input=$m.in$k.npy")
    k=$((k + 1))
  done
  if ! $tessera compile "$model" --target "$target" -o "$dir/$name.tsr" >"$dir/$name.log" 2>&1; then
    check "$name compiles for armv7" false
    cat "$dir/$name.log"
    continue
  fi
  timeout 120 qemu-arm -L /usr/arm-linux-gnueabihf $runner "$dir/$name.tsr" "${inputs[@]}" \
    --output "$dir/$name.dynamic.npy" >/dev/null
  check "$name: the armv7 runner's output matches PyTorch" matches "$dir/$name.dynamic.npy" "$m.out0.npy"
  if [ -n "$why" ]; then
    skip "$name: the static runner's output in an empty root matches PyTorch" "$why"
    continue
  fi
  cp "$dir/$name.tsr" "$m".in*.npy "$root/data/local/tmp/"
  in_root=()
  for ((i = 0; i < ${#inputs[@]}; i += 2)); do
    arg=${inputs[i + 1]}
    in_root+=(--input "${arg%%=*}=/data/local/tmp/$(basename "${arg#*=}")")
  done
  EMPTY_ROOT_TIMEOUT=120 empty_root_run "$root" /usr/bin/qemu-arm /tessera-run \
    "/data/local/tmp/$name.tsr" "${in_root[@]}" --output "/data/local/tmp/$name.npy" >/dev/null
  check "$name: the static runner's output in an empty root matches PyTorch" \
    matches "$root/data/local/tmp/$name.npy" "$m.out0.npy"
done
checks_done

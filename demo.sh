#!/usr/bin/env bash
# Sets everything up (Debian packages only), builds, and runs the main job end to end:
# a local device fleet (tracker + two rpc_servers on loopback), tuning of a dense and a conv2d
# task through it into a SQLite tuning log, the best records, tuned vs untuned builds against
# OpenBLAS, the runtime on its own, and a ResNet-style convolution block (written by
# deploy/demo/make_conv_block.py): its tasks tuned on the fleet, compiled with the records into one
# artifact, run by the runtime-only runner and on a fleet device, untuned and tuned latency side by
# side. Leaves nothing running.
#   TRIALS=N ./demo.sh    more trials per task (default 32)
set -euo pipefail
cd "$(dirname "$0")"

./tools/setup.sh
bazel build //runtime:libtessera_runtime.so //deploy:runtime_demo //deploy:tessera-run //cli:tessera \
  //tracker:tessera-tracker //rpc_server:tessera-rpc-server //bench:tuned_ops

bin=bazel-bin
trials=${TRIALS:-32}
target="llvm -mcpu=native"
dense='dense.x86(512,512,512,float32)'
conv='conv2d_NCHWc.x86(1,64,28,28,64,3,3,1,1,float32)'
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-demo.XXXXXX")
. tools/daemons.sh
DAEMON_PIDS=$work/daemon.pids
cleanup() {
  daemon_stop_all
  rm -rf "$work"
}
trap cleanup EXIT

echo "== fleet: a tracker and two rpc_servers on loopback"
tracker=$(daemon_start "$work/tracker.log" $bin/tracker/tessera-tracker \
  --listen 127.0.0.1:0 --state "$work/tracker-state")
for i in 1 2; do
  daemon_start "$work/server$i.log" $bin/rpc_server/tessera-rpc-server --tracker "$tracker" \
    --key demo-cpu --listen 127.0.0.1:0 --workdir "$work/server$i" >/dev/null
done
sleep 1
$bin/cli/tessera fleet status --tracker "$tracker"

for task in "$dense" "$conv"; do
  echo
  echo "== tune $task on the fleet ($trials trials, xgb)"
  $bin/cli/tessera tune --task "$task" --target "$target" --trials "$trials" --tuner xgb \
    --db "$work/tuning.db" --rpc-tracker "$tracker" --rpc-key demo-cpu
done

echo
echo "== the tuning log"
$bin/cli/tessera log stats --db "$work/tuning.db"
$bin/cli/tessera log best --db "$work/tuning.db"

echo
echo "== build with the best records vs the untuned default, against OpenBLAS, oneDNN and PyTorch"
$bin/bench/tuned_ops --db "$work/tuning.db" --task "$dense" --task "$conv" --target "$target" \
  --threads 1,2

echo
echo "== runtime alone: load a kernel library, run and time it, save and load parameters"
cc -O2 -shared -fPIC -I. -o "$work/saxpy.so" deploy/demo/saxpy.c
$bin/deploy/runtime_demo "$work/saxpy.so" "$work"
size=$(strip -o "$work/rt.so" $bin/runtime/libtessera_runtime.so && stat -c %s "$work/rt.so")
echo "stripped runtime library: $size bytes"

echo
echo "== deploy: a ResNet-style block (deploy/demo/make_conv_block.py: two 3x3 convolutions of 64"
echo "   channels at 56x56, batch norm, ReLU, residual add): tune its tasks on the fleet, compile one"
echo "   file each without and with the records, run them with the runtime-only tessera-run, then on"
echo "   a fleet device"
cnn=$work/conv_block.onnx
/usr/bin/python3 deploy/demo/make_conv_block.py "$cnn"
$bin/cli/tessera tune "$cnn" --target "$target" --trials "$trials" --tuner xgb --db "$work/cnn.db" \
  --rpc-tracker "$tracker" --rpc-key demo-cpu | tail -3
$bin/cli/tessera compile "$cnn" --target "$target" -o "$work/untuned.tsr" 2>/dev/null | tail -1
$bin/cli/tessera compile "$cnn" --target "$target" --db "$work/cnn.db" -o "$work/tuned.tsr" \
  2>/dev/null | tail -1
echo "artifact: $(stat -c %s "$work/tuned.tsr") bytes"
median() { sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$1" | head -1; }
threads() { sed -n 's/.* \([0-9]*\) threads\{0,1\};.*/\1/p' <<<"$1" | head -1; }
out=$($bin/deploy/tessera-run "$work/untuned.tsr" --repeat 200) && echo "$out"
untuned=$(median "$out")
out=$($bin/deploy/tessera-run "$work/tuned.tsr" --repeat 200 --output "$work/local.npy") && echo "$out"
tuned=$(median "$out")
used=$(threads "$out")
$bin/cli/tessera run "$work/tuned.tsr" --rpc-tracker "$tracker" --rpc-key demo-cpu --repeat 200 \
  --output "$work/fleet.npy"
/usr/bin/python3 -c "
import numpy as np, sys
same = (np.load('$work/local.npy') == np.load('$work/fleet.npy')).all()
print('the fleet device\'s output is the local one, bitwise' if same else 'OUTPUTS DIFFER')
sys.exit(0 if same else 1)"
echo
echo "== what tuning bought: the block, median of 200 runs here at $used threads"
printf '%-12s %10s\n' build "median ms"
printf '%-12s %10s\n' untuned "$untuned" tuned "$tuned"
echo "tuned is $(awk "BEGIN { printf \"%.2f\", $untuned / $tuned }")x faster than untuned" \
  "after $trials trials on the fleet"
$bin/cli/tessera log best --db "$work/cnn.db"
size=$(strip -o "$work/tessera-run" $bin/deploy/tessera-run && stat -c %s "$work/tessera-run")
echo "stripped tessera-run: $size bytes"

echo
echo "== pictures: the block's tuned build against its untuned one, kernel by kernel, and the"
echo "   tuning curves of its tasks"
reports=${DEMO_REPORTS:-demo-reports}
mkdir -p "$reports"
$bin/cli/tessera run "$work/tuned.tsr" --profile --repeat 50 --report "$reports/profile.html" \
  --compare "$work/untuned.tsr" >/dev/null
$bin/cli/tessera log curve --db "$work/cnn.db" -o "$reports/tuning-curve.svg"
$bin/cli/tessera log curve --db "$work/cnn.db" -o "$reports/tuning-curve.html" >/dev/null
echo "open $(readlink -f "$reports")/profile.html (tuned against untuned, per kernel call) and"
echo "     $(readlink -f "$reports")/tuning-curve.svg in a browser"

#!/usr/bin/env bash
# Sets everything up (Debian packages only), builds, and runs the main job end to end:
# a local device fleet (tracker + two rpc_servers on loopback), tuning of a dense and a conv2d
# task through it into a SQLite tuning log, the best records, tuned vs untuned builds against
# OpenBLAS, the runtime on its own, and a small CNN compiled into one artifact run by the
# runtime-only runner.
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
echo "== deploy: a small CNN (deploy/demo/small_cnn.onnx: conv, batch norm, residual add, ReLU)"
echo "   compiled into one file and run by the runtime-only tessera-run"
$bin/cli/tessera compile deploy/demo/small_cnn.onnx --target "$target" --db "$work/tuning.db" \
  -o "$work/small_cnn.tsr" 2>/dev/null | tail -1
echo "artifact: $(stat -c %s "$work/small_cnn.tsr") bytes"
$bin/deploy/tessera-run "$work/small_cnn.tsr" --repeat 20
size=$(strip -o "$work/tessera-run" $bin/deploy/tessera-run && stat -c %s "$work/tessera-run")
echo "stripped tessera-run: $size bytes"

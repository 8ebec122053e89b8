#!/usr/bin/env bash
# `tessera run model.tsr --rpc-tracker … --rpc-key …` on a loopback fleet: the device's outputs are
# bitwise those of the local `tessera run` (a C-target artifact's too, its kernels compiled on the
# device); an artifact the device refuses (a CPU feature it lacks)
# gives the device's message; a device killed mid-run gives "device lost" and exit 1, not a hang.
# Leaves no process behind.
set -uo pipefail
tessera=$1 tracker_binary=$2 server_binary=$3 helper=$4 model=$5
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/remote-run-test.XXXXXX")
. tests/testing/checks.sh
. "$helper"
DAEMON_PIDS=$work/pids
trap daemon_stop_all EXIT
export TESSERA_NUM_THREADS=1  # the servers' workers too: steadier on a loaded machine

$tessera compile "$model" --target 'llvm -mcpu=native' -o "$work/model.tsr" >/dev/null 2>&1 ||
  { echo "FAIL: compile"; exit 1; }
tracker=$(daemon_start "$work/tracker.log" "$tracker_binary" --listen 127.0.0.1:0 \
  --state "$work/tracker-state" --heartbeat-ms 200 --lease-timeout-ms 2500) || exit 1
daemon_start "$work/cpu.log" "$server_binary" --tracker "$tracker" --key cpu \
  --listen 127.0.0.1:0 --workdir "$work/cpu" >/dev/null || exit 1
fleet=(--rpc-tracker "$tracker" --rpc-key cpu)

# The same inputs (the model's deterministic random data, then a given .npy) both ways.
$tessera run "$work/model.tsr" --output "$work/local.npy" >/dev/null
out=$($tessera run "$work/model.tsr" "${fleet[@]}" --output "$work/remote.npy" --repeat 5)
check "runs on the fleet device" test $? -eq 0
check "reports the device's load, first-run and latency" \
  grep -q "on device 127.0.0.1:.*load .* ms, first run .* ms; device latency over 5 runs" <<<"$out"
check "the device's output is the local run's, bitwise" same_npy "$work/local.npy" "$work/remote.npy"
input=$(/usr/bin/python3 -c "
import numpy as np, onnx
m = onnx.load('$model'); init = {i.name for i in m.graph.initializer}
x = [i for i in m.graph.input if i.name not in init][0]
shape = [d.dim_value for d in x.type.tensor_type.shape.dim]
np.save('$work/x.npy', np.sin(0.1 * np.arange(np.prod(shape))).astype(np.float32).reshape(shape))
print(x.name)")
$tessera run "$work/model.tsr" --input "$input=$work/x.npy" --output "$work/local_x.npy" >/dev/null
$tessera run "$work/model.tsr" "${fleet[@]}" --input "$input=$work/x.npy" \
  --output "$work/remote_x.npy" >/dev/null
check "given inputs: the device's output is the local run's" \
  same_npy "$work/local_x.npy" "$work/remote_x.npy"
# A C-target artifact: the device compiles its kernels when it loads the model.
$tessera compile "$model" --target c -o "$work/c.tsr" >/dev/null 2>&1
$tessera run "$work/c.tsr" --output "$work/local_c.npy" >/dev/null
$tessera run "$work/c.tsr" "${fleet[@]}" --output "$work/remote_c.npy" >/dev/null
check "a C-target artifact, compiled on the device, gives the local run's output" \
  same_npy "$work/local_c.npy" "$work/remote_c.npy"
json=$($tessera run "$work/model.tsr" "${fleet[@]}" --json --repeat 2)
check "--json gives the device's timings" grep -q '"load_ms":.*"first_run_ms":.*"median_ms":' <<<"$json"
# The device runs an artifact at its target's thread count, one without a count on every core
# (this server's TESSERA_NUM_THREADS is empty: unset), and the device's own setting wins.
$tessera compile "$model" --target 'llvm -mcpu=native -num-threads=1' -o "$work/one.tsr" \
  >/dev/null 2>&1
TESSERA_NUM_THREADS= daemon_start "$work/cores.log" "$server_binary" --tracker "$tracker" \
  --key cores --listen 127.0.0.1:0 --workdir "$work/cores" >/dev/null || exit 1
out=$($tessera run "$work/one.tsr" --rpc-tracker "$tracker" --rpc-key cores --repeat 2)
check "the device runs at the target's thread count" grep -q "over 2 runs at 1 thread:" <<<"$out"
out=$($tessera run "$work/model.tsr" --rpc-tracker "$tracker" --rpc-key cores --json)
check "the device runs a target without a count on every core" \
  grep -q "\"threads\":$(nproc)" <<<"$out"
out=$($tessera run "$work/model.tsr" "${fleet[@]}" --json)
check "the device's TESSERA_NUM_THREADS sets the count" grep -q '"threads":1' <<<"$out"
err=$($tessera run "$work/model.tsr" --rpc-tracker "$tracker" 2>&1 >/dev/null)
check "--rpc-tracker without --rpc-key is a user error" test $? -eq 2
check "... that says so" grep -q -- "--rpc-key KEY go together" <<<"$err"

# A device whose CPU lacks the kernels' features refuses the artifact, and says why.
features=$(head -c 400 "$work/model.tsr" | sed -n 's/^cpu-features //p' | head -1)
if [ -z "$features" ] || [ "$features" = "-" ]; then
  skip "a device lacking a CPU feature refuses the artifact" \
    "the artifact needs no CPU feature this machine can hide"
else
  TESSERA_HIDE_CPU_FEATURES=$features daemon_start "$work/old.log" "$server_binary" \
    --tracker "$tracker" --key old-cpu --listen 127.0.0.1:0 --workdir "$work/old" >/dev/null ||
    exit 1
  err=$($tessera run "$work/model.tsr" --rpc-tracker "$tracker" --rpc-key old-cpu 2>&1)
  check "a refused artifact exits 1" test $? -eq 1
  check "... with the device's message" \
    grep -q "the kernels need CPU features this machine lacks: ${features%%,*}" <<<"$err"
  echo "$err"
fi

# A device killed while the model runs: "device lost", promptly.
daemon_start "$work/doomed.log" "$server_binary" --tracker "$tracker" --key doomed \
  --listen 127.0.0.1:0 --workdir "$work/doomed" --call-timeout-ms 120000 >/dev/null || exit 1
doomed=$(tail -1 "$DAEMON_PIDS")
start=$(date +%s)
$tessera run "$work/model.tsr" --rpc-tracker "$tracker" --rpc-key doomed --repeat 1000000 \
  >"$work/doomed.out" 2>"$work/doomed.err" &
client=$!
for i in $(seq 300); do  # the worker starts when the model loads; the runs follow at once
  pgrep -P "$doomed" >/dev/null && break
  sleep 0.1
done
sleep 1
kill -KILL "$doomed"
for i in $(seq 300); do
  kill -0 "$client" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$client" 2>/dev/null; then
  kill -KILL "$client"
  check "the client gave up within 30 s of the device's death" false
fi
wait "$client"
status=$?
check "a device lost mid-run exits 1 (got $status)" test "$status" -eq 1
check "... saying 'device lost'" grep -q "device lost" "$work/doomed.err"
cat "$work/doomed.err"
echo "the run on the doomed device ended $(($(date +%s) - start)) s after it started"

checks_done

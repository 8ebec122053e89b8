#!/usr/bin/env bash
# A phone (or a 32-bit board) in the fleet: a wholly static rpc_server (tessera-rpc-server-android)
# runs under user-mode qemu in a root directory holding no ARM C library, loader, /etc, /proc or
# /tmp (tests/testing/empty_root.sh), writes only under /data/local/tmp, registers with the x86
# tracker by its literal address, and
#   - a 16-trial tune for its target records 16 good measurements through it: candidates loaded
#     by the runtime's own loader;
#   - a model artifact for that target runs through it (`tessera run --rpc-tracker`) with the
#     output of the x86 build of the same model.
# Arguments: tessera, tracker, server, tools/daemons.sh, the model, then the emulator
# (qemu-aarch64, qemu-arm), the device key, the target and the task tuned.
# Skips (saying why) without the cross toolchain, qemu-user or a way to change the root directory.
set -uo pipefail
tessera=$1 tracker_binary=$2 server=$3 helper=$4 model=$5 emulator=$6 key=$7 target=$8 task=$9
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/phone-test.XXXXXX")
. tests/testing/checks.sh
. tests/testing/empty_root.sh
. "$helper"
DAEMON_PIDS=$work/pids
trap daemon_stop_all EXIT

if head -c 4 "$server" | grep -q SKIP; then
  skip "the device's server tunes and runs models" "$(cat "$server")"
  checks_done
fi
check "the device's server has no program interpreter" \
  bash -c "! readelf -l '$server' | grep -qi interpreter"
check "... and needs no shared library" bash -c "readelf -d '$server' | grep -q 'no dynamic section'"
why=$(empty_root_unavailable)
if [ -n "$why" ]; then
  skip "the device's server tunes and runs models" "$why"
  checks_done
fi

root=$work/root
empty_root_make "$root"
cp "$server" "$root/tessera-rpc-server"
# The server starts its call worker by executing a program: on the phone itself, but here the
# host kernel cannot run an aarch64 binary, so the worker goes through the emulator too.
printf '#!/bin/sh\nexec /usr/bin/%s /tessera-rpc-server "$@"\n' "$emulator" >"$root/phone.sh"
chmod 755 "$root/phone.sh"

# Run as root, the server's worker would run as nobody, a name a static program cannot look up.
err=$(EMPTY_ROOT_TIMEOUT=120 empty_root_run "$root" "/usr/bin/$emulator" /tessera-rpc-server \
  --tracker 127.0.0.1:1 --key "$key" --workdir /data/local/tmp/probe --worker-user nobody 2>&1)
check "a user name is refused with a hint (no name service)" test $? -eq 2
check "... that says to give a number" grep -q "give the user's number" <<<"$err"

tracker=$(daemon_start "$work/tracker.log" "$tracker_binary" --listen 127.0.0.1:0 \
  --state "$work/tracker-state" --heartbeat-ms 200 --lease-timeout-ms 5000) || exit 1
empty_root_command "$root"
timeout -s KILL 900 "${EMPTY_ROOT[@]}" "/usr/bin/$emulator" /tessera-rpc-server \
  --tracker "$tracker" --key "$key" --listen 127.0.0.1:0 --target "$target" \
  --workdir /data/local/tmp/tessera --worker-executable /phone.sh \
  --worker-user "$(empty_root_worker_user)" --call-timeout-ms 60000 >"$work/phone.log" 2>&1 &
echo $! >>"$DAEMON_PIDS"
registered=no
for _ in $(seq 600); do
  if $tessera fleet status --tracker "$tracker" 2>/dev/null | grep -q "$key"; then
    registered=yes
    break
  fi
  sleep 0.1
done
check "the device's server registers with the tracker" test "$registered" = yes
[ "$registered" = yes ] || { cat "$work/phone.log"; checks_done; }

out=$($tessera tune --task "$task" --target "$target" --rpc-tracker "$tracker" --rpc-key "$key" \
  --trials 16 --batch 8 --tuner random --number 1 --repeat 1 --db "$work/phone.db" 2>&1)
check "a 16-trial tune for its target runs on the device" test $? -eq 0
good=$($tessera log list --db "$work/phone.db" --json |
  grep "\"device_key\":\"$key\"" | grep -c '"error_kind":"OK"')
check "... and records 16 good measurements made there" test "$good" = 16
[ "$good" = 16 ] || { echo "$out" | tail -20; cat "$work/phone.log" | tail -20; }

$tessera compile "$model" --target "$target" -o "$work/phone.tsr" >/dev/null 2>&1
$tessera compile "$model" --target llvm -o "$work/x86.tsr" >/dev/null 2>&1
$tessera run "$work/x86.tsr" --output "$work/x86.npy" >/dev/null
out=$($tessera run "$work/phone.tsr" --rpc-tracker "$tracker" --rpc-key "$key" \
  --output "$work/phone.npy" 2>&1)
check "an artifact for its target runs on the device through the tracker" test $? -eq 0
echo "$out" | tail -3
check "... with the x86 build's output" /usr/bin/python3 -c "
import numpy as np, sys
a, x = np.load('$work/phone.npy'), np.load('$work/x86.npy')
print('max |phone - x86| =', np.abs(a - x).max())
sys.exit(0 if np.allclose(a, x, rtol=1e-4, atol=1e-4 * np.abs(x).max()) else 1)"
checks_done

#!/usr/bin/env bash
# docs/getting-started.md run as written, on one machine: the workstation's commands here, the
# Raspberry Pi's in ./board under qemu-user (tests/docs/getting_started_script.py turns the page's
# code blocks into steps and says what it changes: loopback addresses, ports the system picked,
# fewer trials and runs). Each command is a check; so are the page's claims between them: the
# fleet lists the Pi under rpi4 with arch aarch64, the artifact's output on the board has the
# model's shape, and CI's compile with the read-only token either builds or exits 1 for low
# coverage, as the page says. Skips where the emulator or the aarch64 build is missing.
set -uo pipefail
page=docs/getting-started.md
script_maker=tests/docs/getting_started_script.py
BIN=$PWD
QEMU=$PWD/tools/qemu_aarch64.sh
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/getting-started.XXXXXX")
. tests/testing/checks.sh
server=$BIN/rpc_server/aarch64/tessera-rpc-server-static
if [ ! -x /usr/bin/qemu-aarch64 ] || [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] ||
   head -c 4 "$server" | grep -q SKIP; then
  skip "the page on an emulated board" \
    "it needs qemu-user, the aarch64 C library and the arm64 build (tools/setup.sh installs them)"
  checks_done
fi
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
TRACKER_PORT=$(free_port) BOARD_PORT=$(free_port)
export BIN QEMU TRACKER_PORT BOARD_PORT
cleanup() { kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
mkdir board
printf '#!/bin/sh\nexec %s %s/tessera-rpc-server-static "$@"\n' "$QEMU" "$work/board" >board/arm-board.sh
chmod +x board/arm-board.sh

# The page's claims checked after the steps that make them true.
after_step() {
  case "$1" in
    *tessera-tracker\ --listen*)
      for _ in $(seq 100); do
        tessera fleet status --tracker "127.0.0.1:$TRACKER_PORT" --token-file token >/dev/null 2>&1 && return
        sleep 0.1
      done ;;
    *"(board)"*tessera-rpc-server-static*)
      for _ in $(seq 120); do
        tessera fleet status --tracker "127.0.0.1:$TRACKER_PORT" --token-file token >status.txt 2>&1
        grep -q "rpi4.*aarch64" status.txt && break
        sleep 0.5
      done
      check "2: the fleet lists the Pi under rpi4, arch aarch64" grep -q "rpi4.*aarch64" status.txt
      grep rpi4 status.txt
      [ $failures -eq 0 ] || { echo "--- board server"; tail -20 board/server.log; } ;;
    *"(board)"*tessera-run*)
      check "4: the board wrote the model's output" /usr/bin/python3 -c "
import numpy as np, sys
y = np.load('board/y.npy')
sys.exit(0 if y.shape == (1, 1000) and np.isfinite(y).all() else 1)" ;;
  esac
}

step() {  # step NAME COMMAND: one command of the page
  local name=$1 command=$2 rc
  echo "+ $command"
  : >step.out
  if [[ "$command" == *" &" ]]; then
    eval "$command"
    rc=$?
  else
    eval "$command" >step.out 2>&1  # in this shell: the page's `export PATH` holds for the rest
    rc=$?
    tail -5 step.out
  fi
  if [[ "$command" == *--min-coverage* ]] && [ $rc -eq 1 ] &&
     grep -q "below --min-coverage" step.out; then
    echo "(exit 1: the log covers less than --min-coverage, as the page says it may)"
    rc=0
  fi
  [ $rc -eq 0 ] || echo "(exit $rc)"
  check "$name" test $rc -eq 0
  after_step "$name"
}

/usr/bin/python3 "$BIN/$script_maker" "$BIN/$page" >steps.sh || exit 1
. ./steps.sh
checks_done

#!/usr/bin/env bash
# `tessera job` and `tessera worker` without a tracker: exit statuses of the error policy and the
# checks made before anything is sent (the commands against a live tracker are tested in
# tests/integration/job_test.cc).
set -uo pipefail
tessera=cli/tessera
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
submit=(job submit --tracker 127.0.0.1:1 --target llvm --rpc-key cpu --trials 8)

err=$($tessera "${submit[@]}" --task 'dense.x86(16,16,16,float32)' 2>&1); rc=$?
check "unreachable tracker exits 1" test $rc -eq 1
check "unreachable tracker is named" grep -q "^error: tracker 127.0.0.1:1 (Submit)" <<<"$err"
# The Arm twin for an x86 target: a note naming the template builds for it run, before the
# submission itself (which fails here: no tracker listens on port 1).
err=$($tessera "${submit[@]}" --task 'dense.arm(16,16,16,float32)' 2>&1)
check "another family's template is noted" grep -q "^note: model builds for 'llvm' run dense.x86, not dense.arm: these records configure no model build for it (tune 'dense.x86(16,16,16,float32)' for one)" <<<"$err"
err=$($tessera "${submit[@]}" --task 'nosuch.x86(1)' 2>&1); rc=$?
check "unknown template exits 2" test $rc -eq 2
check "unknown template is named" grep -q "nosuch" <<<"$err"
err=$($tessera "${submit[@]}" 2>&1); rc=$?
check "neither model nor task exits 2" test $rc -eq 2
check "neither model nor task is explained" grep -q "give either a model" <<<"$err"
err=$($tessera job submit --tracker 127.0.0.1:1 --target 'llvm -mcpu=nosuchcpu' --rpc-key cpu \
  --trials 8 --task 'dense.x86(16,16,16,float32)' 2>&1); rc=$?
check "unknown cpu exits 2" test $rc -eq 2
err=$($tessera "${submit[@]}" --task 'dense.x86(16,16,16,float32)' --priority 5000 2>&1); rc=$?
check "priority out of range exits 2" test $rc -eq 2
err=$($tessera job submit --tracker 127.0.0.1:1 --target 'cuda -arch=sm_80' --rpc-key gpu \
  --trials 8 --task 'dense.cuda(16,16,16,float32)' --cold-weights on 2>&1); rc=$?
check "cold weights on a GPU target exit 2" test $rc -eq 2
check "and say they are for CPU targets" grep -q "cold-weights on is for CPU targets" <<<"$err"
err=$($tessera "${submit[@]}" --task 'dense.x86(16,16,16,float32)' --cold-weights hot 2>&1); rc=$?
check "a bad --cold-weights exits 2" test $rc -eq 2
err=$($tessera job status --tracker 127.0.0.1:1 2>&1); rc=$?
check "status without an id exits 2" test $rc -eq 2
err=$($tessera job cancel abc --tracker 127.0.0.1:1 2>&1); rc=$?
check "cancel against no tracker exits 1" test $rc -eq 1
err=$($tessera worker 2>&1); rc=$?
check "worker without --tracker exits 2" test $rc -eq 2
err=$($tessera worker --tracker 127.0.0.1:1 --parallel 0 2>&1); rc=$?
check "worker --parallel 0 exits 2" test $rc -eq 2
out=$($tessera job submit --help); rc=$?
check "--help exits 0" test $rc -eq 0
check "--help lists --rpc-key" grep -q "\-\-rpc-key TEXT REQUIRED" <<<"$out"

echo "$failures failures"
exit $((failures > 0))

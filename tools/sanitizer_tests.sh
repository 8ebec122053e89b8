#!/usr/bin/env bash
# Runs the fleet's and the runtime's tests under AddressSanitizer + UndefinedBehaviorSanitizer
# (--config=asan) and ThreadSanitizer (--config=tsan): runtime, rpc_server, tracker, tuning
# log, the fuzzers and the fleet's integration tests. Each config builds into its own output
# directory. Prints the time each config took and, per config, a line
# 'sanitizer_tests: CONFIG: N passed, N failed, N skipped' counting the test cases of that run
# (tools/count_tests.py, which lists the failures and skips above it);
# exits non-zero when any test fails.
#   tools/sanitizer_tests.sh [asan] [tsan] [-- extra bazel flags]
set -uo pipefail
cd "$(dirname "$0")/.."

configs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do configs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#configs[@]} -eq 0 ] && configs=(asan tsan)

targets=(
  //tests/runtime/... //tests/rpc_server/... //tests/tracker/... //tests/records/...
  //tests/tools/... //tests/integration/...
  //tests/compiler/driver:target_fuzz_test //tests/compiler/space:config_proto_fuzz_test
  //tests/compiler/task:workload_key_fuzz_test
  # Sizes and linked libraries differ under a sanitizer by design.
  -//tests/runtime:runtime_size_test -//tests/rpc_server:no_compiler_test
  # Its board is an uninstrumented aarch64 binary under qemu; what it adds on the host is a
  # tuning run whose candidate builds, slowed down by the sanitizer, pass their 60 s limit.
  -//tests/integration:arm_board_test
  # Its workers fork candidate builds while their gRPC threads run; Debian 12's libasan (gcc 12)
  # does not intercept fork, so a child can inherit the sanitizer allocator's lock held by another
  # thread and stall until its build limit (seen once under load: a 60 s COMPILE_ERROR). The test
  # runs in the main suite; the job board runs here (//tests/tracker/jobs).
  -//tests/integration:job_test
)

status=0
for config in "${configs[@]}"; do
  start=$(date +%s)
  extra=()
  chosen=("${targets[@]}")
  if [ "$config" = asan ]; then
    # The fleet tests' measurers fork candidate builds while gRPC threads run too (the fork hazard
    # above): a stalled child ends as a 60 s COMPILE_ERROR (device_loss_test, once in a CI run
    # on this 2-core machine, then 4 of 4 runs passed). Such a test gets a second attempt; a real
    # failure fails both.
    extra=("--flaky_test_attempts=//tests/integration:.*@2")
  fi
  if [ "$config" = tsan ]; then
    extra=("--test_env=TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:suppressions=$PWD/tools/tsan.supp")
    # Debian's gRPC is not instrumented: ThreadSanitizer cannot see its synchronisation, so
    # every message it hands between threads is reported. Tests of code with gRPC threads run
    # under ASan only.
    chosen+=(-//tests/integration/... -//tests/tracker:tracker_service_test
      -//tests/tracker:log_service_test -//tests/tools:daemons_test
      -//tests/rpc_server:worker_confinement_test
      # Debian's cpp-httplib is a shared library, not instrumented either (its worker pool).
      -//tests/tracker/dashboard:dashboard_test)
  fi
  # The count reads this run's build events, so that another config's or an older run's XML
  # files in the testlogs directory never count.
  bep=$(mktemp --suffix=.bep.json)
  bazel test --config="$config" --keep_going --build_event_json_file="$bep" "${extra[@]}" "$@" \
    -- "${chosen[@]}" || status=1
  echo "sanitizer_tests: --config=$config took $(($(date +%s) - start)) s"
  # Test targets the patterns name (exclusions included): one with no result in the run fails.
  expression=$(printf '%s\n' "${chosen[@]}" | awk '/^-/ {ex = ex " - " substr($0, 2); next}
                                                   {in_ = in_ (in_ ? " + " : "") $0}
                                                   END {print "tests(" in_ ")" ex}')
  counted=$(bazel query "$expression" 2>/dev/null) || status=1
  # shellcheck disable=SC2086
  report=$(python3 tools/count_tests.py "$bep" $counted) || status=1
  rm -f "$bep"
  grep -v '^[0-9]* passed, ' <<<"$report"
  echo "sanitizer_tests: $config: $(tail -n 1 <<<"$report")"
done
exit $status

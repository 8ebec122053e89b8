#!/usr/bin/env bash
# Sets everything up and runs every test. Prints 'N passed, N failed, N skipped' last: the test
# cases of this run (tools/count_tests.py).
# Extra arguments are passed to `bazel test` (e.g. ./test.sh --test_filter='NDArray*', which
# counts the selected cases only).
set -uo pipefail
cd "$(dirname "$0")"

./tools/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

# The CUDA backend's tests find the toolkit from the nvcc on PATH (never a fixed path); they skip
# with a message where there is none. Its root is what nvcc itself reports, since the nvcc on PATH
# may be a wrapper script outside the toolkit.
if [ -z "${TESSERA_CUDA_HOME:-}" ] && command -v nvcc > /dev/null; then
  cuda_top=$(nvcc -dryrun -E -x cu /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)
  [ -n "$cuda_top" ] && export TESSERA_CUDA_HOME="$(readlink -f "$cuda_top")"
fi

targets=$(bazel query 'tests(//...)' 2>/dev/null) || {
  echo "bazel query failed:"; bazel query 'tests(//...)'; echo "0 passed, 1 failed"; exit 1; }

# The count comes from this run's own record (its build events), not from whatever XML files the
# testlogs directory holds: those may be another configuration's, or a test's last XML from
# before it failed to build.
bep=$(mktemp --suffix=.bep.json)
trap 'rm -f "$bep"' EXIT
bazel test --keep_going --build_event_json_file="$bep" "$@" //...
status=$?

# shellcheck disable=SC2086
python3 tools/count_tests.py "$bep" $targets
count_status=$?
if [ $status -ne 0 ] || [ $count_status -ne 0 ]; then exit 1; fi
exit 0

#!/usr/bin/env bash
# Sets everything up and runs every test. Prints 'N passed, N failed, N skipped' last.
# Extra arguments are passed to `bazel test` (e.g. ./test.sh --test_filter=NDArray*).
set -uo pipefail
cd "$(dirname "$0")"

./tools/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

# The CUDA backend's tests find the toolkit from the nvcc on PATH (never a fixed path); they skip
# with a message where there is none.
if [ -z "${TESSERA_CUDA_HOME:-}" ] && nvcc_path=$(command -v nvcc); then
  export TESSERA_CUDA_HOME="$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")"
fi

targets=$(bazel query 'tests(//...)' 2>/dev/null) || {
  echo "bazel query failed:"; bazel query 'tests(//...)'; echo "0 passed, 1 failed"; exit 1; }

bazel test --keep_going "$@" //... 
status=$?

python3 tools/count_tests.py "$(bazel info bazel-testlogs 2>/dev/null)" $targets
count_status=$?
if [ $status -ne 0 ] || [ $count_status -ne 0 ]; then exit 1; fi
exit 0

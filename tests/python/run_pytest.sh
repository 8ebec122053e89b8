#!/usr/bin/env bash
# Runs the `tessera` package's pytest suite in place from the runfiles (python/tessera with the
# extension module Bazel built beside it), each case in the JUnit XML the test count reads.
set -uo pipefail
export PYTHONPATH="$PWD/python"
export TESSERA_CLI="$PWD/cli/tessera"
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml="${XML_OUTPUT_FILE:-/dev/null}" \
  --basetemp="${TEST_TMPDIR:-$(mktemp -d)}/pytest" "$@"

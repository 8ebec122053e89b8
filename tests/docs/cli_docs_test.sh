#!/usr/bin/env bash
# docs/cli.md must be exactly what tools/cli_docs.py makes of the programs' --help.
set -euo pipefail
generated="${TEST_TMPDIR:-/tmp}/cli.md"
python3 tools/cli_docs.py cli/tessera tracker/tessera-tracker rpc_server/tessera-rpc-server \
  deploy/tessera-run >"$generated"
if ! diff -u docs/cli.md "$generated"; then
  echo "docs/cli.md is stale: the flags changed. Regenerate it (see the top of docs/cli.md)." >&2
  exit 1
fi
echo "docs/cli.md matches every program's --help"

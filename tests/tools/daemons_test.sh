#!/usr/bin/env bash
# tools/daemons.sh, as demo.sh uses it (the tracker started inside a command substitution),
# leaves no process behind and prints nothing on stderr.
set -uo pipefail
helper=$1 tracker_binary=$2 server_binary=$3
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/daemons-test.XXXXXX")
marker=$work/marker  # in every daemon's arguments: pgrep finds ours and nobody else's
fail() {
  echo "FAIL: $*"
  pkill -KILL -f "$marker" 2>/dev/null
  exit 1
}
. "$helper"
DAEMON_PIDS=$work/pids
errors=$work/stderr
tracker=$(daemon_start "$work/tracker.log" "$tracker_binary" --listen 127.0.0.1:0 \
  --state "$marker-state" 2>>"$errors") || fail "the tracker did not start"
for i in 1 2; do
  daemon_start "$work/server$i.log" "$server_binary" --tracker "$tracker" --key cpu \
    --workdir "$marker-server$i" >/dev/null 2>>"$errors" || fail "server $i did not start"
done
running=$(pgrep -f "$marker" | wc -l)
[ "$running" -eq 3 ] || fail "expected 3 daemons running, found $running"
daemon_stop_all 2>>"$errors"
left=$(pgrep -af "$marker")
[ -z "$left" ] || fail "processes left after daemon_stop_all: $left"
[ ! -s "$errors" ] || fail "stderr was not empty: $(cat "$errors")"
echo "ok: 3 daemons started (one in a command substitution) and all stopped"

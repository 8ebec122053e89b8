# Starts and stops the fleet's daemons from shell scripts (demo.sh, tests). Every daemon's pid
# goes to the file $DAEMON_PIDS, so a daemon started inside a command substitution, whose pid
# the calling shell never sees, is stopped too.
#   . tools/daemons.sh
#   DAEMON_PIDS=$work/pids
#   address=$(daemon_start "$work/tracker.log" bazel-bin/tracker/tessera-tracker --listen 127.0.0.1:0)
#   daemon_stop_all    # SIGTERM, SIGKILL after 5 s; returns once every daemon is gone

# Starts `COMMAND...` with its output in LOG, waits (10 s) for its "listening on HOST:PORT"
# line and prints HOST:PORT; on failure prints the log to stderr and returns 1.
daemon_start() {
  local log=$1
  shift
  : >"$log"
  "$@" >"$log" 2>&1 &
  local pid=$!
  echo "$pid" >>"${DAEMON_PIDS:?set DAEMON_PIDS to the file of daemon pids}"
  local i
  for i in $(seq 100); do
    if grep -q '^listening on ' "$log"; then
      sed -n 's/^listening on //p' "$log" | head -1
      return 0
    fi
    daemon_alive "$pid" || break
    sleep 0.1
  done
  echo "$1 did not start; its log ($log):" >&2
  cat "$log" >&2
  return 1
}

# True while process PID runs (a zombie, dead but not yet reaped, does not count).
daemon_alive() {
  [ -e "/proc/$1" ] && ! grep -q ') Z ' "/proc/$1/stat" 2>/dev/null
}

# Stops every daemon listed in $DAEMON_PIDS and empties the list.
daemon_stop_all() {
  [ -f "${DAEMON_PIDS:-}" ] || return 0
  local pid i
  while read -r pid; do kill -TERM "$pid" 2>/dev/null || true; done <"$DAEMON_PIDS"
  while read -r pid; do
    for i in $(seq 50); do
      daemon_alive "$pid" || break
      sleep 0.1
    done
    if daemon_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done <"$DAEMON_PIDS"
  : >"$DAEMON_PIDS"
  wait 2>/dev/null || true
}

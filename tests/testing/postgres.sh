#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benchmarks: Debian's postgresql binaries, a cluster
# initialised in a fresh directory under /tmp, reachable only through a Unix socket in that
# directory (no TCP port at all), trust authentication for the user "tessera".
#
#   postgres.sh start          prints the server's directory ROOT (exit 77: no server binaries)
#   postgres.sh uri ROOT DB    prints the URI of database DB on it
#   postgres.sh createdb ROOT DB
#   postgres.sh restart ROOT   stops it at once (as a crash would) and starts it again
#   postgres.sh stop ROOT      stops it at once and removes ROOT
#
# initdb refuses to run as root, so as root the server runs as the "postgres" user that Debian's
# package creates. PG_DURABLE=1 keeps fsync on (benchmarks); tests run without it. PG_SERVER_OPTS
# adds server settings ("-c shared_buffers=1GB").
set -euo pipefail

bin_dir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  return 1
}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    # Test runners keep PATH short; runuser lives in /usr/sbin or /sbin.
    local runuser
    runuser=$(PATH="$PATH:/usr/sbin:/sbin" command -v runuser)
    "$runuser" -u postgres -- "$@"
  else
    "$@"
  fi
}

case "${1:-}" in
  start)
    if ! BIN=$(bin_dir); then
      echo "postgres.sh: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb); install Debian's postgresql" >&2
      exit 77
    fi
    ROOT=$(mktemp -d /tmp/tessera-pg.XXXXXX)
    chmod 755 "$ROOT"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$ROOT"; fi
    if ! as_owner "$BIN/initdb" -D "$ROOT/data" -A trust -U tessera -E UTF8 --no-sync >"$ROOT/initdb.log" 2>&1; then
      echo "postgres.sh: initdb failed:" >&2; cat "$ROOT/initdb.log" >&2; rm -rf "$ROOT"; exit 1
    fi
    FSYNC="-F"
    if [ "${PG_DURABLE:-0}" = 1 ]; then FSYNC=""; fi
    if ! as_owner "$BIN/pg_ctl" -D "$ROOT/data" -w -t 60 -l "$ROOT/server.log" \
        -o "-k $ROOT -c listen_addresses= -c max_connections=300 $FSYNC ${PG_SERVER_OPTS:-}" start >/dev/null; then
      echo "postgres.sh: the server did not start:" >&2; cat "$ROOT/server.log" >&2; rm -rf "$ROOT"; exit 1
    fi
    echo "$ROOT"
    ;;
  uri)
    echo "postgresql:///$3?host=$2&user=tessera"
    ;;
  createdb)
    BIN=$(bin_dir)
    "$BIN/createdb" -h "$2" -U tessera "$3"
    ;;
  restart)  # as after a crash: connections break, the data stays
    BIN=$(bin_dir)
    as_owner "$BIN/pg_ctl" -D "$2/data" -m immediate -w restart -l "$2/server.log" >/dev/null
    ;;
  stop)
    BIN=$(bin_dir) || exit 0
    if [ -d "$2/data" ]; then
      as_owner "$BIN/pg_ctl" -D "$2/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    case "$2" in /tmp/tessera-pg.*) rm -rf "$2" ;; esac
    ;;
  *)
    echo "usage: postgres.sh start | uri ROOT DB | createdb ROOT DB | restart ROOT | stop ROOT" >&2
    exit 2
    ;;
esac

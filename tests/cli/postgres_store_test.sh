#!/usr/bin/env bash
# End to end on a real PostgreSQL server (tests/testing/postgres.sh): every `tessera log` verb and
# a tune read and write a postgresql:// log exactly as they do a SQLite file;
# `tessera log copy` moves records both ways without loss or duplicates; two trackers on one
# database serve each other's records; a password in the URI and a server that is not there are
# clear errors. Skips where the PostgreSQL server binaries are missing.
set -uo pipefail
. tests/testing/checks.sh
tessera=cli/tessera
tracker=tracker/tessera-tracker
pg=tests/testing/postgres.sh
dir="${TEST_TMPDIR:-$(mktemp -d)}"

root=$(bash $pg start 2>"$dir/pg.err"); rc=$?
if [ $rc -eq 77 ]; then
  skip "the PostgreSQL store" "$(cat "$dir/pg.err")"
  checks_done
fi
check "a PostgreSQL server starts" test $rc -eq 0 || { cat "$dir/pg.err"; checks_done; }
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  bash $pg stop "$root"
}
trap cleanup EXIT
db() { bash $pg createdb "$root" "$1" && bash $pg uri "$root" "$1"; }

cp tests/cli/testdata/records.jsonl "$dir/records.jsonl"

# The same verbs give the same answers on both stores.
logs=$(db logs)
for store in "$dir/t.db" "$logs"; do
  kind=sqlite; [ "$store" = "$logs" ] && kind=postgresql
  out=$($tessera log import --db "$store" --file "$dir/records.jsonl")
  check "import into $kind" grep -q "imported 4 records into $store (0 already present)" <<<"$out"
  out=$($tessera log import --db "$store" --file "$dir/records.jsonl")
  check "re-import into $kind skips duplicates" grep -q "imported 0 records .* (4 already present)" <<<"$out"
done
for verb in "best" "stats" "list" "list --json --limit 2" "export"; do
  # shellcheck disable=SC2086
  check "log $verb: PostgreSQL answers as SQLite does" \
    test "$($tessera log $verb --db "$dir/t.db" 2>/dev/null)" = "$($tessera log $verb --db "$logs" 2>/dev/null)"
done
out=$($tessera log best --db "$logs" --task 'dense.x86(64,64,64,float32)' --target 'llvm -mcpu=znver3')
check "best on PostgreSQL picks the fastest on the exact target" grep -q "config 7  1.0000 ms" <<<"$out"

# A build machine's role that may only read (docs/security.md) reads the log and cannot write it.
psql -q "$logs" -c "CREATE ROLE reader LOGIN; GRANT SELECT ON records, tessera_log TO reader" >/dev/null
reader=${logs/user=tessera/user=reader}
out=$($tessera log best --db "$reader" --task 'dense.x86(64,64,64,float32)' --target 'llvm -mcpu=znver3' 2>&1)
check "a read-only role reads the best record" grep -q "config 7  1.0000 ms" <<<"$out"
sed 's/"config_index":"3"/"config_index":"33"/' "$dir/records.jsonl" > "$dir/new.jsonl"
err=$($tessera log import --db "$reader" --file "$dir/new.jsonl" 2>&1); rc=$?
check "a read-only role cannot write (exit 2)" test $rc -eq 2
check "... and says so" grep -q "permission denied" <<<"$err"

# Copy: SQLite → PostgreSQL → a new SQLite file, twice; nothing lost, nothing doubled.
copy=$(db copy)
out=$($tessera log copy --from "$dir/t.db" --to "$copy")
check "copy into PostgreSQL" grep -q "copied 4 records from $dir/t.db to $copy (0 already present)" <<<"$out"
out=$($tessera log copy --from "$dir/t.db" --to "$copy")
check "a second copy adds nothing" grep -q "copied 0 records .* (4 already present)" <<<"$out"
$tessera log copy --from "$copy" --to "$dir/back.db" >/dev/null
check "copy back out of PostgreSQL keeps every record" \
  test "$($tessera log export --db "$dir/back.db")" = "$($tessera log export --db "$dir/t.db")"
err=$($tessera log copy --from "$copy" --to "$copy" 2>&1); rc=$?
check "copy onto itself exits 2" test $rc -eq 2
check "copy onto itself says so" grep -q -- "--from and --to are the same log" <<<"$err"

# A tune writes its records to PostgreSQL, resumes from them, and compile reads them.
tuned=$(db tuned)
task='dense.x86(16,32,8,float32)'
common=(--task "$task" --target llvm --db "$tuned" --number 2 --repeat 2 --batch 4)
$tessera tune "${common[@]}" --trials 8 --tuner random >/dev/null 2>"$dir/tune.err"; rc=$?
check "tune --db postgresql:// exits 0" test $rc -eq 0 || cat "$dir/tune.err"
check "tune recorded its 8 trials in PostgreSQL" grep -q "8 records" <<<"$($tessera log stats --db "$tuned")"
$tessera tune "${common[@]}" --trials 4 --tuner random >/dev/null 2>&1
check "a resumed tune adds to the same log" grep -q "12 records" <<<"$($tessera log stats --db "$tuned")"

# Two trackers on one database: a record pushed to one is served by the other.
shared=$(db shared)
start_tracker() {  # start_tracker NAME: sets port
  $tracker --listen 127.0.0.1:0 --log-db "$shared" >"$dir/$1.out" 2>"$dir/$1.err" &
  pids+=($!)
  for _ in $(seq 100); do
    port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$dir/$1.out")
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  cat "$dir/$1.err"
  return 1
}
start_tracker a && port_a=$port
start_tracker b && port_b=$port
check "two trackers start on one database" test -n "${port_a:-}" -a -n "${port_b:-}"
out=$($tessera log push --db "$dir/t.db" --tracker "127.0.0.1:$port_a")
check "push to the first tracker" grep -q "imported 4 records" <<<"$out"
out=$($tessera log best --tracker "127.0.0.1:$port_b" --task 'dense.x86(64,64,64,float32)' --target 'llvm -mcpu=znver3')
check "the second tracker serves the first one's records" grep -q "config 7  1.0000 ms" <<<"$out"
out=$($tessera log push --db "$dir/t.db" --tracker "127.0.0.1:$port_b")
check "pushing the same records to the second adds nothing" grep -q "imported 0 records .* (4 already present)" <<<"$out"

# Bad locations: clear errors, exit 2, nothing written.
err=$($tessera log stats --db "postgresql://tessera:hunter2@localhost/logs" 2>&1); rc=$?
check "a password in the URI exits 2" test $rc -eq 2
check "a password in the URI is refused, not echoed" \
  bash -c '! grep -q hunter2 <<<"$1" && grep -q "the location holds a password; give it in PGPASSWORD" <<<"$1"' _ "$err"
err=$($tessera log stats --db "postgresql:///logs?host=$dir/nowhere&user=tessera" 2>&1); rc=$?
check "a server that is not there exits 2" test $rc -eq 2
check "a server that is not there is named" grep -q "cannot open tuning log 'postgresql:///logs?host=$dir/nowhere&user=tessera'" <<<"$err"
empty=$(db empty)
err=$($tessera log list --db "$empty" 2>&1); rc=$?
check "an empty database is not a log (exit 2)" test $rc -eq 2
check "an empty database says how to make one" grep -q "holds no Tessera tuning log yet" <<<"$err"

checks_done

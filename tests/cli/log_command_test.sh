#!/usr/bin/env bash
# End to end: `tessera log` imports, queries and exports a tuning log; bad input gives clear errors.
set -uo pipefail
tessera=cli/tessera
dir="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

cp tests/cli/testdata/records.jsonl "$dir/records.jsonl"

out=$($tessera log import --db "$dir/t.db" --file "$dir/records.jsonl")
check "import reports count" grep -q "imported 4 records" <<<"$out"
out=$($tessera log import --db "$dir/t.db" --file "$dir/records.jsonl")
check "re-import skips duplicates" grep -q "imported 0 records .* (4 already present)" <<<"$out"

out=$($tessera log best --db "$dir/t.db" --task 'dense.x86(64,64,64,float32)' --target 'llvm -mcpu=znver3')
check "best picks the fastest on the exact target" grep -q "config 7  1.0000 ms" <<<"$out"
check "best does not mix targets" test "$(wc -l <<<"$out")" -eq 1
check "best shows the template version" grep -q "template v1$" <<<"$out"

out=$($tessera log stats --db "$dir/t.db")
check "stats counts failures" grep -q "3 records, 1 failed, best 1.0000 ms" <<<"$out"

out=$($tessera log list --db "$dir/t.db" --json --limit 2)
check "list --json --limit" test "$(wc -l <<<"$out")" -eq 2
check "list shows errors" grep -q "TIMEOUT" <<<"$($tessera log list --db "$dir/t.db")"

$tessera log export --db "$dir/t.db" --file "$dir/out.jsonl" 2>/dev/null
check "export writes every record" test "$(wc -l <"$dir/out.jsonl")" -eq 4

err=$($tessera log best --db "$dir/t.db" --task 'dense.x86(1,1,1,float32)' 2>&1); rc=$?
check "best with no record exits 1" test $rc -eq 1
check "best with no record says so" grep -q "no records for dense.x86(1,1,1,float32)" <<<"$err"

err=$($tessera log list --db "$dir/missing.db" 2>&1); rc=$?
check "missing db exits 2" test $rc -eq 2
check "missing db is named" grep -q "cannot open tuning log '$dir/missing.db'" <<<"$err"
check "missing db is not created" test ! -e "$dir/missing.db"

head -c 20000 /dev/urandom > "$dir/corrupt.db"
err=$($tessera log stats --db "$dir/corrupt.db" 2>&1); rc=$?
check "corrupt db exits 2" test $rc -eq 2
check "corrupt db is named" grep -q "tuning log '$dir/corrupt.db' is corrupt" <<<"$err"

echo '{"workload_key": oops' > "$dir/bad.jsonl"
err=$($tessera log import --db "$dir/t.db" --file "$dir/bad.jsonl" 2>&1); rc=$?
check "bad json line exits 2" test $rc -eq 2
check "bad json line names file and line" grep -q "$dir/bad.jsonl:1: not a tuning record" <<<"$err"

err=$($tessera log frobnicate --db "$dir/t.db" 2>&1); rc=$?
check "unknown verb exits 2" test $rc -eq 2
check "unknown verb says a verb is needed" grep -q "A subcommand is required" <<<"$err"
err=$($tessera log list 2>&1); rc=$?
check "missing --db exits 2" test $rc -eq 2
check "missing --db is named" grep -qF "Exactly 1 option from [--db,--tracker] is required" <<<"$err"

out=$($tessera log --help); rc=$?
check "--help exits 0" test $rc -eq 0
check "--help lists the verbs" grep -q "export .*JSON lines" <<<"$out"
out=$($tessera log list --help); rc=$?
check "verb --help lists its flags" grep -q "\-\-limit" <<<"$out"

# JSON output escapes what it prints: a workload key with quotes and a backslash.
key='dense.x86(1,2,3,"q\\uote")'
printf '{"workload_key":%s,"target":"llvm","device_key":"local","config_index":"1","costs":[0.5],"timestamp":1}\n' \
  "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$key")" > "$dir/quoted.jsonl"
$tessera log import --db "$dir/q.db" --file "$dir/quoted.jsonl" >/dev/null
out=$($tessera log stats --db "$dir/q.db" --json)
check "stats --json round-trips a key with quotes and backslashes" \
  test "$(python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["workload_key"])' <<<"$out")" = "$key"

# Builds use their own template versions only, and so does `best`: dense.x86 is at version 1.
cat > "$dir/versions.jsonl" <<'JSON'
{"workload_key":"dense.x86(8,8,8,float32)","target":"llvm","config_index":"1","costs":[0.002],"template_version":1,"timestamp":1}
{"workload_key":"dense.x86(8,8,8,float32)","target":"llvm","config_index":"2","costs":[0.001],"template_version":7,"timestamp":2}
{"workload_key":"dense.x86(4,4,4,float32)","target":"llvm","config_index":"3","costs":[0.001],"template_version":7,"timestamp":3}
JSON
$tessera log import --db "$dir/v.db" --file "$dir/versions.jsonl" >/dev/null
out=$($tessera log best --db "$dir/v.db" 2>"$dir/best.err")
check "best shows this build's template version" grep -q "dense.x86(8,8,8,float32)  \[llvm\]  config 1  2.0000 ms.*template v1" <<<"$out"
check "best says a faster record of another version is not used" \
  grep -q "note: dense.x86(8,8,8,float32) \[llvm\]: a faster record of template v7 is not used (this build's template is v1)" "$dir/best.err"
check "best shows a workload with only other versions" grep -q "dense.x86(4,4,4,float32)  \[llvm\]  config 3" <<<"$out"
check "and says builds do not use them" \
  grep -q "only records of template v7; this build's template is v1 and builds do not use them" "$dir/best.err"

echo "$failures failures"
exit $((failures > 0))

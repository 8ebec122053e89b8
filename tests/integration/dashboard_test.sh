#!/usr/bin/env bash
# The dashboard in a real browser: a live tracker (--http, a token) with one registered
# rpc_server, a few pushed records and two jobs with a reported batch each; headless Chromium loads
# the page, lets it refresh, and the rendered DOM shows the server's key and a workload's best
# record, and the charts' drawn points, read back through their scales, are the fleet over time
# (one free server) and the jobs' tuning curves (each new best, and the model's estimate). A
# screenshot goes to the test's outputs. The endpoints of the live tracker refuse a missing (401) or forged (403) token.
set -uo pipefail
tessera=$1 tracker_binary=$2 server_binary=$3 helper=$4 job_helper=$5
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/dashboard-test.XXXXXX")
outputs=${TEST_UNDECLARED_OUTPUTS_DIR:-$dir}
. tests/testing/checks.sh
. "$helper"
DAEMON_PIDS=$dir/pids
trap daemon_stop_all EXIT
token=dashboard-token-of-the-test
echo "$token" >"$dir/token"

tracker=$(daemon_start "$dir/tracker.log" "$tracker_binary" --listen 127.0.0.1:0 \
  --http 127.0.0.1:0 --fleet-sample-ms 200 --token-file "$dir/token") || exit 1
for _ in $(seq 50); do grep -q '^dashboard on ' "$dir/tracker.log" && break; sleep 0.1; done
url=$(sed -n 's/^dashboard on //p' "$dir/tracker.log")
check "the tracker prints the dashboard's address" grep -q '^http://127.0.0.1:[0-9]*$' <<<"$url"
port=${url##*:}
err=$("$tracker_binary" --listen 127.0.0.1:0 --http "127.0.0.1:$port" 2>&1); rc=$?
check "a taken --http port: exit 2" test $rc -eq 2
check "a taken --http port: says so" grep -q "cannot serve the dashboard on '127.0.0.1:$port': port $port is already in use by another process" <<<"$err"
daemon_start "$dir/server.log" "$server_binary" --tracker "$tracker" --key dash-board-cpu \
  --token-file "$dir/token" --workdir "$dir/server" >/dev/null || exit 1

cat >"$dir/records.jsonl" <<'JSON'
{"workload_key":"dense.x86(64,64,64,float32)","target":"llvm -mcpu=znver3","device_key":"dash-board-cpu","config_index":"3","costs":[0.002,0.002],"timestamp":1700000000}
{"workload_key":"dense.x86(64,64,64,float32)","target":"llvm -mcpu=znver3","device_key":"dash-board-cpu","config_index":"7","costs":[0.00125],"timestamp":1700000001}
{"workload_key":"conv2d_NCHWc.x86(1,64,56,56,64,3,3,1,1,float32)","target":"llvm -mcpu=znver3","device_key":"dash-board-cpu","config_index":"9","error_kind":"TIMEOUT","error_message":"ran past 10 s","timestamp":1700000002}
JSON
$tessera log import --db "$dir/local.db" --file "$dir/records.jsonl" >/dev/null
$tessera log push --db "$dir/local.db" --tracker "$tracker" --token-file "$dir/token" >/dev/null
check "records pushed" test $? -eq 0
jobs_out=$("$job_helper" "$tracker" "$dir/token" dash-board-cpu)
job=$(sed -n 1p <<<"$jobs_out") job2=$(sed -n 2p <<<"$jobs_out")
check "two jobs with one reported batch each" test -n "$job" -a -n "$job2"

# The live endpoints and the page: 401 without the token, 403 with a forged one, 200 with it.
/usr/bin/python3 - "$url" "$token" <<'PY' >"$dir/http.txt"
import sys, urllib.request, urllib.error
url, token = sys.argv[1], sys.argv[2]
def status(path, header=None):
    request = urllib.request.Request(url + path, headers={"x-tessera-token": header} if header else {})
    try:
        return urllib.request.urlopen(request, timeout=10).status
    except urllib.error.HTTPError as e:
        return e.code
for path in ["/", "/api/fleet", "/api/best", "/api/jobs", "/api/fleet_history"]:
    print(path, status(path), status(path, "forged"), status(path, token))
print("/?token=", status("/?token=forged"), status("/?token=" + token))
PY
for path in / /api/fleet /api/best /api/jobs /api/fleet_history; do
  check "$path: 401 missing, 403 forged, 200 with the token" grep -qx "$path 401 403 200" "$dir/http.txt"
done
check "page URL token: 403 forged, 200 right" grep -qx "/?token= 403 200" "$dir/http.txt"

. tests/testing/chromium.sh
chromium_or_skip
sleep 0.5  # a few fleet samples with the server registered
chrome --dump-dom "$url/?token=$token" >"$dir/dom.html"
check "chromium rendered the page" grep -q "<h1>Tessera tracker</h1>" "$dir/dom.html"
check "the page read the endpoints" grep -q 'id="status" class="">updated ' "$dir/dom.html"
check "the server's key is shown" grep -q "<td>dash-board-cpu</td>" "$dir/dom.html"
check "its server is free" grep -q '<td class="free">free</td>' "$dir/dom.html"
check "its GPUs are shown (none here)" grep -q '<td class="gpus">none</td>' "$dir/dom.html"
check "a workload's best record is shown" \
  grep -q '<td>dense.x86(64,64,64,float32)</td><td>llvm -mcpu=znver3</td><td class="num">1.2500 ms</td><td class="num">7</td>' "$dir/dom.html"
check "a workload without a success shows no best" \
  grep -q '<td>conv2d_NCHWc.x86(1,64,56,56,64,3,3,1,1,float32)</td><td>llvm -mcpu=znver3</td><td class="num">–</td>' "$dir/dom.html"
check "the record count is shown (pushed and reported)" grep -q "11 records in the shared log" "$dir/dom.html"
/usr/bin/python3 - "$dir/dom.html" "$job" "$job2" <<'PY'
import html, json, re, sys
dom, job, job2 = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
def drawn(chart):
    m = re.search(r'<pre id="drawn-%s"[^>]*>(.*?)</pre>' % re.escape(chart), dom, re.S)
    if not m: sys.exit("FAIL: chart %s was not drawn" % chart)
    return {d["label"]: d["points"] for d in json.loads(html.unescape(m.group(1)))}
def near(a, b): return abs(a - b) <= 1e-6 * max(1, abs(b))
fleet = drawn("fleet-dash-board-cpu")
assert len(fleet["free"]) >= 2, fleet
assert near(fleet["free"][-1][1], 1) and all(near(p[1], 0) for p in fleet["dead"]), fleet
assert all(p[0] <= 1e-9 for p in fleet["free"]), fleet  # seconds before now
curves = drawn("job-" + job2)
assert [round(p[1], 6) for p in curves["dense.x86(32,32,32,float32) ×3"]] == [5, 3, 1], curves
assert [round(p[1], 6) for p in curves["model (estimated)"]] == [3], curves  # 3 kernels x 1 ms
# Points come back through the chart's pixel scales: a point at the submission reads as -1e-16.
assert all(p[0] >= -1e-9 for p in curves["model (estimated)"]), curves
first = drawn("job-" + job)
assert "model (estimated)" not in first, first  # its second task has no best yet
assert [round(p[1], 6) for p in first["dense.x86(64,64,64,float32)"]] == [2], first
print("ok: charts read back")
PY
check "the charts drew the fleet over time and the tuning curves" test $? -eq 0
check "the job is shown" grep -q "<td>$job</td><td>two-dense.onnx</td><td>running</td><td>ana</td>" "$dir/dom.html"
check "its progress bar is a quarter full" grep -q '<div class="bar" title="4 / 16"><div style="width:25.0%"></div></div>' "$dir/dom.html"
check "its failed share and best are shown" \
  grep -q '<td class="num">4 / 16</td><td class="num">2.0000 ms</td><td class="num">25%</td>' "$dir/dom.html"
check "its first task shows its progress" \
  grep -q '<td colspan="5" class="task">dense.x86(64,64,64,float32)</td><td><div class="bar" title="4 / 8"><div style="width:50.0%">' "$dir/dom.html"
check "a task timed with cold weights says so" \
  grep -q '<td colspan="5" class="task">dense.x86(128,128,128,float32) (cold weights)</td>' "$dir/dom.html"

chrome --dump-dom "$url/?token=forged" >"$dir/forged.html"
check "a forged token shows no fleet" bash -c "! grep -q dash-board-cpu '$dir/forged.html'"

chrome --screenshot="$outputs/dashboard.png" "$url/?token=$token" >/dev/null
check "a screenshot was saved" test -s "$outputs/dashboard.png"
check "the screenshot is a PNG" grep -q "PNG" <(head -c 8 "$outputs/dashboard.png")
if [ "$failures" -ne 0 ]; then
  echo "--- DOM"; cat "$dir/dom.html"; echo "--- chromium"; tail -20 "$dir/chromium.log"
fi
checks_done

#!/usr/bin/env bash
# The reports from the command line, drawn by headless Chromium and read back: `tessera run
# --profile --report` of a tuned build against an untuned one (each bar's value, from its pixels,
# against the profile it drew; the table's rows; template, config source), and `tessera log
# curve` as HTML (each line's points) and as SVG (each dot mapped back through the plot's scales)
# against the tuning records they came from. Screenshots go to the test's outputs. Bad flags exit
# 2 with a message; a log without records exits 1.
set -uo pipefail
tessera=cli/tessera
read_drawn=tests/report/read_drawn.py
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/report-test.XXXXXX")
outputs=${TEST_UNDECLARED_OUTPUTS_DIR:-$dir}
. tests/testing/checks.sh

/usr/bin/python3 tests/compiler/driver/models/make_op_models.py "$dir" >/dev/null || exit 1
m="$dir/flatten_gemm_softmax"
# Two tasks: the model's dense, tuned here, and one whose every trial failed (imported).
$tessera tune --task 'dense.x86(2,10,32,float32)' --target llvm --trials 16 --db "$dir/log.db" \
  >/dev/null 2>&1
check "the dense tuned" test $? -eq 0
cat >"$dir/failed.jsonl" <<'JSON'
{"workload_key":"conv2d_NCHWc.x86(1,8,8,8,8,3,3,1,1,float32)","target":"llvm","device_key":"local","config_index":"4","error_kind":"TIMEOUT","error_message":"ran past 10 s","timestamp":1700000010}
JSON
$tessera log import --db "$dir/log.db" --file "$dir/failed.jsonl" >/dev/null
check "a failed task imported" test $? -eq 0
# The bests as the log has them: each trial's mean, a point where it beats those before.
$tessera log export --db "$dir/log.db" --task 'dense.x86(2,10,32,float32)' | /usr/bin/python3 -c "
import json, sys
best, points = None, []
for trial, line in enumerate(sys.stdin, 1):
    r = json.loads(line)
    if r['error_kind'] != 'OK' or r.get('in_model'): continue
    ms = sum(r['costs']) / len(r['costs']) * 1e3
    if best is None or ms < best: best = ms; points.append([trial, ms])
json.dump({'dense.x86(2,10,32,float32)': points}, sys.stdout)" >"$dir/expected.json"
$tessera compile "$m.onnx" --target llvm -o "$dir/untuned.tsr" >/dev/null 2>&1
check "untuned build" test $? -eq 0
$tessera compile "$m.onnx" --target llvm --db "$dir/log.db" -o "$dir/tuned.tsr" >/dev/null 2>&1
check "tuned build" test $? -eq 0

out=$($tessera run "$dir/tuned.tsr" --profile --repeat 3 --report "$dir/profile.html" \
  --compare "$dir/untuned.tsr" 2>&1)
check "run --report succeeds" test $? -eq 0
check "run --report says where" grep -q "wrote the profile report $dir/profile.html (against $dir/untuned.tsr)" <<<"$out"
check "the text profile names the template, its record and GFLOP/s" \
  grep -q "dense.x86(2,10,32,float32), record, [0-9.]* GFLOP/s" <<<"$out"
json=$($tessera run "$dir/untuned.tsr" --profile --json)
check "--json profile carries workload, source and FLOPs" \
  grep -q '"workload":"dense.x86(2,10,32,float32)","config_source":"fallback","flops":1280' <<<"$json"
out=$($tessera log curve --db "$dir/log.db" -o "$dir/curve.svg")
check "log curve writes an SVG" grep -q "wrote $dir/curve.svg: 2 tasks (1 without a successful trial)" <<<"$out"
$tessera log curve --db "$dir/log.db" -o "$dir/curve.html" >/dev/null
check "log curve writes a page" test -s "$dir/curve.html"

err=$($tessera log curve --db "$dir/log.db" -o "$dir/curve.txt" 2>&1); rc=$?
check "a curve as .txt: exit 2 with the formats" \
  bash -c "[ $rc -eq 2 ] && grep -q 'a curve is written as .svg, .png or .html' <<<'$err'"
err=$($tessera run "$dir/tuned.tsr" --report "$dir/x.html" 2>&1); rc=$?
check "--report without --profile: exit 2, says so" \
  bash -c "[ $rc -eq 2 ] && grep -q 'add --profile' <<<'$err'"
err=$($tessera run "$dir/tuned.tsr" --profile --compare "$dir/untuned.tsr" 2>&1); rc=$?
check "--compare without --report: exit 2" test $rc -eq 2
$tessera log import --db "$dir/empty.db" --file /dev/null >/dev/null
err=$($tessera log curve --db "$dir/empty.db" -o "$dir/none.svg" 2>&1); rc=$?
check "a log without records: exit 1, says so" \
  bash -c "[ $rc -eq 1 ] && grep -q 'no records in' <<<'$err'"

/usr/bin/python3 "$read_drawn" svg-curve "$dir/curve.svg" "$dir/expected.json"
check "the SVG's dots read back as the bests" test $? -eq 0
$tessera log curve --db "$dir/log.db" -o "$dir/curve.png" >/dev/null
check "log curve renders a PNG" test $? -eq 0
/usr/bin/python3 "$read_drawn" png-curve "$dir/curve.png" "$dir/curve.svg"
check "the PNG is the SVG drawn: each dot in its line's colour" test $? -eq 0
cp "$dir/curve.png" "$outputs/curve_png.png"

. tests/testing/chromium.sh
chromium_or_skip
CHROME_WINDOW=1200,1000 CHROME_BUDGET_MS=3000
chrome --dump-dom "file://$dir/profile.html" >"$dir/profile.dom.html"
/usr/bin/python3 "$read_drawn" profile "$dir/profile.html" "$dir/profile.dom.html"
check "the profile's bars read back as its times" test $? -eq 0
check "the table shows the dense's record and fallback" \
  grep -q '<td class="source">record</td>.*<td class="source">fallback</td>' "$dir/profile.dom.html"
chrome --dump-dom "file://$dir/curve.html" >"$dir/curve.dom.html"
/usr/bin/python3 "$read_drawn" html-curve "$dir/curve.html" "$dir/curve.dom.html" "$dir/expected.json"
check "the page's lines read back as the bests" test $? -eq 0
for shot in profile.html curve.html curve.svg; do
  chrome --screenshot="$outputs/${shot/./_}.png" "file://$dir/$shot" >/dev/null
  check "screenshot of $shot" grep -q PNG <(head -c 8 "$outputs/${shot/./_}.png")
done
if [ "$failures" -ne 0 ]; then tail -20 "$dir/chromium.log"; fi
checks_done

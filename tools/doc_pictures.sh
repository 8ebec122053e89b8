#!/usr/bin/env bash
# Makes the pictures of docs/pictures.md with the commands that page describes, into OUT (default
# docs/images): a tiny CNN (tests/cli/make_tune_model.py) tuned through a local fleet as a job,
# the dashboard with that job's tuning curve and the fleet over time (Chromium screenshot), the
# tuned build's profile report against the untuned one (screenshot), the tuning curves as SVG, and
# tessera.plot's curve. Needs the build (bazel build //cli:tessera //tracker:tessera-tracker
# //rpc_server:tessera-rpc-server //python:tessera) and chromium. About a minute on 2 cores.
# Usage: tools/doc_pictures.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(readlink -f "${1:-docs/images}")
mkdir -p "$out"
bin=bazel-bin
work=$(mktemp -d "${TMPDIR:-/tmp}/doc-pictures.XXXXXX")
. tools/daemons.sh
DAEMON_PIDS=$work/pids
trap 'daemon_stop_all; rm -rf "$work"' EXIT
chrome() {
  HOME=$work/home timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --user-data-dir="$work/profile" --hide-scrollbars "$@" 2>/dev/null
}

/usr/bin/python3 tests/cli/make_tune_model.py "$work/cnn"
tracker=$(daemon_start "$work/tracker.log" $bin/tracker/tessera-tracker --listen 127.0.0.1:0 \
  --http 127.0.0.1:0 --state "$work/state" --fleet-sample-ms 1000)
for _ in $(seq 50); do grep -q '^dashboard on ' "$work/tracker.log" && break; sleep 0.1; done
url=$(sed -n 's/^dashboard on //p' "$work/tracker.log")
daemon_start "$work/server.log" $bin/rpc_server/tessera-rpc-server --tracker "$tracker" \
  --key doc-cpu --workdir "$work/server" >/dev/null
sleep 3  # the fleet over time: a few samples before the job
job=$($bin/cli/tessera job submit "$work/cnn.onnx" --target llvm --rpc-key doc-cpu --trials 96 \
  --batch 8 --tracker "$tracker")
$bin/cli/tessera worker --tracker "$tracker" --exit-when-idle --number 3 --repeat 2 >/dev/null 2>&1
chrome --window-size=1280,1500 --virtual-time-budget=5000 --screenshot="$out/dashboard.png" "$url/"

$bin/cli/tessera log export --tracker "$tracker" >"$work/records.jsonl"
$bin/cli/tessera log import --db "$work/tuning.db" --file "$work/records.jsonl" >/dev/null
$bin/cli/tessera compile "$work/cnn.onnx" --target llvm -o "$work/untuned.tsr" >/dev/null 2>&1
$bin/cli/tessera compile "$work/cnn.onnx" --target llvm --db "$work/tuning.db" \
  -o "$work/tuned.tsr" >/dev/null 2>&1
$bin/cli/tessera run "$work/tuned.tsr" --profile --repeat 200 --threads 1 \
  --report "$work/profile.html" --compare "$work/untuned.tsr" >/dev/null
chrome --window-size=1200,900 --virtual-time-budget=3000 --screenshot="$out/profile-report.png" \
  "file://$work/profile.html"
$bin/cli/tessera log curve --db "$work/tuning.db" -o "$out/tuning-curve.svg" >/dev/null
PYTHONPATH=python /usr/bin/python3 - "$work/tuning.db" "$out/plot-curve.png" <<'PY'
import sys
import matplotlib
matplotlib.use("Agg")
import tessera, tessera.plot
ax = tessera.plot.curve(sys.argv[1])
ax.figure.savefig(sys.argv[2], dpi=80, bbox_inches="tight")
PY
echo "job $job; pictures in $out: $(cd "$out" && ls | tr '\n' ' ')"

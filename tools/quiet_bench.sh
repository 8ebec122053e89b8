#!/usr/bin/env bash
# Runs //bench:models in quiet minutes of a shared machine: before each run it times a reference
# kernel (a 1x1 convolution at 56x56, one thread) and runs the benchmark only when that kernel is
# at most THRESHOLD_US, else waits 45 s. Each run's output goes to OUT_DIR/run_N.log, each probe
# to OUT_DIR/probes.log.
#
#   tools/quiet_bench.sh RUNS TRIES THRESHOLD_US OUT_DIR [bench/models flags...]
#   e.g. tools/quiet_bench.sh 8 40 960 /tmp/quiet --threads 1,2 --db t13.db --repeat 20 \
#          --models resnet18,resnet50,mobilenet_v2,bert_encoder
#
# Needs `bazel build //bench:models //bench:config_probe` first. The threshold is the reference
# kernel's time in a quiet minute of this machine plus a few percent (0.82-0.94 ms on the 2-core
# Intel VM of docs/benchmarks.md).
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
runs=$1 tries=$2 threshold=$3 out=$4
shift 4
mkdir -p "$out"
probe() {
  bazel-bin/bench/config_probe --task 'conv2d_NCHWc.x86(1,256,56,56,64,1,1,1,0,float32)' \
    --repeat 40 --set 'tile_ic=-1,16;tile_oc=-1,32;tile_oh=-1,1;tile_ow=-1,7;unroll_kw=1' 2>&1 |
    grep -o 'median [0-9.]*' | cut -d' ' -f2
}
done_runs=0
for ((try = 1; try <= tries && done_runs < runs; ++try)); do
  us=$(probe)
  echo "$(date -u +%H:%M:%S) probe ${us} us" | tee -a "$out/probes.log" >&2
  if awk -v t="$us" -v max="$threshold" 'BEGIN { exit !(t <= max) }'; then
    done_runs=$((done_runs + 1))
    echo "$(date -u +%H:%M:%S) run $done_runs" | tee -a "$out/probes.log" >&2
    bazel-bin/bench/models "$@" >"$out/run_$done_runs.log" 2>&1
  elif ((try < tries)); then
    sleep 45
  fi
done
echo "$done_runs runs in $out" >&2
[ "$done_runs" -eq "$runs" ]

#!/usr/bin/env bash
# Two builds of Tessera on the same models, for a refactor's "outputs unchanged, latency within
# noise": each build's `tessera compile` makes its own artifact of MODEL.onnx (untuned, one thread),
# the two artifacts run alternately with each build's own `tessera-run`, ROUNDS rounds of RUNS
# runs on the same input, and each model prints both builds' medians per round, the ratio of
# their medians, and whether the outputs are bitwise equal. Quote the ratio with `lscpu`'s model.
#   tools/compare_builds.sh BEFORE_BIN AFTER_BIN MODEL.onnx... (BIN: a bazel-bin holding
#   cli/tessera and deploy/tessera-run; the model's input is named 'input', shape from the model)
# ROUNDS (5), RUNS (30) and TARGET ('llvm -mcpu=native -num-threads=1') tune it.
set -euo pipefail
before=$1 after=$2
shift 2
rounds=${ROUNDS:-5} runs=${RUNS:-30} target=${TARGET:-llvm -mcpu=native -num-threads=1}
work=$(mktemp -d "${TMPDIR:-/tmp}/compare-builds.XXXXXX")
trap 'rm -rf "$work"' EXIT
median() { sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'; }
for model in "$@"; do
  name=$(basename "$model" .onnx)
  /usr/bin/python3 - "$model" "$work/x.npy" <<'PY'
import sys, numpy as np, onnx
m = onnx.load(sys.argv[1], load_external_data=False)
dims = [d.dim_value or 1 for d in m.graph.input[0].type.tensor_type.shape.dim]
np.save(sys.argv[2], np.random.default_rng(3).standard_normal(dims).astype(np.float32))
PY
  "$before/cli/tessera" compile "$model" --target "$target" -o "$work/before.tsr" >/dev/null 2>&1
  "$after/cli/tessera" compile "$model" --target "$target" -o "$work/after.tsr" >/dev/null 2>&1
  b=() a=()
  for _ in $(seq "$rounds"); do
    b+=("$("$before/deploy/tessera-run" "$work/before.tsr" --input "input=$work/x.npy" \
      --output "$work/before.npy" --repeat "$runs" | median)")
    a+=("$("$after/deploy/tessera-run" "$work/after.tsr" --input "input=$work/x.npy" \
      --output "$work/after.npy" --repeat "$runs" | median)")
  done
  /usr/bin/python3 - "$name" "${b[*]}" "${a[*]}" "$work" <<'PY'
import statistics, sys, numpy as np
name, before, after, work = sys.argv[1], *map(lambda s: list(map(float, s.split())), sys.argv[2:4]), sys.argv[4]
x, y = np.load(work + "/before.npy"), np.load(work + "/after.npy")
mb, ma = statistics.median(before), statistics.median(after)
print("%s: before %s ms (median %.2f), after %s ms (median %.2f), after/before %.3f, outputs %s"
      % (name, " ".join("%.2f" % v for v in before), mb, " ".join("%.2f" % v for v in after), ma,
         ma / mb, "bitwise equal" if (x == y).all() else "differ by %.2e" % np.abs(x - y).max()))
PY
done

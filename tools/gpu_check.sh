#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and the CUDA toolkit: runs the CUDA backend's tests, including
# the ones that launch kernels (sampled schedules and sampled configs of every CUDA template
# against the CPU reference, the op models and the model zoo against PyTorch, the CUDA artifact
# through tessera-run, streams), then tunes dense 1024^3 and compares it with cuBLAS. Not run
# by ./test.sh or CI (they have no GPU). TESSERA_CUDA_ARCH (default sm_90) picks the PTX target.
#
# Usage: tools/gpu_check.sh             builds with Bazel and runs the tests through it
#        tools/gpu_check.sh --bundled   runs what tools/gpu_bundle.sh packed (unpacked over this
#                                       checkout), for a GPU machine without Bazel: the tests run
#                                       side by side, each log in $GPU_CHECK_LOGS (default
#                                       /tmp/gpu_check), and the script exits 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/gpu_targets.sh
bundled=false
[[ "${1:-}" == --bundled ]] && bundled=true

nvcc_path=$(command -v nvcc) || { echo "gpu_check: no nvcc on PATH" >&2; exit 2; }
# The toolkit's root as nvcc reports it (the nvcc on PATH may be a wrapper script).
cuda_top=$(nvcc -dryrun -E -x cu /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)
export TESSERA_CUDA_HOME="${TESSERA_CUDA_HOME:-$(readlink -f "${cuda_top:-$(dirname "$nvcc_path")/..}")}"
arch="${TESSERA_CUDA_ARCH:-sm_90}"
nvidia-smi -L || { echo "gpu_check: no GPU (nvidia-smi failed)" >&2; exit 1; }

if $bundled; then
  [[ -f .gpu_tests ]] || { echo "gpu_check: no .gpu_tests here: unpack tools/gpu_bundle.sh's bundle first" >&2; exit 2; }
  export LD_LIBRARY_PATH="$PWD/.gpu_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export CPATH="$PWD/.gpu_include${CPATH:+:$CPATH}"
  logs="${GPU_CHECK_LOGS:-/tmp/gpu_check}"
  mkdir -p "$logs"
  pids=() names=()
  while read -r t; do
    name=${t//\//_}
    (
      tmp=$(mktemp -d)
      runner=()
      [[ "$(head -c 2 "$t")" == '#!' ]] && runner=(bash)
      TEST_TMPDIR="$tmp" TESSERA_CUDA_ARCH="$arch" timeout "${TEST_TIMEOUT:-420}" \
        "${runner[@]}" "$t" >"$logs/$name.log" 2>&1
    ) &
    pids+=($!) names+=("$t")
  done <.gpu_tests
  failed=0
  for i in "${!pids[@]}"; do
    if wait "${pids[$i]}"; then echo "PASS ${names[$i]}"; else echo "FAIL ${names[$i]} (exit $?)"; failed=1; fi
  done
  log_of() { echo "$logs/${1//\//_}.log"; }
  bin=.
else
  bazel test --test_env=TESSERA_CUDA_ARCH="$arch" --test_output=all "${gpu_test_targets[@]}"
  failed=0
  testlogs=$(bazel info bazel-testlogs)
  log_of() { echo "$testlogs/$1/test.log"; }
  bin=bazel-bin
fi

# A skipped device test means the device was not usable: that is a failure here.
for t in "${gpu_device_tests[@]}"; do
  if grep -q "SKIPPED\|note: no CUDA device" "$(log_of "$t")"; then
    echo "gpu_check: $t skipped its GPU cases:" >&2
    grep -A1 "Skipped\|no CUDA device" "$(log_of "$t")" >&2 || true
    failed=1
  fi
done
if grep -q "no CUDA toolkit\|CUDA artifact without a GPU" "$(log_of tests/deploy/deploy_commands_test)"; then
  echo "gpu_check: deploy_commands_test did not run the CUDA artifact on the GPU" >&2
  failed=1
fi
# A tuned dense 1024^3 on this GPU against cuBLAS in the same run.
$bundled || bazel build -c opt "${gpu_tool_targets[@]}"
db="$(mktemp -d)/gpu_check.db"
"$bin/cli/tessera" tune --task 'dense.cuda(1024,1024,1024,float32)' --target "cuda -arch=$arch" \
  --trials "${TRIALS:-64}" --db "$db"
"$bin/cli/tessera" log best --db "$db"
"$bin/bench/cuda_dense" --db "$db" --arch "$arch" --n 1024
[[ $failed == 0 ]] || { echo "gpu_check: FAILED" >&2; exit 1; }
echo "gpu_check: OK"

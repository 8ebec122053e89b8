#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and the CUDA toolkit: runs the CUDA backend's tests, including
# the ones that launch kernels (sampled schedules and sampled configs of every CUDA template
# against the CPU reference), then tunes dense 1024^3 and prints the best record. Not run
# by ./test.sh or CI (they have no GPU). TESSERA_CUDA_ARCH (default sm_90) picks the PTX target.
set -euo pipefail
cd "$(dirname "$0")/.."

nvcc_path=$(command -v nvcc) || { echo "gpu_check: no nvcc on PATH" >&2; exit 2; }
export TESSERA_CUDA_HOME="${TESSERA_CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")}"
arch="${TESSERA_CUDA_ARCH:-sm_90}"
nvidia-smi -L || { echo "gpu_check: no GPU (nvidia-smi failed)" >&2; exit 1; }

bazel test --test_env=TESSERA_CUDA_ARCH="$arch" --test_output=all \
  //tests/compiler/codegen/cuda/... //tests/runtime:cuda_module_test \
  //tests/compiler/topi:cuda_templates_test //tests/tuner/measure:cuda_task_measure_test \
  //tests/compiler/lower:split_host_device_test //tests/compiler/lower:verify_gpu_test
# A skipped cuda_run_test means the device was not usable: that is a failure here.
log="$(bazel info bazel-testlogs)/tests/compiler/codegen/cuda/cuda_run_test/test.log"
if grep -q "SKIPPED" "$log"; then
  echo "gpu_check: cuda_run_test skipped:" >&2
  grep -A1 "Skipped" "$log" >&2 || true
  exit 1
fi
# A tuned dense 1024^3 on this GPU (the cuBLAS comparison is not written yet).
bazel build -c opt //cli:tessera
db="$(mktemp -d)/gpu_check.db"
bazel-bin/cli/tessera tune --task 'dense.cuda(1024,1024,1024,float32)' --target "cuda -arch=$arch" \
  --trials "${TRIALS:-64}" --db "$db"
bazel-bin/cli/tessera log best --db "$db"
echo "gpu_check: OK"

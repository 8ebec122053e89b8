#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and the CUDA toolkit: runs the CUDA backend's tests, including
# the ones that launch kernels (sampled schedules and sampled configs of every CUDA template
# against the CPU reference, the op models and the model zoo against PyTorch, the CUDA artifact
# through tessera-run, streams), then tunes dense 1024^3 and compares it with cuBLAS. Not run
# by ./test.sh or CI (they have no GPU). TESSERA_CUDA_ARCH (default sm_90) picks the PTX target.
set -euo pipefail
cd "$(dirname "$0")/.."

nvcc_path=$(command -v nvcc) || { echo "gpu_check: no nvcc on PATH" >&2; exit 2; }
# The toolkit's root as nvcc reports it (the nvcc on PATH may be a wrapper script).
cuda_top=$(nvcc -dryrun -E -x cu /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)
export TESSERA_CUDA_HOME="${TESSERA_CUDA_HOME:-$(readlink -f "${cuda_top:-$(dirname "$nvcc_path")/..}")}"
arch="${TESSERA_CUDA_ARCH:-sm_90}"
nvidia-smi -L || { echo "gpu_check: no GPU (nvidia-smi failed)" >&2; exit 1; }

bazel test --test_env=TESSERA_CUDA_ARCH="$arch" --test_output=all \
  //tests/compiler/codegen/cuda/... //tests/runtime:cuda_module_test \
  //tests/runtime:cuda_stream_test //tests/runtime:graph_executor_test \
  //tests/compiler/topi:cuda_templates_test //tests/tuner/measure:cuda_task_measure_test \
  //tests/compiler/lower:split_host_device_test //tests/compiler/lower:verify_gpu_test \
  //tests/compiler/driver:cuda_model_test //tests/compiler/driver:cuda_model_zoo_test \
  //tests/deploy:artifact_test //tests/deploy:deploy_commands_test
# A skipped device test means the device was not usable: that is a failure here.
logs="$(bazel info bazel-testlogs)"
for t in compiler/codegen/cuda/cuda_run_test runtime/cuda_stream_test \
         compiler/driver/cuda_model_test compiler/driver/cuda_model_zoo_test; do
  if grep -q "SKIPPED\|note: no CUDA device" "$logs/tests/$t/test.log"; then
    echo "gpu_check: $t skipped its GPU cases:" >&2
    grep -A1 "Skipped\|no CUDA device" "$logs/tests/$t/test.log" >&2 || true
    exit 1
  fi
done
if grep -q "no CUDA toolkit\|CUDA artifact without a GPU" "$logs/tests/deploy/deploy_commands_test/test.log"; then
  echo "gpu_check: deploy_commands_test did not run the CUDA artifact on the GPU" >&2
  exit 1
fi
# A tuned dense 1024^3 on this GPU against cuBLAS in the same run.
bazel build -c opt //cli:tessera //bench:cuda_dense
db="$(mktemp -d)/gpu_check.db"
bazel-bin/cli/tessera tune --task 'dense.cuda(1024,1024,1024,float32)' --target "cuda -arch=$arch" \
  --trials "${TRIALS:-64}" --db "$db"
bazel-bin/cli/tessera log best --db "$db"
bazel-bin/bench/cuda_dense --db "$db" --arch "$arch" --n 1024
echo "gpu_check: OK"

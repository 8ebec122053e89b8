# The targets of the GPU check, sourced by tools/gpu_check.sh and tools/gpu_bundle.sh.
# shellcheck shell=bash
gpu_test_targets=(
  //tests/compiler/codegen/cuda/... //tests/runtime:cuda_module_test
  //tests/runtime:cuda_stream_test //tests/runtime:graph_executor_test
  //tests/compiler/topi:cuda_templates_test //tests/tuner/measure:cuda_task_measure_test
  //tests/compiler/lower:split_host_device_test //tests/compiler/lower:verify_gpu_test
  //tests/compiler/driver:cuda_model_test //tests/compiler/driver:cuda_model_zoo_test
  //tests/deploy:artifact_test //tests/deploy:deploy_commands_test
)
gpu_tool_targets=(//cli:tessera //bench:cuda_dense)
# Tests that must have run their GPU cases: a skip there means the device was not usable.
gpu_device_tests=(
  tests/compiler/codegen/cuda/cuda_run_test tests/runtime/cuda_stream_test
  tests/compiler/driver/cuda_model_test tests/compiler/driver/cuda_model_zoo_test
)

/// \file
/// Test helpers for whole models: generate ONNX models with the checked-in Python scripts, then
/// import, build, save, load with the runtime's graph executor, run and compare with the
/// references the scripts wrote.
#ifndef TESSERA_TESTS_COMPILER_DRIVER_MODEL_CHECK_H_
#define TESSERA_TESTS_COMPILER_DRIVER_MODEL_CHECK_H_

#include <string>

#include "compiler/driver/build_model.h"

namespace tessera {
namespace testing {

/// A fresh directory under $TEST_TMPDIR.
std::string TempDir(const std::string& name);

/// Runs `/usr/bin/python3 script args`; fails the test (and returns false) on a non-zero exit.
bool RunPython(const std::string& script, const std::string& args);

/// Imports `dir/name.onnx`, builds it (printing the coverage line), saves and reloads it, runs it
/// on `dir/name.in<i>.npy` and compares every output with `dir/name.out<i>.npy` within `rtol`
/// relative or `atol` absolute error (`atol_scaled`: `atol` times the largest magnitude of the
/// expected output, for deep networks whose outputs reach hundreds). `options`: the build's
/// (target, tuning log). Returns the build.
ModelBuild CheckModel(const std::string& dir, const std::string& name, double rtol, double atol,
                      bool atol_scaled = false, const ModelBuildOptions& options = {});

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_DRIVER_MODEL_CHECK_H_

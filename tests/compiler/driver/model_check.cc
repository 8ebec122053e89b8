#include "tests/compiler/driver/model_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "compiler/frontend/onnx/onnx_importer.h"
#include "runtime/data_type.h"
#include "runtime/graph_executor.h"
#include "runtime/npy.h"

namespace tessera {
namespace testing {

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

bool RunPython(const std::string& script, const std::string& args) {
  std::string cmd = "/usr/bin/python3 " + script + " " + args;
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  return rc == 0;
}

const std::string& OpModelsDir() {
  static const std::string dir = [] {
    std::string d = TempDir("op_models");
    RunPython("tests/compiler/driver/models/make_op_models.py", d);
    return d;
  }();
  return dir;
}

const std::vector<std::string>& OpModelNames() {
  static const std::vector<std::string> names = {
      "conv_bn_add_relu",     "conv_stem_strided",  "depthwise_relu6",
      "residual_blocks",      "conv_grouped_asym",  "pooling",
      "flatten_gemm_softmax", "attention_block",    "shapes_and_indexing",
      "downsample_block",     "mod_arithmetic",     "ragged_attention",
      "hard_activations",     "grouped_bottleneck", "shuffle_units",
      "dense_concat",         "silu_excitation",    "hardswish_opset13"};
  return names;
}

namespace {

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

void Compare(const runtime::NDArray& got, const runtime::NDArray& want, const std::string& what,
             double rtol, double atol, bool atol_scaled) {
  ASSERT_EQ(got.Shape(), want.Shape()) << what;
  ASSERT_EQ(runtime::DataTypeToString(got.DataType()), runtime::DataTypeToString(want.DataType()))
      << what;
  const int64_t n = want.NumElements();
  auto value = [](const runtime::NDArray& a, int64_t i) -> double {
    DLDataType t = a.DataType();
    if (t.code == kDLFloat && t.bits == 32) return a.Data<float>()[i];
    if (t.code == kDLFloat && t.bits == 64) return a.Data<double>()[i];
    if (t.code == kDLInt && t.bits == 64) return static_cast<double>(a.Data<int64_t>()[i]);
    if (t.code == kDLInt && t.bits == 32) return a.Data<int32_t>()[i];
    if (t.code == kDLInt && t.bits == 8) return a.Data<int8_t>()[i];
    return a.Data<uint8_t>()[i];
  };
  double largest = 0;
  for (int64_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(value(want, i)));
  if (atol_scaled) atol *= std::max(1.0, largest);
  int64_t bad = 0;
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double g = value(got, i), w = value(want, i);
    double err = std::fabs(g - w);
    if (!(err <= atol || err <= rtol * std::fabs(w))) {
      if (bad < 5) ADD_FAILURE() << what << "[" << i << "]: got " << g << ", want " << w;
      ++bad;
    }
    worst = std::max(worst, err);
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << n << " elements off (max abs error "
                    << worst << ")";
}

}  // namespace

ModelBuild CheckModel(const std::string& dir, const std::string& name, double rtol, double atol,
                      bool atol_scaled, const ModelBuildOptions& options) {
  auto start = std::chrono::steady_clock::now();
  graph::Graph g = frontend::ImportOnnx(dir + "/" + name + ".onnx");
  ModelBuild build = BuildModel(std::move(g), options);
  std::string out_dir = TempDir(name + "_compiled");
  build.Save(out_dir);  // code generation happens here
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::cout << name << ": compiled in " << took.count() << " s, " << build.graph.nodes.size()
            << " kernel calls, memory " << build.planned_bytes << " bytes planned ("
            << build.unplanned_bytes << " without reuse)\n"
            << build.CoverageLine() << "\n";
  // A CUDA model (not emulated) runs on GPU 0.
  const bool on_gpu = build.kernels.type_key() == "cuda";
  runtime::GraphExecutor exec = on_gpu ? runtime::GraphExecutor(build.graph, build.params,
                                                                build.kernels, DLDevice{kDLCUDA, 0})
                                       : runtime::GraphExecutor::LoadFromDirectory(out_dir);
  for (int i = 0; i < exec.NumInputs(); ++i) {
    exec.SetInput(i, runtime::LoadNpy(dir + "/" + name + ".in" + std::to_string(i) + ".npy"));
  }
  exec.Run();
  int checked = 0;
  for (int i = 0;; ++i) {
    std::string path = dir + "/" + name + ".out" + std::to_string(i) + ".npy";
    if (!Exists(path)) break;
    Compare(exec.GetOutput(i), runtime::LoadNpy(path),
            name + " output '" + exec.OutputInfo(i).name + "'", rtol, atol, atol_scaled);
    ++checked;
  }
  EXPECT_EQ(checked, exec.NumOutputs()) << name;
  return build;
}

}  // namespace testing
}  // namespace tessera

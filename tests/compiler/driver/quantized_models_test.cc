// int8 models end to end: a small CNN quantized by PyTorch's own tools (per tensor and per
// channel), exported in the QDQ form and rewritten into the operator form (QLinearConv), built,
// run, and compared with PyTorch's quantized module within one output quantization step. (The
// integer computes of the operator form are checked by ONNX's conformance cases,
// tests/compiler/ops/onnx_conformance_test.cc.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <string>

#include "compiler/driver/vector_unit.h"
#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// Makes the small CNN quantized per tensor or per channel, in both forms, with PyTorch's
// reference output and its quantization step; returns the directory.
std::string MakeModels(bool per_channel) {
  std::string dir = testing::TempDir(per_channel ? "per_channel" : "per_tensor");
  testing::RunPython("tools/make_quantized_models.py",
                     dir + " --models small_cnn --reference 1 --operator-form" +
                         (per_channel ? " --per-channel" : ""));
  // The operator form reads the same input and reference.
  for (const char* suffix : {".in0.npy", ".out0.npy"}) {
    std::ifstream from(dir + "/small_cnn" + suffix, std::ios::binary);
    std::ofstream(dir + "/small_cnn_qop" + suffix, std::ios::binary) << from.rdbuf();
  }
  return dir;
}

const std::string& ModelDir(bool per_channel) {
  static const std::string per_tensor_dir = MakeModels(false);
  static const std::string per_channel_dir = MakeModels(true);
  return per_channel ? per_channel_dir : per_tensor_dir;
}

double OutputStep(const std::string& dir) {
  std::ifstream in(dir + "/small_cnn.step.txt");
  double step = 0;
  in >> step;
  EXPECT_GT(step, 0) << dir << "/small_cnn.step.txt";
  return step;
}

// Counts the kernels whose function name contains `part`.
int CountKernels(const ModelBuild& build, const std::string& part) {
  int count = 0;
  for (const runtime::ExecNode& n : build.graph.nodes) {
    count += n.function.find(part) != std::string::npos;
  }
  return count;
}

class QuantizedModelTest : public ::testing::TestWithParam<bool> {};

// QDQ, built for a CPU without a byte dot product (x86-64-v3: AVX2): the weights'
// DequantizeLinear folds into float weights, so each convolution runs its float template with
// the activation's quantize-dequantize pair in its output stage: no kernel of its own for any
// QuantizeLinear or DequantizeLinear.
TEST_P(QuantizedModelTest, QdqFormInFloatWithinOneStepOfPyTorch) {
  const std::string& dir = ModelDir(GetParam());
  ModelBuildOptions options;
  options.target = "llvm -mcpu=x86-64-v3";
  ModelBuild build =
      testing::CheckModel(dir, "small_cnn", 0, OutputStep(dir) * 1.001, false, options);
  EXPECT_EQ(CountKernels(build, "conv2d_NCHWc"), 5);  // the depthwise one among them
  EXPECT_EQ(CountKernels(build, "depthwise_conv2d_NCHWc"), 1);
  EXPECT_EQ(CountKernels(build, "conv2d_NCHWc_int8"), 0);
  EXPECT_EQ(CountKernels(build, "_QuantizeLinear"), 0);
  EXPECT_EQ(CountKernels(build, "_DequantizeLinear"), 0);
  EXPECT_THAT(build.CoverageLine(),
              HasSubstr("; int8: 0 quantized operators in int8 templates, 6 quantized "
                        "operators in float32 on dequantized values, 0 integer operators as plain "
                        "computes"));
}

// QDQ on this machine's CPU: where it has a byte dot product (VNNI), the four ungrouped
// convolutions run the int8 template, in integers, within the same step of PyTorch's output (the
// 3-channel stem in words of four channels, the fourth holding the zero point against zero
// weights, its input quantized from the plain layout), and the classifier the int8 dense
// template; the depthwise one stays float.
TEST_P(QuantizedModelTest, QdqFormInInt8WithinOneStepOfPyTorch) {
  const std::string& dir = ModelDir(GetParam());
  ModelBuildOptions options;
  options.target = "llvm -mcpu=native";
  const bool int8 = HasByteDotProduct(Target(options.target));
  ModelBuild build =
      testing::CheckModel(dir, "small_cnn", 0, OutputStep(dir) * 1.001, false, options);
  EXPECT_EQ(CountKernels(build, "conv2d_NCHWc_int8"), int8 ? 4 : 0);
  EXPECT_EQ(CountKernels(build, "dense_int8"), int8 ? 1 : 0);  // the classifier
  EXPECT_EQ(CountKernels(build, "quantize_pack"), int8 ? 5 : 0);
  EXPECT_EQ(build.quantized_in_int8, int8 ? 5 : 0);
  EXPECT_EQ(build.quantized_in_float, int8 ? 1 : 6);
  // Inputs in blocks of whole words are quantized to bytes in their own layout, which the int8
  // kernels read as words of the same storage (the padded stem's words are computed one by one).
  int byte_views = 0;
  for (const runtime::ExecTensor& words : build.graph.tensors) {
    const size_t suffix = words.name.rfind("_words");
    if (words.dtype.code != kDLInt || suffix == std::string::npos) continue;
    const std::string bytes_name = words.name.substr(0, suffix) + "_bytes";
    for (const runtime::ExecTensor& bytes : build.graph.tensors) {
      byte_views += bytes.name == bytes_name && bytes.storage == words.storage &&
                    bytes.dtype.code == kDLUInt && bytes.dtype.bits == 8;
    }
  }
  EXPECT_EQ(byte_views, int8 ? 4 : 0);
  if (!int8) std::cout << "this CPU has no byte dot product: the int8 template was not used\n";
}

// The operator form reaches the QDQ form's graph (graph::ExpandQLinear), so it runs the same
// kernels, within one step of PyTorch's output.
TEST_P(QuantizedModelTest, OperatorFormWithinOneStepOfPyTorch) {
  const std::string& dir = ModelDir(GetParam());
  ModelBuildOptions options;
  options.target = "llvm -mcpu=native";
  const bool int8 = HasByteDotProduct(Target(options.target));
  ModelBuild build =
      testing::CheckModel(dir, "small_cnn_qop", 0, OutputStep(dir) * 1.001, false, options);
  EXPECT_EQ(CountKernels(build, "conv2d_NCHWc"), 5);
  EXPECT_EQ(CountKernels(build, "conv2d_NCHWc_int8"), int8 ? 4 : 0);
  EXPECT_EQ(CountKernels(build, "QLinearConv"), 0);
}

// The quantized encoder's linear layers (QDQ MatMuls over transposed per-channel int8 weights)
// run the int8 dense template where the CPU has a byte dot product, and the float one on
// dequantized weights elsewhere; either way within 1% of the output's magnitude of PyTorch's
// quantized module (its outputs are not quantized, so no step applies).
TEST(QuantizedEncoderTest, LinearLayersRunInInt8) {
  const std::string dir = testing::TempDir("encoder");
  ASSERT_TRUE(testing::RunPython("tools/make_quantized_models.py",
                                 dir + " --models encoder --reference 1"));
  for (const char* target : {"llvm -mcpu=x86-64-v3", "llvm -mcpu=native"}) {
    ModelBuildOptions options;
    options.target = target;
    const bool int8 = HasByteDotProduct(Target(options.target));
    ModelBuild build = testing::CheckModel(dir, "encoder", 0, 0.01, true, options);
    EXPECT_EQ(CountKernels(build, "dense_int8"), int8 ? 4 : 0) << target;
    EXPECT_EQ(build.quantized_in_int8, int8 ? 4 : 0) << target;
    EXPECT_EQ(build.quantized_in_float, int8 ? 0 : 4) << target;
  }
}

INSTANTIATE_TEST_SUITE_P(Quantized, QuantizedModelTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "PerChannel" : "PerTensor");
                         });

}  // namespace
}  // namespace tessera

// Every supported operator pattern on small generated ONNX models, against PyTorch/numpy.
#include <gtest/gtest.h>

#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

const std::string& ModelDir() {
  static const std::string dir = [] {
    std::string d = testing::TempDir("op_models");
    testing::RunPython("tests/compiler/driver/models/make_op_models.py", d);
    return d;
  }();
  return dir;
}

class ModelOpsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelOpsTest, MatchesReference) { testing::CheckModel(ModelDir(), GetParam(), 1e-4, 1e-5); }

INSTANTIATE_TEST_SUITE_P(Ops, ModelOpsTest,
                         ::testing::Values("conv_bn_add_relu", "conv_stem_strided",
                                           "depthwise_relu6", "conv_grouped_asym", "pooling",
                                           "flatten_gemm_softmax", "attention_block",
                                           "shapes_and_indexing"));

}  // namespace
}  // namespace tessera

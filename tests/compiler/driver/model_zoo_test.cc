// Whole models from torchvision (random weights) and 2-layer transformer encoders, exported by
// torch.onnx.export at opset 13, compiled and run against PyTorch's output.
#include <gtest/gtest.h>

#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

// Within 1e-4 relative, or 1e-5 of the output's largest magnitude: random-weight ResNet-50
// produces logits up to ~400, where float32 summation order alone moves a near-zero logit by
// more than 1e-5 (PyTorch's float32 output differs from its float64 one by 2e-4 there).
void CheckZooModel(const std::string& name) {
  std::string dir = testing::TempDir("zoo_" + name);
  ASSERT_TRUE(testing::RunPython("tests/compiler/driver/models/make_zoo_models.py",
                                 dir + " " + name + " 2>/dev/null"));
  ModelBuild build = testing::CheckModel(dir, name, 1e-4, 1e-5, /*atol_scaled=*/true);
  // Buffer reuse: activations take a fraction of their total size.
  EXPECT_LT(build.planned_bytes, build.unplanned_bytes / 2) << name;
}

TEST(ModelZooTest, ResNet18) { CheckZooModel("resnet18"); }
TEST(ModelZooTest, TransformerEncoder) { CheckZooModel("transformer"); }
// BERT-base's width (768, 12 heads, FFN 3072, sequence 128): the model of //bench:models.
TEST(ModelZooTest, BertEncoder) { CheckZooModel("bert_encoder"); }
TEST(ModelZooTest, MobileNetV2) { CheckZooModel("mobilenet_v2"); }
TEST(ModelZooTest, SqueezeNet) { CheckZooModel("squeezenet1_1"); }
TEST(ModelZooTest, ResNet50) { CheckZooModel("resnet50"); }
TEST(ModelZooTest, DenseNet121) { CheckZooModel("densenet121"); }

}  // namespace
}  // namespace tessera

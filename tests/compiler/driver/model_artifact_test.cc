// A model build's artifact, made in memory by compiler/driver: loaded from its bytes with the
// deploy loader, it runs the model; the model directory is a view of the same build.
#include "compiler/driver/model_artifact.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "common/error.h"
#include "common/file.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "deploy/artifact.h"
#include "runtime/npy.h"
#include "runtime/params.h"
#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

const char* const kModel = "conv_bn_add_relu";

ModelBuild BuildOpModel(const ModelBuildOptions& options = {}) {
  return BuildModel(frontend::ImportOnnx(testing::OpModelsDir() + "/" + kModel + ".onnx"), options);
}

std::string Bytes(const runtime::NDArray& a) {
  std::string bytes(a.NumBytes(), '\0');
  a.CopyToBytes(&bytes[0], bytes.size());
  return bytes;
}

// The artifact made in memory loads from its bytes and computes what the build's model
// directory computes, bit for bit.
TEST(ModelArtifactTest, LoadsFromBytesAndRuns) {
  const ModelBuild build = BuildOpModel();
  const deploy::Artifact artifact = MakeArtifact(build, "llvm");
  EXPECT_EQ(artifact.header.target, "llvm");
  EXPECT_EQ(artifact.header.kernel_format, deploy::kSharedLibraryKernels);
  EXPECT_EQ(artifact.header.arch, deploy::HostArch());
  ASSERT_EQ(artifact.header.inputs.size(), build.graph.inputs.size());
  ASSERT_EQ(artifact.header.outputs.size(), build.graph.outputs.size());

  deploy::LoadedModel loaded =
      deploy::LoadArtifactBytes(deploy::SerializeArtifact(artifact), "in-memory artifact");
  const std::string dir = testing::TempDir("artifact_model_dir");
  build.Save(dir);
  runtime::GraphExecutor from_dir = runtime::GraphExecutor::LoadFromDirectory(dir);
  const std::string models = testing::OpModelsDir();
  for (int i = 0; i < from_dir.NumInputs(); ++i) {
    runtime::NDArray input =
        runtime::LoadNpy(models + "/" + kModel + ".in" + std::to_string(i) + ".npy");
    loaded.executor.SetInput(i, input);
    from_dir.SetInput(i, input);
  }
  loaded.executor.Run();
  from_dir.Run();
  ASSERT_EQ(loaded.executor.NumOutputs(), from_dir.NumOutputs());
  for (int i = 0; i < from_dir.NumOutputs(); ++i) {
    EXPECT_EQ(Bytes(loaded.executor.GetOutput(i)), Bytes(from_dir.GetOutput(i))) << "output " << i;
  }
}

// The directory the build saves holds the artifact's sections, byte for byte.
TEST(ModelArtifactTest, DirectoryIsAViewOfTheSameBuild) {
  const ModelBuild build = BuildOpModel();
  const deploy::Artifact artifact = MakeArtifact(build, "llvm");
  const std::string dir = testing::TempDir("artifact_view_dir");
  build.Save(dir);
  EXPECT_EQ(artifact.graph, ReadFile(dir + "/" + runtime::ModelFiles::kGraph, "graph"));
  EXPECT_EQ(artifact.params, ReadFile(dir + "/" + runtime::ModelFiles::kParams, "params"));
  EXPECT_EQ(artifact.kernels, ReadFile(dir + "/" + runtime::ModelFiles::kKernels, "kernels"));
}

// C kernels ship as their source, for any architecture.
TEST(ModelArtifactTest, CKernelsShipAsSource) {
  ModelBuildOptions options;
  options.target = "c";
  const ModelBuild build = BuildOpModel(options);
  const deploy::Artifact artifact = MakeArtifact(build, "c");
  EXPECT_EQ(artifact.header.kernel_format, deploy::kCSourceKernels);
  EXPECT_EQ(artifact.header.arch, deploy::kAnyArch);
  EXPECT_TRUE(artifact.header.cpu_features.empty());
  EXPECT_EQ(artifact.kernels, build.kernels.GetSource("c"));
}

ShapesAtBatch Shapes(int64_t batch, std::vector<std::vector<int64_t>> inputs,
                     std::vector<std::vector<int64_t>> outputs) {
  ShapesAtBatch s;
  s.batch = batch;
  s.inputs = std::move(inputs);
  s.outputs = std::move(outputs);
  s.input_names = {"x"};
  s.output_names = {"y"};
  return s;
}

std::string BatchAxesError(const std::vector<ShapesAtBatch>& shapes) {
  try {
    FindBatchAxes(shapes);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(BatchAxesTest, TheDimensionThatIsTheBatch) {
  // The encoder's [seq, batch, width] layout: the batch in the middle; batch 1 and 3 against a
  // channel count of 3 tell which is which.
  BatchAxes axes =
      FindBatchAxes({Shapes(1, {{16, 1, 3}}, {{1, 1000}}), Shapes(3, {{16, 3, 3}}, {{3, 1000}})});
  EXPECT_EQ(axes.inputs, (std::vector<int>{1}));
  EXPECT_EQ(axes.outputs, (std::vector<int>{0}));
  EXPECT_EQ(BatchAxesError({Shapes(1, {{1, 3}}, {{16, 8}}), Shapes(4, {{4, 3}}, {{64, 8}})}),
            "output 'y' changes dimension 0 with the batch but not as the batch (shapes at batch "
            "1: 16x8, 4: 64x8): only a dimension that is the batch can vary");
  EXPECT_EQ(BatchAxesError({Shapes(1, {{1, 3}}, {{8}}), Shapes(4, {{4, 3}}, {{8}})}),
            "output 'y' has no batch dimension (shapes at batch 1: 8, 4: 8): a model of batch "
            "buckets needs one in every input and output");
}

// A parameter that differs between buckets (a folded shape, say) is stored per bucket; the others
// once.
TEST(BatchAxesTest, ParametersAreStoredOnceUnlessTheyDiffer) {
  const ModelBuild build = BuildOpModel();
  ModelBuild other = BuildOpModel();
  ASSERT_FALSE(other.params.empty());
  const std::string changed = other.params.begin()->first;
  runtime::NDArray copy =
      runtime::NDArray::Empty(other.params.begin()->second.Shape(),
                              other.params.begin()->second.DataType(), runtime::CPUDevice());
  copy.CopyFrom(other.params.begin()->second);
  copy.Data<char>()[0] ^= 1;
  other.params[changed] = copy;
  BatchAxes axes;
  axes.inputs.assign(build.graph.inputs.size(), 0);
  axes.outputs.assign(build.graph.outputs.size(), 0);
  const deploy::Artifact artifact = MakeBatchedArtifact({{1, &build}, {2, &other}}, axes, "llvm");
  EXPECT_EQ(artifact.header.format_version, deploy::kArtifactFormatVersion);
  EXPECT_EQ(artifact.header.batch_buckets, (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(artifact.other_buckets.size(), 1u);
  const auto params = runtime::LoadParams(artifact.params, "params");
  EXPECT_EQ(params.size(), build.params.size() + 1);
  EXPECT_EQ(params.count(changed + "@batch2"), 1u);
  EXPECT_NE(artifact.other_buckets[0].graph.find(runtime::EscapeName(changed + "@batch2")),
            std::string::npos);
  EXPECT_EQ(artifact.graph.find("@batch"), std::string::npos);
}

}  // namespace
}  // namespace tessera

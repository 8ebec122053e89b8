// A model build's artifact, made in memory by compiler/driver: loaded from its bytes with the
// deploy loader, it runs the model; the model directory is a view of the same build.
#include "compiler/driver/model_artifact.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "common/file.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "deploy/artifact.h"
#include "runtime/npy.h"
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

}  // namespace
}  // namespace tessera

// Building a model at each batch bucket and finding where the batch lies in its inputs and
// outputs.
#include "compiler/driver/bucket_build.h"

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "compiler/driver/model_plan.h"
#include "compiler/graph/pipeline.h"

namespace tessera {
namespace {

// The shapes of the tensors `inputs` and `outputs` at `batch`; `tensor(id)` gives a tensor's name
// and shape.
template <typename TensorOf>
ShapesAtBatch Collect(int64_t batch, const std::vector<int>& inputs,
                      const std::vector<int>& outputs, TensorOf tensor) {
  ShapesAtBatch shapes;
  shapes.batch = batch;
  for (int id : inputs) {
    shapes.inputs.push_back(tensor(id).shape);
    shapes.input_names.push_back(tensor(id).name);
  }
  for (int id : outputs) {
    shapes.outputs.push_back(tensor(id).shape);
    shapes.output_names.push_back(tensor(id).name);
  }
  return shapes;
}

ShapesAtBatch ShapesOf(const runtime::ExecGraph& graph, int64_t batch) {
  return Collect(batch, graph.inputs, graph.outputs,
                 [&](int id) -> const runtime::ExecTensor& { return graph.tensors.at(id); });
}

// The shapes at `import.batch` without building: shapes the model computes fold away in the
// graph passes.
ShapesAtBatch ProbeShapes(const std::string& path, const frontend::OnnxImportOptions& import) {
  graph::Graph g = frontend::ImportOnnx(path, import);
  graph::OptimizeGraph(g);
  return Collect(import.batch, g.inputs, g.outputs,
                 [&](int id) -> const graph::Value& { return g.values.at(id); });
}

}  // namespace

deploy::Artifact BucketedBuild::MakeArtifact(const std::string& target_spec) const {
  std::vector<BucketBuild> parts;
  for (size_t b = 0; b < batches.size(); ++b) parts.push_back({batches[b], &builds[b]});
  return MakeBatchedArtifact(parts, axes, target_spec);
}

BucketedBuild BuildBuckets(const std::string& path, frontend::OnnxImportOptions import,
                           std::vector<int64_t> buckets, const ModelBuildOptions& options,
                           const std::function<void(int64_t, const ModelBuild&)>& after_each) {
  TESSERA_USER_CHECK(!buckets.empty()) << "no batch buckets given";
  for (int64_t b : buckets) {
    TESSERA_USER_CHECK(b > 0) << "batch bucket " << b << " is not a positive batch size";
  }
  std::sort(buckets.begin(), buckets.end());
  buckets.erase(std::unique(buckets.begin(), buckets.end()), buckets.end());
  BucketedBuild result;
  result.batches = buckets;
  std::vector<ShapesAtBatch> shapes;
  for (int64_t batch : buckets) {
    import.batch = batch;
    result.builds.push_back(
        EmitModel(PlanModel(frontend::ImportOnnx(path, import), options), options));
    shapes.push_back(ShapesOf(result.builds.back().graph, batch));
    if (after_each) after_each(batch, result.builds.back());
  }
  if (buckets.size() == 1) {
    import.batch = buckets[0] + 1;
    shapes.push_back(ProbeShapes(path, import));
  }
  result.axes = FindBatchAxes(shapes);
  return result;
}

}  // namespace tessera

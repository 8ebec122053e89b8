#include "tuner/tune/model_tasks.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <utility>

#include "common/error.h"
#include "compiler/driver/build_model.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "tuner/tune/workload_args.h"

namespace tessera {
namespace tuner {

BatchBuckets CheckedBatchBuckets(BatchBuckets buckets) {
  TESSERA_USER_CHECK(buckets.weights.empty() || buckets.weights.size() == buckets.sizes.size())
      << "--batch-weights gives " << buckets.weights.size() << " weights for "
      << buckets.sizes.size() << " batch buckets: one per bucket, in the same order";
  TESSERA_USER_CHECK(buckets.dim.empty() || !buckets.sizes.empty())
      << "--batch-dim names the dimension --batch-buckets sets: give --batch-buckets too";
  std::vector<std::pair<int64_t, int>> pairs;
  for (size_t i = 0; i < buckets.sizes.size(); ++i) {
    const int weight = buckets.weights.empty() ? 1 : buckets.weights[i];
    TESSERA_USER_CHECK(buckets.sizes[i] > 0)
        << "batch bucket " << buckets.sizes[i] << " is not a positive batch size";
    TESSERA_USER_CHECK(weight > 0) << "batch weight " << weight << " is not positive";
    pairs.emplace_back(buckets.sizes[i], weight);
  }
  std::sort(pairs.begin(), pairs.end());
  buckets.sizes.clear();
  buckets.weights.clear();
  for (const auto& [size, weight] : pairs) {
    if (!buckets.sizes.empty() && buckets.sizes.back() == size) {
      buckets.weights.back() += weight;
      continue;
    }
    buckets.sizes.push_back(size);
    buckets.weights.push_back(weight);
  }
  return buckets;
}

namespace {

// The workload key of the kernel among `tasks[0, count)` (the smallest bucket's) that is
// `workload_key`'s kernel at another batch: of its template, differing in exactly one number;
// the nearest such shape when several do. Empty for none.
std::string SameKernelIn(const std::string& workload_key, const std::vector<ModelTask>& tasks,
                         size_t count) {
  const WorkloadArgs own = ArgsOf(workload_key);
  std::string nearest;
  double nearest_distance = 0;
  for (size_t i = 0; i < count; ++i) {
    const WorkloadArgs other = ArgsOf(tasks[i].workload_key);
    if (DifferingNumbers(own, other) != 1) continue;
    const double distance = ShapeDistance(own, other);
    if (nearest.empty() || distance < nearest_distance) {
      nearest = tasks[i].workload_key;
      nearest_distance = distance;
    }
  }
  return nearest;
}

}  // namespace

std::vector<ModelTask> ExtractModelTasks(const std::string& model,
                                         const std::vector<std::string>& input_shapes,
                                         const std::string& target, const BatchBuckets& buckets) {
  ModelBuildOptions build;
  build.target = target;
  std::ostringstream fallback_notices;  // without a log every task is untuned: no news
  build.warnings = &fallback_notices;
  frontend::OnnxImportOptions import = frontend::ImportOptionsWithShapes(input_shapes);
  if (buckets.sizes.empty()) return ExtractTasks(frontend::ImportOnnx(model, import), build);
  const BatchBuckets checked = CheckedBatchBuckets(buckets);
  import.batch_dim = checked.dim;
  std::vector<ModelTask> tasks;
  std::map<std::string, size_t> index;
  size_t smallest_bucket_tasks = 0;
  for (size_t b = 0; b < checked.sizes.size(); ++b) {
    import.batch = checked.sizes[b];
    for (ModelTask& task : ExtractTasks(frontend::ImportOnnx(model, import), build)) {
      task.weight *= checked.weights[b];
      auto [it, added] = index.emplace(task.workload_key, tasks.size());
      if (added) {
        if (b > 0) {
          task.smaller_bucket = SameKernelIn(task.workload_key, tasks, smallest_bucket_tasks);
        }
        tasks.push_back(std::move(task));
      } else {
        tasks[it->second].weight += task.weight;
      }
    }
    if (b == 0) smallest_bucket_tasks = tasks.size();
  }
  return tasks;
}

bool ColdWeightsOfTask(const std::string& mode) {
  TESSERA_USER_CHECK(mode == "auto" || mode == "on" || mode == "off")
      << "cold_weights is 'auto', 'on' or 'off', not '" << mode << "'";
  return mode == "on";
}

void ApplyColdWeights(const std::string& mode, std::vector<ModelTask>* tasks) {
  const bool on = ColdWeightsOfTask(mode);
  if (mode == "auto") return;
  for (ModelTask& task : *tasks) task.cold_weights = on;
}

}  // namespace tuner
}  // namespace tessera

// Direct or Winograd: the model build and the tuner's estimate of a model's latency apply one
// rule (topi::WinogradBeatsDirect), so the estimate counts the kernels the build runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/frontend/onnx/onnx_importer.h"
#include "compiler/space/config_proto.h"
#include "compiler/task/task.h"
#include "records/tuning_log.h"
#include "tests/compiler/driver/model_check.h"
#include "tuner/tune/apply_history.h"
#include "tuner/tune/tuning_curve.h"

namespace tessera {
namespace {

// A record of `key`'s fallback config at `cost` seconds.
tuning::MeasureRecord FallbackRecord(const std::string& key, const std::string& target,
                                     double cost) {
  task::Task task(key, target);
  const space::ConfigEntity config = task.config_space().Fallback();
  tuning::MeasureRecord r;
  r.set_workload_key(key);
  r.set_target(target);
  r.set_config_index(config.index());
  *r.mutable_config() = space::ConfigToProto(config);
  r.add_costs(cost);
  return r;
}

bool IsWinograd(const std::string& key) { return key.rfind("conv2d_winograd_NCHWc.x86(", 0) == 0; }

// residual_blocks has 3x3 stride-1 convolutions of two shapes whose transformed weights cost
// 5.5 and 11 us more in a model than in their records: a Winograd record faster by 9 us is taken
// for one shape only, and the estimate (which once credited any faster record) counts just that.
TEST(WinogradChoiceTest, TheEstimateCountsTheKernelsTheBuildRuns) {
  ModelBuildOptions options;
  const graph::Graph g = frontend::ImportOnnx(testing::OpModelsDir() + "/residual_blocks.onnx");
  const std::vector<ModelTask> tasks = ExtractTasks(g, options);
  const double kDirect = 1e-3;
  int case_index = 0;
  for (auto [winograd_cost, winograd_kernels] :
       std::vector<std::pair<double, int>>{{0.5e-3, 3},
                                           {2e-3, 0},
                                           {kDirect - 0.5e-5, 0},
                                           {kDirect - 2e-5, 3},
                                           {kDirect - 9e-6, 1}}) {
    SCOPED_TRACE(winograd_cost);
    auto log = records::TuningLog::Open(testing::TempDir("winograd_choice") + "/t" +
                                        std::to_string(++case_index) + ".db");
    for (const ModelTask& t : tasks) {
      log->AppendBatch({FallbackRecord(t.workload_key, options.target,
                                       IsWinograd(t.workload_key) ? winograd_cost : kDirect)});
    }
    const tuner::LogConfigSource source(log.get());
    ModelBuildOptions with_log = options;
    with_log.configs = &source;
    const ModelBuild build = BuildModel(g, with_log);
    double built = 0;  // Σ over the build's kernels of their records' costs
    int winograd = 0;
    for (const KernelConfig& c : build.configs) {
      winograd += IsWinograd(c.workload_key);
      built += IsWinograd(c.workload_key) ? winograd_cost : kDirect;
    }
    EXPECT_EQ(winograd, winograd_kernels);
    const std::vector<tuner::CurvePoint> curve =
        tuner::TuningCurveFromLog(tasks, options.target, *log);
    ASSERT_FALSE(curve.empty());
    EXPECT_NEAR(curve.back().estimated, built, 1e-12);
  }
}

}  // namespace
}  // namespace tessera

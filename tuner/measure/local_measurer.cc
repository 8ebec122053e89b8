#include "tuner/measure/local_measurer.h"

#include <cstdio>
#include <cstring>
#include <numeric>

#include "compiler/support/error.h"
#include "tuner/measure/build_batch.h"
#include "tuner/measure/isolated_call.h"

namespace tessera {
namespace tuner {
namespace {

// Replies of the run worker: a tag, then the payload.
constexpr char kCostsTag = 'C';
constexpr char kWrongAnswerTag = 'W';

std::string EncodeCosts(const std::vector<double>& costs) {
  std::string out(1, kCostsTag);
  out.append(reinterpret_cast<const char*>(costs.data()), costs.size() * sizeof(double));
  return out;
}

std::vector<double> DecodeCosts(const std::string& payload) {
  std::vector<double> costs((payload.size() - 1) / sizeof(double));
  std::memcpy(costs.data(), payload.data() + 1, costs.size() * sizeof(double));
  return costs;
}

}  // namespace

LocalMeasurer::LocalMeasurer(BuildFn build, RunFn run, LocalMeasureOptions options)
    : build_(std::move(build)), run_(std::move(run)), options_(std::move(options)) {
  TESSERA_USER_CHECK(options_.build_parallel >= 1)
      << "measure: build parallelism must be at least 1, got " << options_.build_parallel;
  TESSERA_USER_CHECK(options_.build_timeout_s > 0 && options_.run_timeout_s > 0)
      << "measure: time limits must be positive";
  if (options_.work_dir.empty()) options_.work_dir = DefaultWorkDir();
}

std::vector<MeasureOutcome> LocalMeasurer::Measure(const std::vector<space::ConfigEntity>& batch) {
  BuiltBatch built = BuildBatch(build_, batch, options_, "tessera_candidate", &counter_);
  std::vector<MeasureOutcome> outcomes(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    MeasureOutcome& out = outcomes[i];
    if (built.results[i].status != IsolatedStatus::kOk) {
      out = BuildFailure(built.results[i], built.paths[i]);
      continue;
    }
    out.all_cost = built.results[i].seconds;
    const space::ConfigEntity& config = batch[i];
    const std::string& path = built.paths[i];
    bool check = options_.check_correctness;
    IsolatedWork run = [this, &config, &path, check] {
      try {
        return EncodeCosts(run_(config, path, check));
      } catch (const WrongAnswerError& e) {
        return std::string(1, kWrongAnswerTag) + e.what();
      }
    };
    IsolatedResult ran = RunIsolated({run}, 1, options_.run_timeout_s)[0];
    std::remove(path.c_str());
    out.all_cost += ran.seconds;
    switch (ran.status) {
      case IsolatedStatus::kOk:
        if (!ran.output.empty() && ran.output[0] == kWrongAnswerTag) {
          out.error = tuning::WRONG_ANSWER;
          out.message = ran.output.substr(1);
        } else {
          out.costs = DecodeCosts(ran.output);
          if (out.costs.empty()) {
            out.error = tuning::RUNTIME_ERROR;
            out.message = "the run returned no timings";
          } else {
            out.cost = std::accumulate(out.costs.begin(), out.costs.end(), 0.0) / out.costs.size();
          }
        }
        break;
      case IsolatedStatus::kTimeout:
        out.error = tuning::TIMEOUT;
        out.message = "run " + ran.message;
        break;
      case IsolatedStatus::kThrew:
      case IsolatedStatus::kCrashed:
        out.error = tuning::RUNTIME_ERROR;
        out.message = "run failed: " + ran.message;
        break;
    }
  }
  return outcomes;
}

}  // namespace tuner
}  // namespace tessera

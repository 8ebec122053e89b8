#include "tuner/measure/local_measurer.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "compiler/support/error.h"
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

std::string DefaultWorkDir() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
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
  std::vector<std::string> paths;
  std::vector<IsolatedWork> builds;
  for (const auto& config : batch) {
    paths.push_back(options_.work_dir + "/tessera_candidate_" + std::to_string(getpid()) + "_" +
                    std::to_string(counter_++) + ".so");
    builds.push_back([this, config, path = paths.back()] {
      build_(config, path);
      return std::string();
    });
  }
  std::vector<IsolatedResult> built =
      RunIsolated(builds, options_.build_parallel, options_.build_timeout_s);

  std::vector<MeasureOutcome> outcomes(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    MeasureOutcome& out = outcomes[i];
    out.all_cost = built[i].seconds;
    if (built[i].status != IsolatedStatus::kOk) {
      out.error = tuning::COMPILE_ERROR;
      out.message = built[i].status == IsolatedStatus::kTimeout
                        ? "build " + built[i].message
                        : "build failed: " + built[i].message;
      std::remove(paths[i].c_str());
      continue;
    }
    const space::ConfigEntity& config = batch[i];
    const std::string& path = paths[i];
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

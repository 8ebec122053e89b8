#include "tuner/measure/build_batch.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace tessera {
namespace tuner {

BuiltBatch BuildBatch(const BuildFn& build, const std::vector<space::ConfigEntity>& batch,
                      const LocalMeasureOptions& options, const std::string& prefix,
                      int64_t* counter) {
  BuiltBatch out;
  std::vector<IsolatedWork> builds;
  for (const auto& config : batch) {
    out.paths.push_back(options.work_dir + "/" + prefix + "_" + std::to_string(getpid()) + "_" +
                        std::to_string((*counter)++) + ".so");
    builds.push_back([&build, config, path = out.paths.back()] {
      build(config, path);
      return std::string();
    });
  }
  out.results = RunIsolated(builds, options.build_parallel, options.build_timeout_s);
  return out;
}

MeasureOutcome BuildFailure(const IsolatedResult& built, const std::string& path) {
  MeasureOutcome out;
  out.error = tuning::COMPILE_ERROR;
  out.message =
      (built.status == IsolatedStatus::kTimeout ? "build " : "build failed: ") + built.message;
  out.all_cost = built.seconds;
  std::remove(path.c_str());
  return out;
}

std::string DefaultWorkDir() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

}  // namespace tuner
}  // namespace tessera

#include "tests/tuner/testing/log_records.h"

#include <cstdio>
#include <cstdlib>

#include "compiler/space/config_proto.h"

namespace tessera {
namespace testing {

std::string FreshTempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::remove(path.c_str());
  return path;
}

tuning::MeasureRecord RecordOf(const task::Task& task, const space::ConfigEntity& config,
                               double cost) {
  tuning::MeasureRecord r;
  r.set_workload_key(task.workload_key());
  r.set_target(task.target());
  r.set_config_index(config.index());
  *r.mutable_config() = space::ConfigToProto(config);
  r.add_costs(cost);
  return r;
}

}  // namespace testing
}  // namespace tessera

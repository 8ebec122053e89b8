#include "compiler/driver/config_source.h"

#include <mutex>
#include <set>
#include <utility>

namespace tessera {

bool FirstConfigNotice(const std::string& workload, const std::string& target) {
  static std::mutex mu;
  static std::set<std::pair<std::string, std::string>> warned;
  std::lock_guard<std::mutex> lock(mu);
  return warned.emplace(workload, target).second;
}

ChosenConfig FallbackConfig(const task::Task& task, std::ostream& warnings,
                            const std::string& reason) {
  if (FirstConfigNotice(task.workload_key(), task.target())) {
    warnings << "warning: " << reason << " for " << task.workload_key() << " on '" << task.target()
             << "': using the fallback configuration (expect a slower kernel;"
             << " run `tessera tune` for it)\n";
  }
  return {task.config_space().Fallback(), std::nullopt};
}

}  // namespace tessera

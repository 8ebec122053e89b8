#include "compiler/driver/config_source.h"

#include <mutex>
#include <set>
#include <utility>

namespace tessera {

namespace {

std::mutex notices_mutex;
std::set<std::pair<std::string, std::string>> notices_given;

}  // namespace

bool FirstConfigNotice(const std::string& workload, const std::string& target) {
  std::lock_guard<std::mutex> lock(notices_mutex);
  return notices_given.emplace(workload, target).second;
}

void ForgetConfigNotices() {
  std::lock_guard<std::mutex> lock(notices_mutex);
  notices_given.clear();
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

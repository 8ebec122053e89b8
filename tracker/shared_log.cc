#include "tracker/shared_log.h"

namespace tessera::tracker {

SharedLog::SharedLog(const std::string& state_dir, const std::string& location) {
  if (!location.empty()) {
    log_ = records::TuningLog::Open(location);
    return;
  }
  std::string dir = state_dir;
  if (dir.empty()) {
    scratch_ = std::make_unique<TempDir>("tessera-tracker-log");
    dir = scratch_->path();
  }
  log_ = records::TuningLog::Open(dir + "/tuning.db");
}

}  // namespace tessera::tracker

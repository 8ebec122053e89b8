#include "tracker/shared_log.h"

#include "common/postgres.h"

namespace tessera::tracker {

SharedLog::SharedLog(const std::string& state_dir, const std::string& location) {
  std::string where = location;
  if (where.empty()) {
    std::string dir = state_dir;
    if (dir.empty()) {
      scratch_ = std::make_unique<TempDir>("tessera-tracker-log");
      dir = scratch_->path();
    }
    where = dir + "/tuning.db";
  }
  const int connections = IsPostgresUri(where) ? kPostgresConnections : 1;
  for (int i = 0; i < connections; ++i) {
    logs_.push_back(records::TuningLog::Open(where));
    free_.push_back(logs_.back().get());
  }
}

SharedLog::Lent::Lent(SharedLog& owner) : owner(owner) {
  std::unique_lock<std::mutex> lock(owner.mutex_);
  owner.returned_.wait(lock, [&] { return !owner.free_.empty(); });
  log = owner.free_.back();
  owner.free_.pop_back();
}

SharedLog::Lent::~Lent() {
  {
    std::lock_guard<std::mutex> lock(owner.mutex_);
    owner.free_.push_back(log);
  }
  owner.returned_.notify_one();
}

}  // namespace tessera::tracker

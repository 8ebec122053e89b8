/// \file
/// The team's tuning log, kept by the tracker: the records that tuner workers report and that
/// users push, served to `tessera log … --tracker` and `tessera compile --db tracker://…`. A
/// `records::TuningLog` in either store; the tracker stores and serves records, it never builds.
#ifndef TESSERA_TRACKER_SHARED_LOG_H_
#define TESSERA_TRACKER_SHARED_LOG_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "common/file.h"
#include "records/tuning_log.h"

namespace tessera::tracker {

/// One tuning log shared by every RPC handler of the tracker. `TuningLog` is thread-compatible,
/// gRPC handlers run on many threads: every use goes through `With`, under one lock.
class SharedLog {
 public:
  /// Opens `location` (a SQLite file or a PostgreSQL URI, which several trackers may share) or,
  /// when it is empty, `STATE_DIR/tuning.db`; with both empty, a log in a private temporary
  /// directory that lives as long as this object (the tracker's in-memory mode).
  explicit SharedLog(const std::string& state_dir, const std::string& location = "");
  SharedLog(const SharedLog&) = delete;
  SharedLog& operator=(const SharedLog&) = delete;

  /// Runs `use(TuningLog&)` under the lock and returns what it returns.
  template <typename Use>
  auto With(Use&& use) {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::forward<Use>(use)(*log_);
  }

  /// Where the log lives: a file's path or a PostgreSQL URI.
  const std::string& path() const { return log_->path(); }

 private:
  std::unique_ptr<TempDir> scratch_;  // only without a state directory
  std::mutex mutex_;
  std::unique_ptr<records::TuningLog> log_;
};

}  // namespace tessera::tracker

#endif  // TESSERA_TRACKER_SHARED_LOG_H_

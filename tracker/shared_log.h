/// \file
/// The team's tuning log, kept by the tracker: the records that tuner workers report and that
/// users push, served to `tessera log … --tracker` and `tessera compile --db tracker://…`. A
/// `records::TuningLog` in either store; the tracker stores and serves records, it never builds.
#ifndef TESSERA_TRACKER_SHARED_LOG_H_
#define TESSERA_TRACKER_SHARED_LOG_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/file.h"
#include "records/tuning_log.h"

namespace tessera::tracker {

/// One tuning log shared by every RPC handler of the tracker. `TuningLog` is thread-compatible,
/// gRPC handlers run on many threads: every use goes through `With`, which lends the handler one
/// open log for the call. A SQLite file has one (its writers queue for one lock anyway); a
/// PostgreSQL database has `kPostgresConnections`, so that handlers read it side by side.
class SharedLog {
 public:
  /// Connections to a PostgreSQL log.
  static constexpr int kPostgresConnections = 4;

  /// Opens `location` (a SQLite file or a PostgreSQL URI, which several trackers may share) or,
  /// when it is empty, `STATE_DIR/tuning.db`; with both empty, a log in a private temporary
  /// directory that lives as long as this object (the tracker's in-memory mode).
  explicit SharedLog(const std::string& state_dir, const std::string& location = "");
  SharedLog(const SharedLog&) = delete;
  SharedLog& operator=(const SharedLog&) = delete;

  /// Runs `use(TuningLog&)` on a log no other call is using (waiting for one) and returns what it
  /// returns.
  template <typename Use>
  auto With(Use&& use) {
    Lent lent(*this);
    return std::forward<Use>(use)(*lent.log);
  }

  /// Where the log lives: a file's path or a PostgreSQL URI.
  const std::string& path() const { return logs_.front()->path(); }

 private:
  // One open log taken from `free_` for a call, given back when the call ends (or throws).
  struct Lent {
    explicit Lent(SharedLog& owner);
    ~Lent();
    SharedLog& owner;
    records::TuningLog* log;
  };

  std::unique_ptr<TempDir> scratch_;  // only without a state directory
  std::vector<std::unique_ptr<records::TuningLog>> logs_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<records::TuningLog*> free_;
};

}  // namespace tessera::tracker

#endif  // TESSERA_TRACKER_SHARED_LOG_H_

/// \file
/// `StateStore`: the tracker's state on disk (SQLite in `--state DIR`, or its rows in a
/// PostgreSQL database several trackers share, `--state-db`): registered keys and servers, and
/// queued session requests, so that a restarted tracker keeps them.
#ifndef TESSERA_TRACKER_STATE_STORE_H_
#define TESSERA_TRACKER_STATE_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "tracker/fleet_state.h"
#include "tracker/state_sql.h"

namespace tessera {
namespace tracker {

/// One change of the saved state (see `StateStore::Apply`).
struct StateChange {
  /// What changes.
  enum class Kind { kSaveServer, kSaveRequest, kDeleteRequest };
  Kind kind = Kind::kSaveRequest;
  ServerEntry server;      ///< kSaveServer: the server to record
  PendingRequest request;  ///< kSaveRequest: the request to record; kDeleteRequest: its id only

  /// Records a registered server and its key.
  static StateChange SaveServer(const ServerEntry& server);
  /// Records a queued request.
  static StateChange SaveRequest(const PendingRequest& request);
  /// Forgets a request that was granted, expired or cancelled.
  static StateChange DeleteRequest(const std::string& request_id);
};

/// A SQLite database `DIR/tracker.db`, or tracker `name`'s rows in a PostgreSQL database; not
/// thread-safe (the tracker's `StateWriter` calls it from its one thread).
class StateStore {
 public:
  /// Opens (creating when missing) the state in `dir` or, with `location` (a `postgresql://`
  /// URI), the rows of the tracker called `name` there. Throws `ConfigError` naming the path or
  /// URI when the directory or database cannot be used (then, and on any later failure), and for
  /// a database without a name.
  explicit StateStore(const std::string& dir, const std::string& location = "",
                      const std::string& name = "");
  /// Closes the database.
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  /// Fills `state` with what was saved: keys, servers (as dead until they re-register) and
  /// queued requests (detached until their client retries).
  void Load(FleetState* state);
  /// Records a registered server and its key.
  void SaveServer(const ServerEntry& server);
  /// Records a queued request.
  void SaveRequest(const PendingRequest& request);
  /// Forgets a request that was granted, expired or cancelled.
  void DeleteRequest(const std::string& request_id);
  /// Applies `changes` in order, in one transaction.
  void Apply(const std::vector<StateChange>& changes);

 private:
  std::vector<SqlValue> Params(std::vector<SqlValue> params, size_t ids) const;

  std::string name_;
  std::unique_ptr<TrackerSql> sql_;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_STATE_STORE_H_

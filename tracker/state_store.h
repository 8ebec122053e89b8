/// \file
/// `StateStore`: the tracker's state on disk (SQLite in `--state DIR`): registered keys and
/// servers, and queued session requests, so that a restarted tracker keeps them.
#ifndef TESSERA_TRACKER_STATE_STORE_H_
#define TESSERA_TRACKER_STATE_STORE_H_

#include <memory>
#include <string>

#include "tracker/fleet_state.h"

namespace tessera {

class Database;

namespace tracker {

/// A SQLite database `DIR/tracker.db`; not thread-safe (the tracker calls it under its lock).
class StateStore {
 public:
  /// Opens (creating when missing) the state in `dir`. Throws `ConfigError` naming the path
  /// when the directory or database cannot be used (then, and on any later failure).
  explicit StateStore(const std::string& dir);
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

 private:
  std::unique_ptr<Database> db_;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_STATE_STORE_H_

/// \file
/// `StateStore`: the tracker's state on disk (SQLite in `--state DIR`): registered keys and
/// servers, and queued session requests, so that a restarted tracker keeps them.
#ifndef TESSERA_TRACKER_STATE_STORE_H_
#define TESSERA_TRACKER_STATE_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "tracker/fleet_state.h"

namespace tessera {

class Database;

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

/// A SQLite database `DIR/tracker.db`; not thread-safe (the tracker's `StateWriter` calls it from
/// its one thread).
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
  /// Applies `changes` in order, in one transaction.
  void Apply(const std::vector<StateChange>& changes);

 private:
  std::unique_ptr<Database> db_;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_STATE_STORE_H_

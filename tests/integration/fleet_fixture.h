/// \file
/// A small fleet for integration tests and the bench: one tracker and N device servers on
/// 127.0.0.1 with OS-chosen ports and short leases.
#ifndef TESSERA_TESTS_INTEGRATION_FLEET_FIXTURE_H_
#define TESSERA_TESTS_INTEGRATION_FLEET_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "common/file.h"
#include "fleet/client/tracker_client.h"
#include "tests/integration/daemon.h"

namespace tessera {
namespace testing {

/// Settings of a test fleet.
struct FleetConfig {
  std::string tracker_binary = "tracker/tessera-tracker";
  std::string server_binary = "rpc_server/tessera-rpc-server";
  std::string token;  ///< written to a token file for every daemon when not empty
  std::vector<std::string> tracker_flags = {"--heartbeat-ms", "200", "--lease-timeout-ms", "2500"};
  std::vector<std::string> server_flags = {"--call-timeout-ms", "2500", "--max-upload-bytes",
                                           "1048576"};
};

/// A running tracker plus device servers.
class Fleet {
 public:
  /// Starts the tracker; servers are added with `AddServer`.
  explicit Fleet(FleetConfig config = FleetConfig());
  /// Starts a device server for `key` and waits until the tracker lists it as free. `workdir`
  /// empty gives it a fresh one.
  Daemon& AddServer(const std::string& key, const std::string& workdir = "");
  /// Starts a device server for `key` with `--dial-out` (no port; sessions through the tracker's
  /// relay) and waits until the tracker lists it as free.
  Daemon& AddDialOutServer(const std::string& key);
  /// A new client of the tracker (with the token, if any).
  std::shared_ptr<fleet::TrackerClient> Client() const;
  /// Kills the tracker (SIGKILL) and starts it again on the same port with the same flags.
  void RestartTracker();
  /// The tracker's address.
  const std::string& tracker_address() const { return tracker_->address(); }
  /// The token file every daemon is given ("" without a token).
  const std::string& token_file() const { return token_file_; }
  /// The tracker's process id.
  pid_t tracker_pid() const { return tracker_->pid(); }
  /// The server listening at `address`, or nullptr.
  Daemon* ServerAt(const std::string& address) const;
  /// The work directory of the server at `address`.
  std::string WorkdirOf(const std::string& address) const;
  /// The state ("free", "busy", "dead") of the server at `address`, or "absent".
  std::string StateOf(const std::string& address) const;

 private:
  Daemon& StartServer(const std::string& key, const std::string& workdir,
                      const std::vector<std::string>& mode_flags);

  FleetConfig config_;
  TempDir dir_;  ///< token and server workdirs; removed after the daemons (declared before them)
  std::string token_file_;
  std::vector<std::string> tracker_args_;
  std::shared_ptr<fleet::TrackerClient> status_client_;  ///< one connection for all polling
  std::unique_ptr<Daemon> tracker_;
  std::vector<std::unique_ptr<Daemon>> servers_;
  std::vector<std::string> workdirs_;
};

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_INTEGRATION_FLEET_FIXTURE_H_

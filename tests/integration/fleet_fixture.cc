#include "tests/integration/fleet_fixture.h"

#include <stdexcept>

#include <signal.h>
#include <unistd.h>

namespace tessera {
namespace testing {

Fleet::Fleet(FleetConfig config) : config_(std::move(config)), dir_("fleet") {
  std::vector<std::string> args = {"--listen", "127.0.0.1:0"};
  args.insert(args.end(), config_.tracker_flags.begin(), config_.tracker_flags.end());
  if (!config_.token.empty()) {
    token_file_ = dir_.path() + "/token";
    WriteFile(token_file_, config_.token);
    args.insert(args.end(), {"--token-file", token_file_});
  }
  tracker_ = std::make_unique<Daemon>(config_.tracker_binary, args);
  tracker_args_ = args;
  tracker_args_[1] = tracker_->address();
  status_client_ = Client();
}

void Fleet::RestartTracker() {
  tracker_->Stop(SIGKILL);
  tracker_ = std::make_unique<Daemon>(config_.tracker_binary, tracker_args_);
}

Daemon& Fleet::AddServer(const std::string& key, const std::string& workdir) {
  return StartServer(key, workdir, {"--listen", "127.0.0.1:0"});
}

Daemon& Fleet::AddDialOutServer(const std::string& key) {
  return StartServer(key, "", {"--dial-out"});
}

Daemon& Fleet::StartServer(const std::string& key, const std::string& given_workdir,
                           const std::vector<std::string>& mode_flags) {
  std::string workdir = given_workdir.empty()
                            ? dir_.path() + "/server-" + std::to_string(servers_.size())
                            : given_workdir;
  std::vector<std::string> args = {"--tracker", tracker_->address(), "--key",
                                   key,         "--workdir",         workdir};
  args.insert(args.end(), mode_flags.begin(), mode_flags.end());
  args.insert(args.end(), config_.server_flags.begin(), config_.server_flags.end());
  if (!token_file_.empty()) args.insert(args.end(), {"--token-file", token_file_});
  servers_.push_back(std::make_unique<Daemon>(config_.server_binary, args));
  workdirs_.push_back(workdir);
  Daemon& server = *servers_.back();
  if (!WaitFor([&] { return StateOf(server.address()) == "free"; }, 10000)) {
    throw std::runtime_error("server " + server.address() + " did not register");
  }
  return server;
}

std::shared_ptr<fleet::TrackerClient> Fleet::Client() const {
  fleet::TrackerOptions options;
  options.address = tracker_->address();
  options.token = config_.token;
  options.retry_window_ms = 15000;  // a loaded machine can be slow to accept connections
  return std::make_shared<fleet::TrackerClient>(options);
}

Daemon* Fleet::ServerAt(const std::string& address) const {
  for (const auto& server : servers_) {
    if (server->address() == address) return server.get();
  }
  return nullptr;
}

std::string Fleet::WorkdirOf(const std::string& address) const {
  for (size_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i]->address() == address) return workdirs_[i];
  }
  return "";
}

std::string Fleet::StateOf(const std::string& address) const {
  tracker::v1::FleetStatus status = status_client_->Status();
  for (const auto& server : status.servers()) {
    if (server.address() == address) return server.state();
  }
  return "absent";
}

}  // namespace testing
}  // namespace tessera

// tessera-tracker: the device fleet's broker. See README.md ("Device fleet") for the flags.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fleet/server/listen.h"
#include "proto/grant.h"
#include "rpc_server/client/flags.h"
#include "rpc_server/client/shutdown_signals.h"
#include "tracker/tracker_service.h"

namespace {

std::string ReadFile(const std::string& flag, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw tessera::fleet::ConfigError("--" + flag + " '" + path + "': cannot read file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

constexpr const char* kUsage =
    "usage: tessera-tracker [--listen HOST:PORT (0.0.0.0:9190)] [--state FILE.db]\n"
    "           [--token-file FILE] [--tls-cert PEM --tls-key PEM] [--heartbeat-ms 2000]\n"
    "           [--lease-timeout-ms 10000] [--max-session-ms 600000]\n"
    "  Brokers sessions on registered rpc_servers; see README.md (\"Device fleet\").\n";

int Run(const std::vector<std::string>& args) {
  using tessera::fleet::ConfigError;
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    std::cout << kUsage;
    return 0;
  }
  tessera::fleet::Flags flags("tessera-tracker", args);
  flags.CheckKnown({"listen", "state", "token-file", "tls-cert", "tls-key", "heartbeat-ms",
                    "lease-timeout-ms", "max-session-ms"});
  tessera::tracker::FleetSettings settings;
  settings.heartbeat_ms = flags.GetInt("heartbeat-ms", 2000);
  settings.lease_timeout_ms = flags.GetInt("lease-timeout-ms", 10000);
  settings.max_session_ms = flags.GetInt("max-session-ms", 600000);
  if (settings.heartbeat_ms <= 0 || settings.lease_timeout_ms <= settings.heartbeat_ms ||
      settings.max_session_ms <= 0) {
    throw ConfigError(
        "tessera-tracker: need 0 < --heartbeat-ms < --lease-timeout-ms and --max-session-ms > 0");
  }
  std::string listen = flags.Get("listen", "0.0.0.0:9190");
  std::string host;
  int port = 0;
  tessera::fleet::SplitHostPort("listen", listen, &host, &port);

  std::string token;
  if (flags.Has("token-file")) {
    token = tessera::fleet::ReadTokenFile(flags.Get("token-file"));
  } else {
    std::cerr << "warning: tessera-tracker runs without --token-file: only loopback clients are "
                 "accepted"
              << std::endl;
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (flags.Has("tls-cert") || flags.Has("tls-key")) {
    grpc::SslServerCredentialsOptions tls;
    tls.pem_key_cert_pairs.push_back({ReadFile("tls-key", flags.Require("tls-key")),
                                      ReadFile("tls-cert", flags.Require("tls-cert"))});
    credentials = grpc::SslServerCredentials(tls);
  }
  std::unique_ptr<tessera::tracker::StateStore> store;
  if (flags.Has("state"))
    store = std::make_unique<tessera::tracker::StateStore>(flags.Get("state"));

  tessera::tracker::TrackerService service(settings, token, std::move(store));
  grpc::ServerBuilder builder;
  int selected_port = 0;
  builder.AddListeningPort(listen, credentials, &selected_port);
  tessera::fleet::ClaimPortsExclusively(&builder);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || selected_port == 0) {
    throw ConfigError("tessera-tracker: cannot listen on '" + listen +
                      "': " + tessera::fleet::ListenFailureReason(listen));
  }
  std::cout << "listening on " << host << ":" << selected_port << std::endl;

  // Shut down cleanly on SIGINT/SIGTERM so the state database is closed properly.
  tessera::fleet::WaitForShutdownSignal();
  std::cerr << "tessera-tracker: shutting down" << std::endl;
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::fleet::BlockShutdownSignals();
  try {
    return Run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const tessera::fleet::ConfigError& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << std::endl;
    return 1;
  }
}

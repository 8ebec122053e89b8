// tessera-tracker: the device fleet's broker. See docs/fleet.md.
#include <grpcpp/grpcpp.h>

#include <functional>
#include <iostream>

#include "common/command_line.h"
#include "common/error.h"
#include "common/file.h"
#include "common/shutdown_signals.h"
#include "fleet/mutex_checks.h"
#include "fleet/secrets.h"
#include "fleet/server/listen.h"
#include "records/tuning_log.h"
#include "tracker/authorize.h"
#include "tracker/dashboard/dashboard.h"
#include "tracker/dashboard/dashboard_json.h"
#include "tracker/jobs/job_service.h"
#include "tracker/log_service.h"
#include "tracker/relay_service.h"
#include "tracker/shared_log.h"
#include "tracker/tracker_service.h"

namespace {

struct TrackerFlags {
  std::string listen = "0.0.0.0:9190";
  std::string state, token_file, read_token_file, tls_cert, tls_key;
  std::string http;                    // the dashboard's address; empty: no dashboard
  std::string log_db;                  // the shared log's store; empty: STATE/tuning.db
  std::string jobs_db;                 // the jobs' store; empty: STATE/jobs.db
  std::string state_db, tracker_name;  // registrations in PostgreSQL; empty: STATE/tracker.db
  int fleet_sample_ms = 5000;
  tessera::tracker::FleetSettings settings;
  int64_t job_lease_ms = 30000;
};

// The fleet's token and the read-only one, from their files; a tracker without a token serves
// loopback peers only, and says so.
tessera::tracker::AccessTokens ReadTokens(const TrackerFlags& flags) {
  using tessera::ConfigError;
  tessera::tracker::AccessTokens tokens;
  if (flags.token_file.empty()) {
    if (!flags.read_token_file.empty()) {
      throw ConfigError(
          "tessera-tracker: --read-token-file needs --token-file (without a token the tracker "
          "serves loopback peers only)");
    }
    std::cerr << "warning: tessera-tracker runs without --token-file: only loopback clients are "
                 "accepted"
              << std::endl;
    return tokens;
  }
  tokens.full = tessera::fleet::ReadTokenFile(flags.token_file);
  if (!flags.read_token_file.empty()) {
    tokens.read_only = tessera::fleet::ReadTokenFile(flags.read_token_file);
    if (tokens.read_only == tokens.full) {
      throw ConfigError("tessera-tracker: --read-token-file holds the same token as --token-file");
    }
  }
  return tokens;
}

int Serve(const TrackerFlags& flags) {
  using tessera::ConfigError;
  const tessera::tracker::FleetSettings& settings = flags.settings;
  if (settings.lease_timeout_ms <= settings.heartbeat_ms) {
    throw ConfigError("tessera-tracker: --lease-timeout-ms must be longer than --heartbeat-ms");
  }
  std::string host;
  int port = 0;
  tessera::SplitHostPort("listen", flags.listen, &host, &port);

  const tessera::tracker::AccessTokens tokens = ReadTokens(flags);
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!flags.tls_cert.empty()) {
    grpc::SslServerCredentialsOptions tls;
    tls.pem_key_cert_pairs.push_back({tessera::ReadFile(flags.tls_key, "--tls-key"),
                                      tessera::ReadFile(flags.tls_cert, "--tls-cert")});
    credentials = grpc::SslServerCredentials(tls);
  }
  std::unique_ptr<tessera::tracker::StateStore> store;
  if (!flags.state_db.empty()) {
    store = std::make_unique<tessera::tracker::StateStore>("", flags.state_db, flags.tracker_name);
  } else if (!flags.state.empty()) {
    store = std::make_unique<tessera::tracker::StateStore>(flags.state);
  }

  tessera::tracker::TrackerService service(settings, tokens, std::move(store));
  tessera::tracker::SharedLog log(flags.state, flags.log_db);
  tessera::tracker::JobService jobs(flags.state, tokens.full, &log, flags.job_lease_ms,
                                    tessera::SystemClock(), flags.jobs_db);
  // Trackers sharing the jobs broker different devices: each leases (and asks autoscalers for
  // workers for) what its own can measure.
  std::function<bool(const std::string&)> brokers;
  if (!flags.jobs_db.empty()) {
    brokers = [&service](const std::string& key) { return service.Brokers(key); };
    jobs.LeaseOnlyFor(brokers);
  }
  tessera::tracker::LogService log_service(&log, tokens);
  grpc::ServerBuilder builder;
  int selected_port = 0;
  builder.AddListeningPort(flags.listen, credentials, &selected_port);
  tessera::fleet::ClaimPortsExclusively(&builder);
  builder.RegisterService(&service);
  builder.RegisterService(&jobs);
  tessera::tracker::RelayService relay(service.relay_hooks());  // servers behind NAT
  builder.RegisterService(&relay);
  builder.RegisterCallbackGenericService(relay.device_relay());
  builder.RegisterService(&log_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || selected_port == 0) {
    throw ConfigError("tessera-tracker: cannot listen on '" + flags.listen +
                      "': " + tessera::fleet::ListenFailureReason(flags.listen));
  }
  std::cout << "listening on " << host << ":" << selected_port << std::endl;
  std::unique_ptr<tessera::tracker::Dashboard> dashboard;
  if (!flags.http.empty()) {
    tessera::tracker::DashboardSources sources;
    sources.fleet = [&service] { return service.Snapshot(); };
    sources.log = &log;
    sources.jobs = [&jobs] { return tessera::tracker::JobsJson(jobs.Snapshot()); };
    sources.brokers = brokers;
    sources.fleet_sample_interval = std::chrono::milliseconds(flags.fleet_sample_ms);
    dashboard = std::make_unique<tessera::tracker::Dashboard>(sources, tokens);
    const int http_port = dashboard->Start(flags.http);
    std::string http_host;
    int ignored = 0;
    tessera::SplitHostPort("http", flags.http, &http_host, &ignored);
    std::cout << "dashboard on http://" << http_host << ":" << http_port << std::endl;
  }

  // Shut down cleanly on SIGINT/SIGTERM so the state database is closed properly.
  tessera::WaitForShutdownSignal();
  std::cerr << "tessera-tracker: shutting down" << std::endl;
  if (dashboard) dashboard->Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::fleet::SkipMutexDeadlockChecks();
  tessera::BlockShutdownSignals();
  TrackerFlags flags;
  CLI::App app{"Brokers sessions on registered rpc_servers; see docs/fleet.md.", "tessera-tracker"};
  app.option_defaults()->always_capture_default();
  tessera::AddVersionFlag(
      app, "keeps tuning log schema " + std::to_string(tessera::records::kTuningLogSchemaVersion));
  app.add_option("--listen", flags.listen, "address to serve on (port 0 picks one)")
      ->check(tessera::HostPort());
  app.add_option("--state", flags.state,
                 "directory of the state kept across restarts (SQLite DIR/tracker.db); "
                 "without it the state lives in memory only")
      ->type_name("DIR");
  app.add_option("--log-db", flags.log_db,
                 "where the shared tuning log lives: a SQLite file or postgresql://USER@HOST/DB "
                 "(password from PGPASSWORD or ~/.pgpass), which several trackers may share; "
                 "default DIR/tuning.db of --state")
      ->type_name("LOCATION");
  app.add_option("--jobs-db", flags.jobs_db,
                 "keep the tuning jobs in postgresql://USER@HOST/DB instead of DIR/jobs.db of "
                 "--state: trackers on one database serve one queue of jobs, to the workers of "
                 "all of them, and any of them takes over a job another one served")
      ->type_name("LOCATION");
  app.add_option("--state-db", flags.state_db,
                 "keep the registered servers and queued session requests in "
                 "postgresql://USER@HOST/DB instead of DIR/tracker.db of --state, under "
                 "--tracker-name (with --log-db and --jobs-db, a tracker needs no volume)")
      ->type_name("LOCATION");
  app.add_option("--tracker-name", flags.tracker_name,
                 "with --state-db: the name that keeps this tracker's registrations apart from "
                 "other trackers' in the database (the same name after a restart)")
      ->type_name("NAME");
  app.add_option("--token-file", flags.token_file,
                 "shared secret of the fleet; without it only loopback peers are accepted");
  app.add_option("--read-token-file", flags.read_token_file,
                 "a second, read-only token (for CI builds and dashboards): it reads the shared "
                 "log (log best/list/stats/export, compile --db tracker://) and the fleet status, "
                 "nothing else; needs --token-file");
  app.add_option("--http", flags.http,
                 "serve the web dashboard on HOST:PORT (port 0 picks one; same token as the "
                 "RPCs)")
      ->check(tessera::HostPort());
  app.add_option("--fleet-sample-ms", flags.fleet_sample_ms,
                 "how often the dashboard samples the fleet for its chart over time (the last 720 "
                 "samples are kept)")
      ->check(CLI::Range(100, 3600000));
  auto* cert = app.add_option("--tls-cert", flags.tls_cert, "PEM certificate: serve TLS");
  auto* key = app.add_option("--tls-key", flags.tls_key, "PEM private key of --tls-cert");
  cert->needs(key);
  key->needs(cert);
  app.add_option("--heartbeat-ms", flags.settings.heartbeat_ms, "servers heartbeat this often")
      ->check(tessera::Positive());
  app.add_option("--lease-timeout-ms", flags.settings.lease_timeout_ms,
                 "a server or client silent this long is dead")
      ->check(tessera::Positive());
  tessera::AddLogLevelOption(app);
  app.add_option("--job-lease-ms", flags.job_lease_ms,
                 "a tuner worker silent this long loses its batch to another worker")
      ->check(tessera::Positive());
  app.add_option("--max-session-ms", flags.settings.max_session_ms, "longest session")
      ->check(tessera::Positive());
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&flags] { return Serve(flags); });
}

/// \file
/// The tracker's web dashboard (`tessera-tracker --http HOST:PORT`): one self-refreshing page
/// (HTML and JavaScript embedded in the binary) over JSON endpoints, served by cpp-httplib on
/// its own threads. Same access rule as the RPCs (`tracker/authorize.h`): the token in the
/// `x-tessera-token` header (or `?token=` on the page's URL, which its script then sends as the
/// header), or loopback peers only without a token; 401 without a token, 403 with a wrong one.
#ifndef TESSERA_TRACKER_DASHBOARD_DASHBOARD_H_
#define TESSERA_TRACKER_DASHBOARD_DASHBOARD_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/json.h"
#include "proto/tracker.pb.h"
#include "tracker/authorize.h"
#include "tracker/dashboard/fleet_history.h"
#include "tracker/shared_log.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace tessera {
namespace tracker {

/// Where the dashboard reads what it shows.
struct DashboardSources {
  std::function<v1::FleetStatus()> fleet;  ///< servers, queues, sessions
  SharedLog* log = nullptr;                ///< best records per workload
  /// The jobs (`/api/jobs`); empty where the tracker has no job service, and the page says so.
  std::function<Json()> jobs;
  /// The device keys whose jobs `/api/queue` counts; null: every job's.
  std::function<bool(const std::string& device_key)> brokers;
  /// How often the fleet is sampled for its chart over time (`/api/fleet_history`).
  std::chrono::milliseconds fleet_sample_interval{5000};
};

/// The dashboard's HTTP server.
class Dashboard {
 public:
  /// A dashboard over `sources` (which outlive it), for callers holding one of `tokens` (the
  /// read-only one included; empty: loopback only).
  Dashboard(DashboardSources sources, AccessTokens tokens);
  /// Stops serving.
  ~Dashboard();
  Dashboard(const Dashboard&) = delete;
  Dashboard& operator=(const Dashboard&) = delete;

  /// Serves on `address` (HOST:PORT; port 0 picks one) on background threads, takes the fleet's
  /// first sample before it returns the port and samples it every interval from then on. Throws
  /// `ConfigError` naming the address when it cannot listen (a port another process holds is
  /// refused, never shared).
  int Start(const std::string& address);
  /// Stops serving (idempotent).
  void Stop();

 private:
  void Route();
  void SampleFleetOnce();
  void SampleFleet();

  DashboardSources sources_;
  const AccessTokens tokens_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> finished_{false};  ///< the serving thread has left
  FleetHistory history_;
  std::thread sampler_;
  std::mutex sampler_mu_;
  std::condition_variable sampler_cv_;
  bool stopping_ = false;  ///< guarded by sampler_mu_
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_DASHBOARD_DASHBOARD_H_

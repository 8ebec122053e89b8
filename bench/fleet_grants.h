/// \file
/// The grant-latency part of `//bench:fleet`: clients queue for sessions on a tracker with N
/// device servers, hold each grant briefly and release it. Prints request → grant, server
/// released → next client granted, lost requests (every failed client's error text), and the
/// tracker's own share of each grant as it times it (`FleetStatus.grant_latency`).
#ifndef TESSERA_BENCH_FLEET_GRANTS_H_
#define TESSERA_BENCH_FLEET_GRANTS_H_

#include <string>

namespace tessera {
namespace bench {

/// What the grant-latency run does.
struct GrantBench {
  int clients = 200;           ///< clients queueing at once
  int servers = 20;            ///< device servers
  int grants_per_client = 10;  ///< sessions each client asks for, one after another
  int hold_ms = 2;             ///< how long a client keeps each session
  /// "async": each client is a chain of callback calls on its own channel, and gRPC's few
  /// threads run them all, so that the figures are the tracker's and not the bench's threads
  /// waiting for a core; "threads": one OS thread per client through `TrackerClient` (with its
  /// retries), as many separate client programs would run.
  std::string client_model = "async";
  bool tracker_state = false;  ///< run the tracker with `--state` (SQLite), as a real one runs
};

/// Starts a tracker and `bench.servers` servers on 127.0.0.1, runs the clients and prints the
/// figures (with the load average).
void GrantLatency(const GrantBench& bench);

}  // namespace bench
}  // namespace tessera

#endif  // TESSERA_BENCH_FLEET_GRANTS_H_

// `tessera fleet status`: what the device fleet is doing, as a table or as JSON.
#include <google/protobuf/message.h>

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/proto_json.h"
#include "fleet/client/tracker_client.h"

namespace tessera {
namespace cli {
namespace {

// "no GPU", or "2 GPUs: NVIDIA H100 (sm_90, 81559 MiB), ...", for the servers' lines.
std::string DescribeGpus(const tracker::v1::DeviceInfo& info) {
  if (info.gpus().empty()) return "no GPU";
  std::ostringstream out;
  out << info.gpus_size() << (info.gpus_size() == 1 ? " GPU: " : " GPUs: ");
  for (int i = 0; i < info.gpus_size(); ++i) {
    const tracker::v1::GpuInfo& gpu = info.gpus(i);
    out << (i ? ", " : "") << gpu.name() << " (" << gpu.arch() << ", " << (gpu.memory_bytes() >> 20)
        << " MiB)";
  }
  return out.str();
}

std::string FormatMs(double ms) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << ms << " ms";
  return out.str();
}

void PrintTable(const tracker::v1::FleetStatus& status, std::ostream& out) {
  out << "servers:\n";
  if (status.servers().empty()) out << "  (none)\n";
  for (const auto& server : status.servers()) {
    out << "  " << std::left << std::setw(16) << server.key() << std::setw(6) << server.state()
        << std::setw(24) << server.address() << server.info().arch() << ", "
        << server.info().cores() << " cores, " << (server.info().memory_bytes() >> 20) << " MiB, '"
        << server.info().target() << "', " << DescribeGpus(server.info()) << ", ";
    if (server.last_heartbeat_age_ms() < 0) {
      out << "no heartbeat since the tracker started\n";
    } else {
      out << "last heartbeat " << server.last_heartbeat_age_ms() << " ms ago\n";
    }
  }
  out << "queues:\n";
  if (status.queues().empty()) out << "  (none)\n";
  for (const auto& queue : status.queues()) {
    out << "  " << std::left << std::setw(16) << queue.key() << queue.length() << " waiting\n";
  }
  out << "sessions:\n";
  if (status.sessions().empty()) out << "  (none)\n";
  for (const auto& session : status.sessions()) {
    out << "  " << session.session_id() << "  key " << session.key() << "  user " << session.user()
        << "  on " << session.server_address() << "  for " << session.age_ms() / 1000
        << " s, ends in " << session.expires_in_ms() / 1000 << " s\n";
  }
  if (status.grant_latency().empty()) return;
  // Timed inside the tracker: a client that waits much longer waits on its network or host.
  out << "grants (the tracker's own time, recent grants):\n";
  for (const auto& timed : status.grant_latency()) {
    out << "  " << std::left << std::setw(8) << timed.path() << std::right << std::setw(6)
        << timed.grants() << " grants  decided p50 " << FormatMs(timed.decided_p50_ms()) << " p99 "
        << FormatMs(timed.decided_p99_ms()) << "  sent p50 " << FormatMs(timed.sent_p50_ms())
        << " p99 " << FormatMs(timed.sent_p99_ms()) << " max " << FormatMs(timed.sent_max_ms())
        << "\n";
  }
}

struct FleetFlags {
  std::string tracker, token_file, tls_ca;
  bool json = false;
};

void Status(const FleetFlags& flags) {
  fleet::TrackerOptions options =
      fleet::TrackerOptionsFor(flags.tracker, flags.token_file, flags.tls_ca);
  options.retry_window_ms = 2000;
  options.rpc_timeout_ms = 5000;
  fleet::TrackerClient client(options);
  tracker::v1::FleetStatus status = client.Status();
  if (!flags.json) {
    PrintTable(status, std::cout);
    return;
  }
  std::cout << ProtoToJson(status, "the fleet status") << "\n";
}

}  // namespace

void AddFleetCommand(CLI::App& app) {
  auto flags = std::make_shared<FleetFlags>();
  CLI::App* fleet = app.add_subcommand("fleet", "The device fleet: servers, queues, sessions.");
  fleet->require_subcommand(1);
  CLI::App* status = fleet->add_subcommand("status", "what the fleet is doing, as a table or JSON");
  status->add_option("--tracker", flags->tracker, "the tracker's address")
      ->required()
      ->check(HostPort());
  status->add_option("--token-file", flags->token_file, "the fleet's shared token");
  status->add_option("--tls-ca", flags->tls_ca, "PEM root certificate of a TLS tracker");
  status->add_flag("--json", flags->json, "the status as one JSON object");
  status->callback([flags] { Status(*flags); });
}

}  // namespace cli
}  // namespace tessera

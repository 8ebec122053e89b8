// `tessera fleet status`: what the device fleet is doing, as a table or as JSON.
#include <google/protobuf/util/json_util.h>

#include <iomanip>
#include <ostream>

#include "cli/command.h"
#include "proto/grant.h"
#include "rpc_server/client/flags.h"
#include "rpc_server/client/tracker_client.h"

namespace tessera {
namespace cli {
namespace {

void PrintTable(const tracker::v1::FleetStatus& status, std::ostream& out) {
  out << "servers:\n";
  if (status.servers().empty()) out << "  (none)\n";
  for (const auto& server : status.servers()) {
    out << "  " << std::left << std::setw(16) << server.key() << std::setw(6) << server.state()
        << std::setw(24) << server.address() << server.info().arch() << ", "
        << server.info().cores() << " cores, " << (server.info().memory_bytes() >> 20) << " MiB, '"
        << server.info().target() << "', ";
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
}

int FleetStatusCommand(const std::vector<std::string>& args, std::ostream& out) {
  fleet::Flags flags("tessera fleet status", args, {"json"});
  flags.CheckKnown({"tracker", "json", "token-file", "tls-ca"});
  fleet::TrackerOptions options;
  options.address = flags.Require("tracker");
  std::string host;
  int port = 0;
  fleet::SplitHostPort("tracker", options.address, &host, &port);
  if (flags.Has("token-file")) options.token = fleet::ReadTokenFile(flags.Get("token-file"));
  options.tls_ca_file = flags.Get("tls-ca");
  options.retry_window_ms = 2000;
  options.rpc_timeout_ms = 5000;
  fleet::TrackerClient client(options);
  tracker::v1::FleetStatus status = client.Status();
  if (flags.Has("json")) {
    std::string json;
    google::protobuf::util::JsonPrintOptions print;
    print.preserve_proto_field_names = true;
    print.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(status, &json, print).ok()) {
      throw std::runtime_error("cannot print the fleet status as JSON");
    }
    out << json << "\n";
  } else {
    PrintTable(status, out);
  }
  return 0;
}

int FleetCommand(const std::vector<std::string>& args, std::ostream& out) {
  if (args.empty() || args[0] != "status") {
    throw fleet::ConfigError(
        "usage: tessera fleet status --tracker HOST:PORT [--json] [--token-file F] [--tls-ca F]");
  }
  return FleetStatusCommand(std::vector<std::string>(args.begin() + 1, args.end()), out);
}

}  // namespace

TESSERA_REGISTER_COMMAND(fleet,
                         Command{"fleet", "fleet status: servers, queues, sessions", FleetCommand});

}  // namespace cli
}  // namespace tessera

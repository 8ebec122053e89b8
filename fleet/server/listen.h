/// \file
/// A daemon's listening port is its own: gRPC lets several processes share a port by default
/// (SO_REUSEPORT), and the kernel then spreads connections over them, so a session granted for
/// one server could reach another, or a stranger's process. Every fleet daemon claims its port
/// through these helpers and refuses to start, naming the port, when it is taken.
#ifndef TESSERA_FLEET_SERVER_LISTEN_H_
#define TESSERA_FLEET_SERVER_LISTEN_H_

#include <grpcpp/grpcpp.h>

#include <string>

namespace tessera {
namespace fleet {

/// Turns port sharing off for every port `builder` listens on.
void ClaimPortsExclusively(grpc::ServerBuilder* builder);

/// Why listening on `address` (HOST:PORT) fails, for an error message: "port 9091 is already in
/// use by another process", or the system's reason.
std::string ListenFailureReason(const std::string& address);

/// The rpc_server's listen address when none is given: an OS-chosen port (so several servers
/// run on one board without flags), on loopback when `tracker` is on loopback.
std::string DefaultServerListenAddress(const std::string& tracker);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_SERVER_LISTEN_H_

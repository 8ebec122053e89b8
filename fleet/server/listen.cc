#include "fleet/server/listen.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tessera {
namespace fleet {
namespace {

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]" || host == "::1";
}

std::string HostOf(const std::string& address) {
  size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

}  // namespace

void ClaimPortsExclusively(grpc::ServerBuilder* builder) {
  builder->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
}

std::string ListenFailureReason(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return "expected HOST:PORT";
  const std::string port = address.substr(colon + 1);
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  // A probe with the same rules as the daemon (no port sharing) tells "taken" from the rest.
  sockaddr_in6 v6{};
  sockaddr_in v4{};
  bool ipv6 = host.find(':') != std::string::npos;
  if (host == "localhost") host = "127.0.0.1";
  if (host.empty()) host = ipv6 ? "::" : "0.0.0.0";
  int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::string("cannot open a socket: ") + std::strerror(errno);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int bound = -1;
  if (ipv6 && inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(static_cast<uint16_t>(std::atoi(port.c_str())));
    bound = bind(fd, reinterpret_cast<sockaddr*>(&v6), sizeof(v6));
  } else if (!ipv6 && inet_pton(AF_INET, host.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(static_cast<uint16_t>(std::atoi(port.c_str())));
    bound = bind(fd, reinterpret_cast<sockaddr*>(&v4), sizeof(v4));
  } else {
    close(fd);
    return "cannot bind host '" + host + "' (use an IP address of this machine)";
  }
  int error = errno;
  close(fd);
  if (bound != 0 && error == EADDRINUSE) {
    return "port " + port + " is already in use by another process";
  }
  if (bound != 0) return "port " + port + ": " + std::strerror(error);
  return "port " + port + " could not be opened (see gRPC's message above)";
}

std::string DefaultServerListenAddress(const std::string& tracker) {
  return IsLoopbackHost(HostOf(tracker)) ? "127.0.0.1:0" : "0.0.0.0:0";
}

}  // namespace fleet
}  // namespace tessera
